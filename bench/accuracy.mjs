// Pure logic of the accuracy benchmark: corpus validation, matching findings to labelled advisories, tallying and
// formatting. Kept apart from the runner (accuracy-bench.mjs) so it can be tested on fake reports without a network.

export const CLASSES = [
  'command-injection',
  'argument-injection',
  'code-injection',
  'path-traversal',
  'ssrf',
  'sql-injection',
  'exfiltration',
  'exposed-http',
  'other',
];
export const SOURCES = ['tool-input', 'http-request', 'remote-response'];
const SEVERITY_RANK = { critical: 4, high: 3, medium: 2, low: 1, info: 0 };
const ID_PATTERN = /^(CVE-\d{4}-\d{4,}|GHSA(-[23456789cfghjmpqrvwx]{4}){3}|MAL-\d{4}-\d+)$/;
const EXACT_VERSION = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

export const THRESHOLDS = { recallMin: 0.85, cleanRateMin: 0.9 };

export const PRECISION_FORMULA =
  'precision = TP / (TP + findings that still match on fixed versions + high/critical findings on clean servers)';

/** Problems with the corpus document, as human-readable strings (empty when it is valid). */
export function validateCorpus(corpus, categories) {
  const problems = [];
  const known = new Set(categories);
  if (!Array.isArray(corpus?.advisories)) return ['advisories must be an array'];
  if (!Array.isArray(corpus?.clean)) return ['clean must be an array'];
  corpus.advisories.forEach((entry, index) => {
    const at = `advisories[${index}] (${entry?.id ?? '?'} ${entry?.package ?? '?'})`;
    const need = (condition, message) => condition || problems.push(`${at}: ${message}`);
    need(typeof entry.id === 'string' && ID_PATTERN.test(entry.id), 'id must be a CVE, GHSA or MAL id');
    need((entry.aliases ?? []).every((alias) => ID_PATTERN.test(alias)), 'aliases must be CVE or GHSA ids');
    need(typeof entry.package === 'string' && entry.package.length > 0, 'package is required');
    need(typeof entry.vulnerable === 'string' && EXACT_VERSION.test(entry.vulnerable), 'vulnerable must be an exact version');
    need(entry.fixed === null || (typeof entry.fixed === 'string' && EXACT_VERSION.test(entry.fixed)), 'fixed must be an exact version or null');
    need(entry.fixed !== entry.vulnerable, 'fixed must differ from vulnerable');
    need(CLASSES.includes(entry.class), `class must be one of ${CLASSES.join(', ')}`);
    need(Array.isArray(entry.categories) && entry.categories.length > 0, 'categories must be a non-empty array');
    need((entry.categories ?? []).every((category) => known.has(category)), 'categories must be svc finding categories');
    need(typeof entry.file === 'string' && entry.file.length > 0 && !entry.file.startsWith('/'), 'file must be a relative path');
    need(entry.fixedFile === undefined || (typeof entry.fixedFile === 'string' && entry.fixedFile.length > 0), 'fixedFile must be a path');
    need(Number.isInteger(entry.line) && entry.line > 0, 'line must be a positive integer');
    need(SOURCES.includes(entry.source), `source must be one of ${SOURCES.join(', ')}`);
    need(typeof entry.summary === 'string' && entry.summary.length >= 40, 'summary must be a sentence');
    need(typeof entry.shipsInPackage === 'boolean', 'shipsInPackage must be a boolean');
  });
  corpus.clean.forEach((entry, index) => {
    const at = `clean[${index}] (${entry?.name ?? '?'})`;
    if (typeof entry.name !== 'string' || entry.name.length === 0) problems.push(`${at}: name is required`);
    if (typeof entry.version !== 'string' || !EXACT_VERSION.test(entry.version)) problems.push(`${at}: version must be exact`);
    if (typeof entry.note !== 'string' || entry.note.length === 0) problems.push(`${at}: note is required`);
  });
  const keys = corpus.advisories.map((entry) => `${entry.id} ${entry.package}`);
  const duplicate = keys.find((key, index) => keys.indexOf(key) !== index);
  if (duplicate) problems.push(`advisory listed twice: ${duplicate}`);
  return problems;
}

