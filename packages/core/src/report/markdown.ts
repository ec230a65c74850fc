import { SEVERITIES, type Finding, type Severity } from '../scan/model.js';
import { describeConsensus, describeWhere, excerpt, targetTitle, visibleBlock, visibleLine } from './common.js';

const COVERAGE_LABEL = { scanned: 'scanned', partial: '⚠️ partial', 'not-scanned': '⛔ not scanned' } as const;
import type { ScanRun } from './schema.js';

const SEVERITY_BADGE: Record<Severity, string> = {
  critical: '🔴 critical',
  high: '🟠 high',
  medium: '🟡 medium',
  low: '🔵 low',
  info: '⚪ info',
};

/** GitHub rejects comments over 65 536 characters; stop adding findings with room to spare for the rest. */
const COMMENT_BUDGET = 60_000;

/**
 * Markdown for pull-request comments. Scanned text never reaches the page as markup: it goes into code spans and
 * fenced blocks (where GitHub neither renders HTML nor turns `@name` into a mention), and rule-written messages are
 * backslash-escaped with any `@handle` inside them set as code.
 */
export function markdownReporter(run: ScanRun): string {
  const out: string[] = ['## svc scan results', ''];

  if (run.reports.length > 0) {
    out.push(
      '| Target | Status | Score | Grade | ' + SEVERITIES.map(capitalise).join(' | ') + ' |',
      '| --- | --- | ---: | :---: | ' + SEVERITIES.map(() => '---:').join(' | ') + ' |',
    );
    for (const report of run.reports) {
      out.push(
        `| ${code(targetTitle(report), true)} | ${COVERAGE_LABEL[report.coverage.status]} | ${report.score ?? '–'} | ` +
          `${report.grade === null ? '–' : `**${report.grade}**`} | ` +
          SEVERITIES.map((severity) => String(report.counts[severity])).join(' | ') +
          ' |',
      );
    }
    out.push('');
  }

  // Tables first, then details, while the comment still has room; what does not fit is counted, not dropped silently.
  let budget = COMMENT_BUDGET - out.join('\n').length;
  for (const report of run.reports) {
    out.push(`### ${code(targetTitle(report))}`, '');
    if (report.coverage.status !== 'scanned') {
      out.push(`> **${report.coverage.status === 'partial' ? 'Partly scanned' : 'Not scanned'}:**`);
      for (const reason of report.coverage.reasons) out.push(`> - ${text(reason)}`);
      out.push('');
    }
    if (report.findings.length === 0) {
      if (report.coverage.status === 'scanned') out.push('No findings.', '');
      else if (report.coverage.status === 'partial') out.push('No findings in the part that was scanned.', '');
      continue;
    }
    out.push('| Severity | Rule | Category | Where | Message |', '| --- | --- | --- | --- | --- |');
    // The table may take half of what is left, so the first findings still get their details.
    let tableBudget = budget / 2;
    let rows = 0;
    for (const finding of report.findings) {
      const row = findingRow(finding);
      if (row.length + 1 > tableBudget) break;
      tableBudget -= row.length + 1;
      budget -= row.length + 1;
      out.push(row);
      rows += 1;
    }
    out.push('');
    if (rows < report.findings.length) {
      out.push(`_${report.findings.length - rows} more findings not listed: see the JSON or SARIF report._`, '');
    }

    let detailed = 0;
    for (const finding of report.findings.slice(0, rows)) {
      const details = findingDetails(finding);
      if (details.length + 1 > budget) break;
      budget -= details.length + 1;
      out.push(details);
      detailed += 1;
    }
    if (detailed < rows) out.push(`_${rows - detailed} more findings not detailed here: see the JSON or SARIF report._`, '');
  }

  if (run.errors.length > 0) {
    out.push('### Targets that could not be scanned', '');
    for (const error of run.errors) out.push(`- ${code(error.input)}: ${text(error.message)}`);
    out.push('');
  }

  out.push(`<sub>svc ${text(run.generator.version)} · report format ${text(run.schemaVersion)}</sub>`);
  return `${out.join('\n')}\n`;
}

