import { styleText } from 'node:util';
import { getRule } from '../rules/index.js';
import { SEVERITIES, type CodeContext, type Finding, type ScanReport, type ScopeReason, type Severity } from '../scan/model.js';
import { capabilitySummary, describeConsensus, describeWhere, excerpt, MAX_TOOLS_LISTED, scoreLabel, targetTitle, textTable, visibleBlock, visibleLine } from './common.js';
import type { ScanRun } from './schema.js';

export interface TextOptions {
  /** ANSI colours; the CLI decides (TTY, NO_COLOR, --color) and says so here. Off by default. */
  color?: boolean;
}

type Style = Parameters<typeof styleText>[0];
// Node ≥ 22.13 makes styleText drop colours itself when stdout is not a TTY; the caller has already decided.
const styleWithoutStreamCheck = styleText as (format: Style, text: string, options?: { validateStream?: boolean }) => string;

const SEVERITY_STYLE: Record<Severity, Style> = {
  critical: 'magenta',
  high: 'red',
  medium: 'yellow',
  low: 'cyan',
  info: 'gray',
};

/**
 * Terminal output, grouped by target then severity. Every piece of scanned text (messages, evidence, paths, tool
 * names, judge reasons, error messages) goes through `visible`, so nothing from a scanned server reaches the
 * terminal as a control sequence; only this module's own styling emits escapes, and only when asked.
 */
export function textReporter(run: ScanRun, options: TextOptions = {}): string {
  const paint = (style: Style, text: string) => (options.color ? styleWithoutStreamCheck(style, text, { validateStream: false }) : text);
  const out: string[] = [];

  for (const report of run.reports) {
    out.push(...formatReport(report, paint), '');
  }

  // Several targets (a client config's servers): one row each at the end, the way a CI log is read.
  if (run.reports.length + run.errors.length > 1) out.push(...summaryTable(run, paint), '');

  if (run.errors.length > 0) {
    out.push(paint('bold', `Errors (${run.errors.length})`));
    for (const error of run.errors) out.push(`  ${paint('red', '✖')} ${visibleLine(error.input)}: ${visibleLine(error.message)}`);
    out.push('');
  }

  const findings = run.reports.reduce((sum, report) => sum + report.findings.length, 0);
  out.push(
    `svc ${visibleLine(run.generator.version)}: ${plural(run.reports.length, 'target')} scanned, ` +
      `${plural(findings, 'finding')}, ${plural(run.errors.length, 'target')} failed`,
  );
  return `${out.join('\n')}\n`;
}

type Paint = (style: Style, text: string) => string;