/** Every package version the corpus needs scanned, each once, in a stable order. */
export function packagesToScan(corpus) {
  const seen = new Map();
  const add = (name, version, role) => {
    const key = `${name}@${version}`;
    if (!seen.has(key)) seen.set(key, { name, version, role });
  };
  for (const entry of corpus.advisories) {
    add(entry.package, entry.vulnerable, 'vulnerable');
    if (entry.fixed) add(entry.package, entry.fixed, 'fixed');
  }
  for (const entry of corpus.clean) add(entry.name, entry.version, 'clean');
  return [...seen.values()];
}

export function isSerious(finding) {
  return finding.severity === 'critical' || finding.severity === 'high';
}

/** A flaw without one code location (missing auth, DNS rebinding) counts any finding of its categories anywhere. */
export function matchesAnyFile(entry) {
  return entry.class === 'exposed-http';
}

/**
 * The findings of a report that detect the labelled advisory: category in the entry's categories, severity medium
 * or above, and the labelled file (the fixed build's file name when given) unless the flaw has no single location.
 * Each match carries its distance in lines from the labelled sink (null when the finding has no line).
 */
export function matchFindings(entry, findings, { fixed = false } = {}) {
  const file = fixed ? (entry.fixedFile ?? entry.file) : entry.file;
  const anyFile = matchesAnyFile(entry);
  return (findings ?? [])
    .filter(
      (finding) =>
        entry.categories.includes(finding.category) &&
        (SEVERITY_RANK[finding.severity] ?? 0) >= SEVERITY_RANK.medium &&
        (anyFile || finding.location?.file === file),
    )
    .map((finding) => ({
      ruleId: finding.ruleId,
      category: finding.category,
      severity: finding.severity,
      file: finding.location?.file ?? null,
      line: finding.location?.line ?? null,
      lineDistance: finding.location?.line === undefined || anyFile ? null : Math.abs(finding.location.line - entry.line),
      message: finding.message,
    }))
    .sort((a, b) => (a.lineDistance ?? Infinity) - (b.lineDistance ?? Infinity));
}

/**
 * One advisory in one mode. `vulnerable` and `fixed` are the scan outcomes of the two versions:
 * `{ report }` when scanned, `{ error }` when not, `undefined` when there is no fixed version to scan.
 */
export function evaluateAdvisory(entry, vulnerable, fixed) {
  const result = {
    id: entry.id,
    package: entry.package,
    vulnerable: entry.vulnerable,
    fixed: entry.fixed,
    class: entry.class,
    file: entry.file,
    line: entry.line,
    shipsInPackage: entry.shipsInPackage,
    scanned: Boolean(vulnerable?.report),
  };
  if (!vulnerable?.report) return { ...result, error: vulnerable?.error ?? 'not scanned', detected: false, matches: [] };
  const matches = matchFindings(entry, vulnerable.report.findings);
  const dismissed = matchFindings(entry, vulnerable.report.dismissed);
  Object.assign(result, {
    detected: matches.length > 0,
    matches,
    bestLineDistance: matches[0]?.lineDistance ?? null,
    dismissedMatches: dismissed.length,
    scoreVulnerable: vulnerable.report.score,
  });
  if (fixed?.report) {
    const fixedMatches = matchFindings(entry, fixed.report.findings, { fixed: true });
    Object.assign(result, { fixedMatches, scoreFixed: fixed.report.score });
    // Only a detected flaw can be cured: for a miss, "no matching finding on the fixed version" says nothing.
    if (result.detected) result.fixedBetter = fixedMatches.length === 0 || fixed.report.score > vulnerable.report.score;
  } else if (fixed?.error) {
    result.fixedError = fixed.error;
  }
  return result;
}

/** One clean server in one mode: its high/critical findings, the false-positive side of precision. */
export function evaluateClean(entry, outcome) {
  if (!outcome?.report) return { name: entry.name, version: entry.version, scanned: false, error: outcome?.error ?? 'not scanned', serious: [] };
  const serious = outcome.report.findings.filter(isSerious).map((finding) => ({
    ruleId: finding.ruleId,
    category: finding.category,
    severity: finding.severity,
    where: finding.location
      ? `${finding.location.file}:${finding.location.line}`
      : finding.tool
        ? `${finding.tool.kind} ${finding.tool.name} ${finding.tool.field}`
        : '',
    message: finding.message,
  }));
  return { name: entry.name, version: entry.version, scanned: true, score: outcome.report.score, serious };
}

