// Pure helpers of the scan benchmark: statistics, targets and table formatting. Kept apart from the runner so they can
// be tested without a corpus.

export const TARGETS = {
  /** `svc scan` over the corpus may take at most this many times the bare parse of the files it analyses (wall). */
  cliOverBareMax: 2.0,
  /** The same where oxc's raw transfer is available (Node ≥ 22): the AST handoff is cheaper there. */
  cliOverBareMaxRawTransfer: 1.5,
  /** Peak RSS of the `svc scan` process. */
  peakRssMiBMax: 700,
  endToEndP95MsMax: 1000,
};

export function median(values) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The p-th percentile (nearest rank) of the values. */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
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
 * Verdicts against the targets. `cliOverBare` is the `svc scan` wall time over the bare-parse floor's; `rawTransfer`
 * says which ratio applies; `peakRssMiB` is the scan process's peak RSS.
 */
export function checkTargets({ cliOverBare, rawTransfer, peakRssMiB, endToEndP95Ms }) {
  const ratioMax = rawTransfer ? TARGETS.cliOverBareMaxRawTransfer : TARGETS.cliOverBareMax;
  return [
    { name: 'svc scan / bare parse (wall)', value: round(cliOverBare, 2), target: `≤ ${ratioMax.toFixed(1)}`, pass: cliOverBare <= ratioMax },
    { name: 'svc scan peak RSS (MiB)', value: round(peakRssMiB), target: `< ${TARGETS.peakRssMiBMax}`, pass: peakRssMiB < TARGETS.peakRssMiBMax },
    {
      name: 'single package end-to-end p95 (ms)',
      value: round(endToEndP95Ms),
      target: `< ${TARGETS.endToEndP95MsMax}`,
      pass: endToEndP95Ms < TARGETS.endToEndP95MsMax,
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

/** The results of one run (the shape of `.bench-cache/last-run.json`) as Markdown tables for bench/README.md. */
export function formatMarkdown(run) {
  const { totals, environment } = run;
  const cell = (value) => (typeof value === 'number' ? formatNumber(value) : String(value));
  const table = (headers, rows) =>
    [`| ${headers.join(' | ')} |`, `|${headers.map((_, index) => (index === 0 ? '---' : '---:')).join('|')}|`]
      .concat(rows.map((row) => `| ${row.map(cell).join(' | ')} |`))
      .join('\n');
  const severities = ['critical', 'high', 'medium', 'low', 'info'];
  const user = run.userRun;
  return [
    `Run of ${run.at.slice(0, 16).replace('T', ' ')} UTC: ${environment.node}${environment.rawTransfer ? ' (oxc raw transfer)' : ''}, ` +
      `${environment.platform}, ${environment.cpus} × ${environment.cpuModel}; 1-min load ${totals.loadAverage.before} → ${totals.loadAverage.after}; ` +
      `median of ${run.reps} after a warm-up.`,
    '',
    ...(user
      ? [
          `\`svc scan\` with ${user.targets} targets in one process; the floors parse the ${user.files} files (${user.mib} MiB) it analyses.`,
          '',
          table(
            ['process', 'wall ms', 'CPU ms', 'peak RSS MiB', '× bare (wall)', '× bare (CPU)', '× materialise (wall)'],
            user.rows.map((row) => [row.name, row.wallMs, row.cpuMs, row.peakRssMiB, row.overBare, row.cpuOverBare, row.overMaterialise]),
          ),
          '',
        ]
      : []),
    table(
      ['target', 'measured', 'goal', 'result'],
      run.targets.map((verdict) => [verdict.name, verdict.value, verdict.target, verdict.pass ? 'pass' : '**fail**']),
    ),
    '',
    `In-process, per package (${totals.packages} packages, ${totals.files} analysed files, ${totals.mib} MiB):`,
    '',
    table(
      ['pass', 'wall ms', 'files/s', 'MiB/s', '× parse + AST', 'CPU ms', '× parse + AST (CPU)'],
      [
        ['parse + AST', totals.parse.ms, totals.parse.filesPerSecond, totals.parse.mibPerSecond, 1, totals.parse.cpuMs, 1],
        ['fast scan', totals.fast.ms, totals.fast.filesPerSecond, totals.fast.mibPerSecond, totals.ratio, totals.fast.cpuMs, totals.cpuRatio],
        ['deep scan', totals.deep.ms, totals.deep.filesPerSecond, totals.deep.mibPerSecond, totals.deepRatio, totals.deep.cpuMs, totals.deepCpuRatio],
      ],
    ),
    '',
    `Single package end-to-end p50 ${totals.endToEndP50Ms} ms, p95 ${totals.endToEndP95Ms} ms (max ${totals.endToEndMaxMs} ms; fetch stage p50 ` +
      `${totals.endToEndFetchP50Ms} ms). Peak RSS of the in-process bench ${round(totals.inProcessPeakRssKiB / 1024)} MiB.`,
    '',
    table(
      ['package', 'files', 'KB', 'parse ms', 'fast ms', '×', '× CPU', 'deep ms', 'e2e ms', 'tools', 'C/H/M/L/I (fast)'],
      run.packages.map((row) => [
        `\`${row.package}\``,
        row.files,
        row.kb,
        row.parseMs,
        row.fastMs,
        row.ratio,
        row.cpuRatio,
        row.deepMs,
        row.endToEndMs,
        row.tools,
        severities.map((severity) => row.counts[severity] ?? 0).join('/'),
      ]),
    ),
  ].join('\n');
}