function formatReport(report: ScanReport, paint: Paint): string[] {
  const lines: string[] = [];
  const { grade, coverage } = report;
  const gradeStyle: Style = grade === null ? 'yellow' : grade === 'A' || grade === 'B' ? 'green' : grade === 'C' ? 'yellow' : 'red';
  lines.push(paint('bold', `■ ${visibleLine(targetTitle(report))}`) + paint('dim', `  [${report.target.kind}, ${report.mode}]`));
  if (report.target.launchedBy) lines.push(paint('dim', `  scanned because ${visibleLine(report.target.launchedBy)} launches it: the tools that package serves are defined here`));
  lines.push(
    `  score ${paint(gradeStyle, scoreLabel(report))}  ` +
      SEVERITIES.map((severity) => `${severity} ${report.counts[severity]}`).join(' · ') +
      paint('dim', `  (${report.stats.files} files, ${report.tools.length} tools)`),
  );
  // What was not analysed stands beside the grade, so a partial A is never read as a clean A.
  if (coverage.status !== 'scanned') {
    lines.push(`  ${paint('yellow', coverage.status === 'partial' ? 'partial:' : 'not scanned:')}`);
    for (const reason of coverage.reasons) lines.push(`    ${paint('yellow', '!')} ${visibleLine(reason)}`);
  }

  for (const severity of SEVERITIES) {
    const group = report.findings.filter((finding) => finding.severity === severity);
    if (group.length === 0) continue;
    lines.push('', `  ${paint(SEVERITY_STYLE[severity], paint('bold', severity.toUpperCase()))} (${group.length})`);
    for (const finding of group) lines.push(...formatFinding(finding, paint));
  }
  if (report.findings.length === 0 && coverage.status === 'scanned') lines.push(`  ${paint('green', '✔ no findings')}`);
  if (report.findings.length === 0 && coverage.status === 'partial') lines.push(`  ${paint('yellow', 'no findings in the part that was scanned')}`);

  // What each tool's code can do, even when nothing is wrong: reviewers read this list (docs/capabilities.md).
  const capable = report.tools.filter((tool) => tool.capabilities !== undefined && tool.capabilities.length > 0);
  if (capable.length > 0) {
    lines.push('', `  ${paint('dim', `tool capabilities (${capable.length} of ${report.tools.length} tools):`)}`);
    for (const tool of capable.slice(0, MAX_TOOLS_LISTED)) lines.push(`    ${visibleLine(tool.name)}: ${visibleLine(capabilitySummary(tool.capabilities ?? []))}`);
    if (capable.length > MAX_TOOLS_LISTED) lines.push(`    … ${capable.length - MAX_TOOLS_LISTED} more (see the JSON report)`);
  }

  // Suppressed findings are counted with who silenced them, so a quiet report can still be audited; the JSON has each.
  const suppressed = report.suppressed ?? [];
  if (suppressed.length > 0) {
    const byKind = [...new Set(suppressed.map((finding) => finding.suppression?.kind ?? 'inline'))]
      .map((kind) => `${suppressed.filter((finding) => (finding.suppression?.kind ?? 'inline') === kind).length} ${kind}`)
      .join(', ');
    lines.push('', `  ${paint('dim', `suppressed (${suppressed.length}: ${byKind}):`)}`);
    for (const finding of suppressed.slice(0, 10)) {
      lines.push(`    ${paint('dim', '○')} ${visibleLine(finding.ruleId)} ${paint('dim', 'at')} ${visibleLine(describeWhere(finding) ?? '')}: ${visibleLine(finding.suppression?.reason ?? '')} ${paint('dim', `(${visibleLine(finding.suppression?.source ?? '')})`)}`);
    }
    if (suppressed.length > 10) lines.push(`    … ${suppressed.length - 10} more`);
  }

  const scopedOut = report.scopedOut ?? [];
  if (scopedOut.length > 0) {
    // Counted per reason, with the folders they sit in: the full list is in the JSON report.
    const reasons = [...new Set(scopedOut.map((file) => file.reason))];
    lines.push('', `  ${paint('dim', `not analysed as server code (${scopedOut.length} files, read by the text rules only):`)}`);
    for (const reason of reasons) {
      const files = scopedOut.filter((file) => file.reason === reason);
      const folders = [...new Set(files.map((file) => file.path.split('/').slice(0, -1).join('/') || '.'))];
      const shown = folders.slice(0, 3).map(visibleLine).join(', ') + (folders.length > 3 ? `, … ${folders.length - 3} more folders` : '');
      lines.push(`    ${SCOPE_REASONS[reason]}: ${files.length} in ${shown}`);
    }
  }

  // Deep mode: what the panel dismissed is shown apart with every vote, so a reader can check the reasons.
  const dismissed = report.dismissed ?? [];
  if (dismissed.length > 0) {
    lines.push('', `  ${paint('dim', `dismissed by the judge panel, not counted (${dismissed.length})`)}`);
    for (const finding of dismissed) lines.push(...formatFinding(finding, paint));
  }

  if (report.problems.length > 0) {
    lines.push('', `  ${paint('dim', `problems (${report.problems.length}):`)}`);
    for (const problem of report.problems.slice(0, 10)) {
      lines.push(`    ${visibleLine(problem.file)}: ${visibleLine(problem.message)}`);
    }
    if (report.problems.length > 10) lines.push(`    … ${report.problems.length - 10} more`);
  }
  return lines;
}

const SCOPE_REASONS: Record<ScopeReason, string> = {
  declaration: 'type declarations',
  'browser-build': 'browser build output (web client beside an index.html)',
  'dual-build-twin': 'CommonJS twins of an analysed ESM build',
};