function ratio(numerator, denominator) {
  return denominator === 0 ? null : numerator / denominator;
}

function tallyRows(advisories) {
  const usable = advisories.filter((result) => result.shipsInPackage && result.scanned);
  const withFixed = usable.filter((result) => result.fixedMatches !== undefined);
  const detectedWithFixed = withFixed.filter((result) => result.detected);
  const tp = usable.filter((result) => result.detected).length;
  const fixedFalsePositives = withFixed.reduce((sum, result) => sum + result.fixedMatches.length, 0);
  return {
    usable: usable.length,
    tp,
    fn: usable.length - tp,
    fixedScanned: detectedWithFixed.length,
    fixedBetter: detectedWithFixed.filter((result) => result.fixedBetter).length,
    fixedFalsePositives,
    recall: ratio(tp, usable.length),
    precision: ratio(tp, tp + fixedFalsePositives),
  };
}

/** Totals and per-class rows for one mode. Per-class precision leaves out clean-server findings (they have no class). */
export function summarize(advisories, clean) {
  const total = tallyRows(advisories);
  const scannedClean = clean.filter((result) => result.scanned);
  const cleanWithSerious = scannedClean.filter((result) => result.serious.length > 0).length;
  const cleanSeriousFindings = scannedClean.reduce((sum, result) => sum + result.serious.length, 0);
  const byClass = {};
  for (const name of CLASSES) {
    const rows = advisories.filter((result) => result.class === name);
    if (rows.length > 0) byClass[name] = tallyRows(rows);
  }
  return {
    ...total,
    excluded: advisories.filter((result) => !result.shipsInPackage).length,
    notScanned: advisories.filter((result) => result.shipsInPackage && !result.scanned).length,
    cleanScanned: scannedClean.length,
    cleanWithSerious,
    cleanSeriousFindings,
    cleanRate: ratio(scannedClean.length - cleanWithSerious, scannedClean.length),
    precision: ratio(total.tp, total.tp + total.fixedFalsePositives + cleanSeriousFindings),
    byClass,
  };
}

/** The `--check` verdicts for one mode's summary. */
export function checkSummary(summary) {
  return [
    { name: 'recall', value: summary.recall, target: `≥ ${THRESHOLDS.recallMin}`, pass: (summary.recall ?? 0) >= THRESHOLDS.recallMin },
    {
      name: 'clean-server rate',
      value: summary.cleanRate,
      target: `≥ ${THRESHOLDS.cleanRateMin}`,
      pass: (summary.cleanRate ?? 0) >= THRESHOLDS.cleanRateMin,
    },
  ];
}

export function percent(value) {
  return value === null || value === undefined ? '-' : `${(value * 100).toFixed(1)} %`;
}

const SUMMARY_HEADERS = ['class', 'usable', 'TP', 'FN', 'fixed better', 'fixed FP', 'recall', 'precision'];

function summaryRows(summary) {
  const row = (name, tally) => [
    name,
    tally.usable,
    tally.tp,
    tally.fn,
    `${tally.fixedBetter}/${tally.fixedScanned}`,
    tally.fixedFalsePositives,
    percent(tally.recall),
    percent(tally.precision),
  ];
  return [...Object.entries(summary.byClass).map(([name, tally]) => row(name, tally)), row('all', summary)];
}

/** `numeric`: whether a column is right-aligned (by default every column but the first). */
function markdownTable(headers, rows, numeric = (index) => index > 0) {
  return [`| ${headers.join(' | ')} |`, `|${headers.map((_, index) => (numeric(index) ? '---:' : '---')).join('|')}|`]
    .concat(rows.map((row) => `| ${row.join(' | ')} |`))
    .join('\n');
}