function findingRow(finding: Finding): string {
  const dismissed = finding.consensus === 'dismiss' ? ' (dismissed)' : '';
  const where = describeWhere(finding);
  return (
    `| ${SEVERITY_BADGE[finding.severity]}${dismissed} | ${code(finding.ruleId, true)} | ${finding.category} | ` +
    `${where ? code(where, true) : ''} | ${text(finding.message, true)} |`
  );
}

function findingDetails(finding: Finding): string {
  const where = describeWhere(finding);
  const summary =
    `<b>${finding.severity}</b> · <code>${html(finding.ruleId)}</code>` + (where ? ` · <code>${html(visibleLine(where))}</code>` : '');
  const lines = ['<details>', `<summary>${summary}</summary>`, '', text(finding.message), ''];
  lines.push(`Category: ${finding.category} · confidence ${finding.confidence.toFixed(2)}`, '');
  if (finding.evidence) lines.push(fence(excerpt(visibleBlock(finding.evidence), 20).join('\n')), '');
  if (finding.flow?.length) {
    lines.push('**Flow**', '');
    finding.flow.forEach((step, index) => lines.push(`${index + 1}. ${step.kind ? `*${step.kind}* ` : ''}${code(`${step.file}:${step.line}`)} ${text(step.note)}`));
    lines.push('');
  }
  if (finding.facets?.length) {
    lines.push('**Same root cause**', '');
    for (const facet of finding.facets) {
      const at = facet.location ? ` at ${code(`${facet.location.file}:${facet.location.line}`)}` : '';
      lines.push(`- ${code(facet.ruleId)} (${facet.severity})${at}: ${text(facet.message)}`);
    }
    lines.push('');
  }
  const consensus = describeConsensus(finding);
  if (consensus) {
    lines.push(`**Judges:** ${text(consensus)}`, '');
    for (const vote of finding.votes ?? []) lines.push(`- ${code(vote.judge)}: ${vote.verdict}, ${text(vote.reason)}`);
    if (finding.votes?.length) lines.push('');
  }
  lines.push('</details>', '');
  return lines.join('\n');
}

/** A code span that cannot be broken out of: the delimiter is longer than any backtick run inside. */
function code(value: string, inTable = false): string {
  let content = visibleLine(value);
  if (inTable) content = content.replace(/\|/g, '\\|');
  const longest = Math.max(0, ...(content.match(/`+/g) ?? []).map((run) => run.length));
  const ticks = '`'.repeat(longest + 1);
  const pad = content.startsWith('`') || content.endsWith('`') || content.startsWith(' ') ? ' ' : '';
  return `${ticks}${pad}${content}${pad}${ticks}`;
}

/** A fenced block likewise: GitHub renders nothing inside it, not HTML, links or mentions. */
function fence(content: string): string {
  const longest = Math.max(0, ...(content.match(/`{3,}/g) ?? []).map((run) => run.length));
  const ticks = '`'.repeat(Math.max(3, longest + 1));
  return `${ticks}text\n${content}\n${ticks}`;
}

/**
 * Inline prose. Backtick-quoted parts (rules quote names and code that way) become real code spans; everything
 * else has each ASCII punctuation character escaped (CommonMark allows it for all of them) and `@handles` set as
 * code, so no markup, link or mention survives.
 */
function text(value: string, inTable = false): string {
  return visibleLine(value)
    .split(/`([^`]+)`/)
    .map((part, index) =>
      index % 2 === 1
        ? code(part, inTable)
        : part.replace(/@[A-Za-z0-9_-]+|[!-/:-@[-`{-~]/g, (match) => (match.length > 1 ? code(match, inTable) : `\\${match}`)),
    )
    .join('');
}

function html(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
