// Pure helpers of the scan benchmark: statistics, targets and table formatting. Kept apart from the runner so they can
// be tested without a corpus.

export const TARGETS = {
  /** A fast scan may cost at most twice reading and parsing the same files. */
  fastOverParseMax: 2.0,
  peakRssMiBMax: 1024,
  endToEndP50MsMax: 1000,
};

export function median(values) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Throughput of one pass over the whole corpus: files and MiB per second of summed per-package medians. */
export function throughput(totalMs, files, bytes) {
  const seconds = totalMs / 1000;
  return {
    ms: round(totalMs),
    filesPerSecond: seconds > 0 ? round(files / seconds) : Number.POSITIVE_INFINITY,
    mibPerSecond: seconds > 0 ? round(bytes / 1024 / 1024 / seconds, 2) : Number.POSITIVE_INFINITY,
  };
}

/**
 * Verdicts against the targets. `ratio` is total fast-scan time over total parse-only time; `peakRssKiB` is what
 * `process.resourceUsage().maxRSS` reports (KiB on every platform Node supports).
 */
export function checkTargets({ ratio, peakRssKiB, endToEndP50Ms }) {
  const peakRssMiB = peakRssKiB / 1024;
  return [
    { name: 'fast / parse-only', value: round(ratio, 2), target: `≤ ${TARGETS.fastOverParseMax.toFixed(1)}`, pass: ratio <= TARGETS.fastOverParseMax },
    { name: 'peak RSS (MiB)', value: round(peakRssMiB), target: `< ${TARGETS.peakRssMiBMax}`, pass: peakRssMiB < TARGETS.peakRssMiBMax },
    {
      name: 'single package end-to-end p50 (ms)',
      value: round(endToEndP50Ms),
      target: `< ${TARGETS.endToEndP50MsMax}`,
      pass: endToEndP50Ms < TARGETS.endToEndP50MsMax,
    },
  ];
}

/** Renders rows as a fixed-width text table; numbers right-aligned, text left-aligned. */
export function formatTable(headers, rows) {
  const cells = [headers, ...rows].map((row) => row.map((cell) => (typeof cell === 'number' ? formatNumber(cell) : String(cell))));
  const numeric = headers.map((_, column) => rows.every((row) => typeof row[column] === 'number'));
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => row[column].length)));
  const line = (row) =>
    row.map((cell, column) => (numeric[column] ? cell.padStart(widths[column]) : cell.padEnd(widths[column]))).join('  ');
  return [line(cells[0]), widths.map((width) => '-'.repeat(width)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

function formatNumber(value) {
  if (!Number.isFinite(value)) return '-';
  return Number.isInteger(value) ? String(value) : value.toFixed(value < 10 ? 2 : 1);
}

export function round(value, digits = 1) {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