/** The per-mode result (`{ mode, advisories, clean, summary }`) as Markdown: the tables docs/accuracy.md shows. */
export function formatModeMarkdown(result) {
  const { summary } = result;
  const advisoryRows = result.advisories.map((item) => [
    `${item.id}`,
    `\`${item.package}@${item.vulnerable}\``,
    item.class,
    !item.shipsInPackage ? 'excluded' : !item.scanned ? 'not scanned' : item.detected ? 'TP' : 'FN',
    item.detected ? `${item.matches[0].ruleId} (${item.matches[0].file}:${item.matches[0].line ?? '-'}, Δ${item.bestLineDistance ?? '-'})` : '',
    item.fixedBetter === undefined ? '' : item.fixedBetter ? 'yes' : 'no',
    item.fixedMatches?.length ?? '',
  ]);
  const cleanRows = result.clean
    .filter((item) => item.serious.length > 0)
    .flatMap((item) => item.serious.map((finding) => [`\`${item.name}@${item.version}\``, finding.severity, finding.ruleId, finding.where, finding.message]));
  return [
    `### ${result.mode} mode`,
    '',
    markdownTable(SUMMARY_HEADERS, summaryRows(summary)),
    '',
    `Clean servers: ${summary.cleanScanned - summary.cleanWithSerious} of ${summary.cleanScanned} without a high/critical finding ` +
      `(${percent(summary.cleanRate)}); ${summary.cleanSeriousFindings} high/critical findings in all. ` +
      `Precision ${percent(summary.precision)}, recall ${percent(summary.recall)}.`,
    '',
    markdownTable(
      ['advisory', 'vulnerable', 'class', 'result', 'best match (file:line, Δ lines)', 'fixed better', 'fixed FP'],
      advisoryRows,
      (index) => index === 6,
    ),
    '',
    cleanRows.length > 0
      ? markdownTable(
          ['clean server', 'severity', 'rule', 'where', 'message'],
          cleanRows.map((row) => row.map((cell) => String(cell).replace(/\|/g, '\\|'))),
          () => false,
        )
      : 'No high/critical finding on any clean server.',
  ].join('\n');
}

/** Plain-text report of one mode for the terminal. */
export function formatModeText(result, formatTable) {
  const { summary } = result;
  const lines = [
    `== ${result.mode} mode ==`,
    formatTable(SUMMARY_HEADERS, summaryRows(summary)),
    '',
    `clean servers with a high/critical finding: ${summary.cleanWithSerious} of ${summary.cleanScanned} ` +
      `(${summary.cleanSeriousFindings} findings; clean-server rate ${percent(summary.cleanRate)})`,
    `recall = TP / usable advisories = ${summary.tp}/${summary.usable} = ${percent(summary.recall)}`,
    `${PRECISION_FORMULA} = ${summary.tp}/(${summary.tp} + ${summary.fixedFalsePositives} + ${summary.cleanSeriousFindings}) = ${percent(summary.precision)}`,
  ];
  if (summary.excluded > 0) lines.push(`excluded from recall (flaw not in the tarball or not served): ${summary.excluded}`);
  if (summary.notScanned > 0) lines.push(`usable advisories whose vulnerable version could not be scanned: ${summary.notScanned}`);
  const misses = result.advisories.filter((item) => item.shipsInPackage && item.scanned && !item.detected);
  if (misses.length > 0) {
    lines.push('', 'false negatives:');
    for (const item of misses) {
      const dismissed = item.dismissedMatches ? ` (${item.dismissedMatches} matching finding(s) dismissed by the judges)` : '';
      lines.push(`  ${item.id} ${item.package}@${item.vulnerable} ${item.file}:${item.line}${dismissed}`);
    }
  }
  const stillMatching = result.advisories.filter((item) => item.fixedMatches?.length > 0);
  if (stillMatching.length > 0) {
    lines.push('', 'findings that still match on the fixed version:');
    for (const item of stillMatching) {
      for (const match of item.fixedMatches) lines.push(`  ${item.id} ${item.package}@${item.fixed} ${match.ruleId} ${match.file}:${match.line}`);
    }
  }
  const noisy = result.clean.filter((item) => item.serious.length > 0);
  if (noisy.length > 0) {
    lines.push('', 'high/critical findings on clean servers:');
    for (const item of noisy) {
      for (const finding of item.serious) {
        lines.push(`  ${item.name}@${item.version} ${finding.severity} ${finding.ruleId} ${finding.where}: ${finding.message}`);
      }
    }
  }
  return lines.join('\n');
}
