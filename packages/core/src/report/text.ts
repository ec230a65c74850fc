import { styleText } from 'node:util';
import { SEVERITIES, type Finding, type ScanReport, type Severity } from '../scan/model.js';
import { describeConsensus, describeWhere, excerpt, targetTitle, visibleBlock, visibleLine } from './common.js';
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

function formatReport(report: ScanReport, paint: (style: Style, text: string) => string): string[] {
  const lines: string[] = [];
  const { score, grade } = report;
  const gradeStyle: Style = grade === 'A' || grade === 'B' ? 'green' : grade === 'C' ? 'yellow' : 'red';
  lines.push(paint('bold', `■ ${visibleLine(targetTitle(report))}`) + paint('dim', `  [${report.target.kind}, ${report.mode}]`));
  lines.push(
    `  score ${paint(gradeStyle, `${score}/100 grade ${grade}`)}  ` +
      SEVERITIES.map((severity) => `${severity} ${report.counts[severity]}`).join(' · ') +
      paint('dim', `  (${report.stats.files} files, ${report.tools.length} tools)`),
  );
  if (report.notScanned) lines.push(`  ${paint('yellow', 'not scanned:')} ${visibleLine(report.notScanned)}`);

  for (const severity of SEVERITIES) {
    const group = report.findings.filter((finding) => finding.severity === severity);
    if (group.length === 0) continue;
    lines.push('', `  ${paint(SEVERITY_STYLE[severity], paint('bold', severity.toUpperCase()))} (${group.length})`);
    for (const finding of group) lines.push(...formatFinding(finding, paint));
  }
  if (report.findings.length === 0 && !report.notScanned) lines.push(`  ${paint('green', '✔ no findings')}`);
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

function formatFinding(finding: Finding, paint: (style: Style, text: string) => string): string[] {
  const dismissed = finding.consensus === 'dismiss';
  const head =
    `    ${paint(SEVERITY_STYLE[finding.severity], dismissed ? '○' : '●')} ` +
    `${paint('bold', visibleLine(finding.ruleId))} ${paint('dim', `[${finding.category}] confidence ${finding.confidence.toFixed(2)}`)}` +
    (dismissed ? paint('dim', '  dismissed by judges') : '');
  const lines = [head, `      ${visibleLine(finding.message)}`];
  const where = describeWhere(finding);
  if (where) lines.push(`      ${paint('dim', 'at')} ${visibleLine(where)}`);

  if (finding.evidence) {
    for (const line of excerpt(visibleBlock(finding.evidence))) lines.push(`      ${paint('dim', '│')} ${line}`);
  }
  if (finding.flow?.length) {
    lines.push(`      ${paint('dim', 'flow:')}`);
    finding.flow.forEach((step, index) => {
      const source = step.kind ? `${paint('dim', `[${step.kind}]`)} ` : '';
      lines.push(`        ${index + 1}. ${source}${visibleLine(`${step.file}:${step.line}`)}  ${visibleLine(step.note)}`);
    });
  }
  const consensus = describeConsensus(finding);
  if (consensus) {
    lines.push(`      ${paint('dim', 'judges:')} ${consensus}`);
    for (const vote of finding.votes ?? []) {
      lines.push(`        - ${visibleLine(vote.judge)}: ${vote.verdict}, ${visibleLine(vote.reason)}`);
    }
  }
  return lines;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
