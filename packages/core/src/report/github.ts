import type { Finding, ScanReport, Severity } from '../scan/model.js';
import { checkoutPath, coverageNote, findingLocation, scoreLabel, targetTitle, visibleBlock, visibleLine } from './common.js';
import type { ScanRun } from './schema.js';

const COMMAND: Record<Severity, 'error' | 'warning' | 'notice'> = {
  critical: 'error',
  high: 'error',
  medium: 'warning',
  low: 'warning',
  info: 'notice',
};

/**
 * GitHub Actions workflow commands: one annotation per finding on the file and line it concerns, a notice with each
 * target's score, and an error per target that failed. Findings the judges dismissed are left out, as in SARIF.
 * Each command is a single line (line breaks are %-encoded), so scanned text cannot start a command of its own.
 */
export function githubReporter(run: ScanRun): string {
  const lines: string[] = [];
  for (const report of run.reports) {
    for (const finding of report.findings) {
      if (finding.consensus !== 'dismiss') lines.push(annotation(report, finding));
    }
    const counts = Object.entries(report.counts)
      .filter(([, count]) => count > 0)
      .map(([severity, count]) => `${count} ${severity}`)
      .join(', ');
    const note = coverageNote(report);
    // A target that was not scanned is an error and a partial one a warning, so neither reads as a passing check.
    const level = report.coverage.status === 'not-scanned' ? 'error' : report.coverage.status === 'partial' ? 'warning' : 'notice';
    lines.push(
      command(level, { title: `svc: ${visibleLine(targetTitle(report))}` },
        `score ${scoreLabel(report)}${counts ? ` (${counts})` : ', no findings'}${note ? `. ${note}` : ''}`),
    );
  }
  for (const error of run.errors) {
    lines.push(command('error', { title: `svc could not scan ${visibleLine(error.input)}` }, visibleLine(error.message)));
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

function annotation(report: ScanReport, finding: Finding): string {
  const where = findingLocation(report, finding);
  const properties: Record<string, string | number | undefined> = {
    title: `svc ${finding.ruleId} (${finding.severity}, ${finding.category})`,
  };
  if (where) {
    properties.file = visibleLine(checkoutPath(report, where.file));
    properties.line = Math.max(1, where.line);
    if (where.column >= 1) properties.col = where.column;
    if (where.endLine !== undefined && where.endLine >= where.line) {
      properties.endLine = where.endLine;
      if (where.endColumn !== undefined && where.endColumn >= 1) properties.endColumn = where.endColumn;
    }
  }
  const tool = finding.tool ? `\n${visibleLine(`${finding.tool.kind} ${finding.tool.name} › ${finding.tool.field}`)}` : '';
  const evidence = finding.evidence ? `\n\n${visibleBlock(finding.evidence).split('\n').slice(0, 10).join('\n')}` : '';
  return command(COMMAND[finding.severity], properties, `${visibleBlock(finding.message)}${tool}${evidence}`);
}

/** `::name key=value,…::message`, escaped as @actions/core escapes them (toolkit command.ts). */
export function command(name: string, properties: Record<string, string | number | undefined>, message: string): string {
  const props = Object.entries(properties)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined && entry[1] !== '')
    .map(([key, value]) => `${key}=${escapeProperty(String(value))}`)
    .join(',');
  return `::${name}${props ? ` ${props}` : ''}::${escapeData(message)}`;
}

function escapeData(value: string): string {
  return value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(value: string): string {
  return escapeData(value).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