function formatFinding(finding: Finding, paint: Paint): string[] {
  const dismissed = finding.consensus === 'dismiss';
  const rule = getRule(finding.ruleId);
  const head =
    `    ${paint(SEVERITY_STYLE[finding.severity], dismissed ? '○' : '●')} ` +
    `${paint('bold', visibleLine(finding.ruleId))}` +
    (rule ? `  ${rule.meta.title}` : '') +
    (dismissed ? paint('dim', '  dismissed by judges') : '');
  const lines = [head, `      ${visibleLine(finding.message)}`];
  const where = describeWhere(finding);
  if (where) lines.push(`      ${paint('dim', 'at')} ${visibleLine(where)}`);

  // The code itself when the finding has a place in it; otherwise (a tool description, a manifest) the evidence.
  if (finding.context) lines.push(...formatContext(finding.context, finding.location?.line, paint));
  else if (finding.evidence) {
    for (const line of excerpt(visibleBlock(finding.evidence))) lines.push(`      ${paint('dim', '│')} ${line}`);
  }
  if (finding.flow?.length) {
    lines.push(`      ${paint('dim', 'flow:')}`);
    finding.flow.forEach((step, index) => {
      const source = step.kind ? `${paint('dim', `[${step.kind}]`)} ` : '';
      const guard = step.guard ? paint('dim', ` (checked by ${visibleLine(step.guard)}, which does not hold)`) : '';
      lines.push(`        ${index + 1}. ${source}${visibleLine(`${step.file}:${step.line}`)}  ${visibleLine(step.note)}${guard}`);
    });
  }
  if (finding.facets?.length) {
    lines.push(`      ${paint('dim', 'same root cause:')}`);
    for (const facet of finding.facets) {
      const at = facet.location ? ` ${paint('dim', 'at')} ${visibleLine(`${facet.location.file}:${facet.location.line}`)}` : '';
      lines.push(`        ${paint(SEVERITY_STYLE[facet.severity], '•')} ${visibleLine(facet.ruleId)} (${facet.severity})${at}: ${visibleLine(facet.message)}`);
    }
  }
  const consensus = describeConsensus(finding);
  if (consensus) {
    lines.push(`      ${paint('dim', 'judges:')} ${consensus}`);
    for (const vote of finding.votes ?? []) {
      lines.push(`        - ${visibleLine(vote.judge)}: ${vote.verdict}, ${visibleLine(vote.reason)}`);
    }
  }
  if (rule) lines.push(`      ${paint('dim', 'fix:')} ${rule.meta.remediation}`);
  const references = [
    `[${finding.category}]`,
    ...(rule ? [...rule.meta.cwe, `OWASP ${rule.meta.owasp}`] : []),
    `confidence ${finding.confidence.toFixed(2)}`,
    `details: svc rules ${visibleLine(finding.ruleId)}`,
  ];
  lines.push(`      ${paint('dim', references.join(' · '))}`);
  return lines;
}

/** Source lines with a gutter of line numbers; the finding's line is marked. */
function formatContext(context: CodeContext, line: number | undefined, paint: Paint): string[] {
  const last = context.startLine + context.lines.length - 1;
  const width = String(last).length;
  return context.lines.map((text, index) => {
    const number = context.startLine + index;
    const hit = number === line;
    const gutter = `${hit ? '▶' : ' '} ${String(number).padStart(width)} │`;
    return `      ${hit ? paint('bold', gutter) : paint('dim', gutter)} ${visibleLine(text)}`;
  });
}

/** target · status · tools · counts · grade, one row per target and per failed one. */
function summaryTable(run: ScanRun, paint: Paint): string[] {
  const rows: string[][] = [['target', 'status', 'tools', 'critical', 'high', 'medium', 'low', 'grade']];
  for (const report of run.reports) {
    rows.push([
      visibleLine(targetTitle(report)),
      report.coverage.status,
      String(report.tools.length),
      ...(['critical', 'high', 'medium', 'low'] as const).map((severity) => String(report.counts[severity])),
      report.grade ?? '-',
    ]);
  }
  for (const error of run.errors) rows.push([visibleLine(error.input), 'failed', '-', '-', '-', '-', '-', '-']);
  const [header, ...body] = textTable(rows).split('\n');
  return [paint('bold', 'Summary'), paint('dim', header ?? ''), ...body];
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
