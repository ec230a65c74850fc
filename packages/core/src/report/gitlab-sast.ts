import { createHash } from 'node:crypto';
import { getRule } from '../rules/index.js';
import type { Finding, ScanReport, Severity } from '../scan/model.js';
import { checkoutPath, clip, coverageNote, findingLocation, jsonWithVisibleEscapes, visible, visibleLine } from './common.js';
import type { ScanRun } from './schema.js';
import { SVC_INFORMATION_URI } from './sarif.js';

/** The version of GitLab's security report schemas (gitlab-org/security-products/security-report-schemas) written. */
export const GITLAB_SAST_SCHEMA_VERSION = '15.0.7';

const SEVERITY: Record<Severity, GitlabSeverity> = {
  critical: 'Critical',
  high: 'High',
  medium: 'Medium',
  low: 'Low',
  info: 'Info',
};

export type GitlabSeverity = 'Critical' | 'High' | 'Medium' | 'Low' | 'Info' | 'Unknown';

export interface GitlabIdentifier {
  type: string;
  name: string;
  value: string;
  url?: string;
}

export interface GitlabVulnerability {
  id: string;
  name: string;
  description: string;
  severity: GitlabSeverity;
  solution?: string;
  location: { file?: string; start_line?: number; end_line?: number };
  identifiers: GitlabIdentifier[];
}

export interface GitlabSastReport {
  version: string;
  scan: {
    analyzer: GitlabTool;
    scanner: GitlabTool;
    type: 'sast';
    status: 'success' | 'failure';
    start_time: string;
    end_time: string;
    messages: Array<{ level: 'info' | 'warn' | 'fatal'; value: string }>;
  };
  vulnerabilities: GitlabVulnerability[];
}

interface GitlabTool {
  id: string;
  name: string;
  version: string;
  vendor: { name: string };
  url?: string;
}

export interface GitlabSastOptions {
  /** When the run ended; the scan's end_time (required by the schema) when no target has a start time to go by. */
  finishedAt?: Date;
}

export function gitlabSastReporter(run: ScanRun, options: GitlabSastOptions = {}): string {
  return `${jsonWithVisibleEscapes(JSON.stringify(toGitlabSast(run, options), null, 2))}\n`;
}

/**
 * GitLab's SAST report (`artifacts: reports: sast:`), which feeds the merge-request security widget and the
 * vulnerability report. Findings the judge panel dismissed are left out, as in SARIF. A target that failed or was
 * not scanned makes the scan's status `failure` with a `fatal` message, so GitLab never shows such a run as clean;
 * a partly scanned target is a `warn` message with its reasons.
 */
export function toGitlabSast(run: ScanRun, options: GitlabSastOptions = {}): GitlabSastReport {
  const tool: GitlabTool = { id: 'svc', name: 'svc', version: run.generator.version, vendor: { name: 'svc' }, url: SVC_INFORMATION_URI };
  const messages: GitlabSastReport['scan']['messages'] = [];
  for (const report of run.reports) {
    const note = coverageNote(report);
    if (note) messages.push({ level: report.coverage.status === 'not-scanned' ? 'fatal' : 'warn', value: `${visibleLine(report.target.input)}: ${note}` });
  }
  for (const failure of run.errors) messages.push({ level: 'fatal', value: `${visibleLine(failure.input)}: ${visibleLine(failure.message)}` });

  const { start, end } = scanTimes(run, options.finishedAt);
  return {
    version: GITLAB_SAST_SCHEMA_VERSION,
    scan: {
      analyzer: tool,
      scanner: tool,
      type: 'sast',
      status: messages.some((message) => message.level === 'fatal') ? 'failure' : 'success',
      start_time: start,
      end_time: end,
      messages,
    },
    vulnerabilities: run.reports.flatMap((report) =>
      report.findings.filter((finding) => finding.consensus !== 'dismiss').map((finding) => vulnerability(report, finding)),
    ),
  };
}

function vulnerability(report: ScanReport, finding: Finding): GitlabVulnerability {
  const rule = getRule(finding.ruleId)?.meta;
  const where = findingLocation(report, finding);
  const tool = finding.tool ? `\n\nIn ${finding.tool.kind} \`${visibleLine(finding.tool.name)}\` › ${visibleLine(finding.tool.field)}.` : '';
  const evidence = finding.evidence ? `\n\nEvidence:\n\n${visible(finding.evidence)}` : '';
  const identifiers: GitlabIdentifier[] = [
    // The first identifier is the primary one GitLab tracks a vulnerability by across pipelines.
    { type: 'svc_rule_id', name: `svc ${finding.ruleId}`, value: finding.ruleId },
    ...(rule?.cwe ?? []).flatMap((cwe): GitlabIdentifier[] => {
      const number = /(\d+)/.exec(cwe)?.[1];
      return number ? [{ type: 'cwe', name: `CWE-${number}`, value: number, url: `https://cwe.mitre.org/data/definitions/${number}.html` }] : [];
    }),
  ];
  return {
    id: uuidFrom(`${report.target.input}\n${finding.id}`),
    name: clip(rule?.title ?? finding.ruleId, 255),
    description: clip(`${visible(finding.message)}${tool}${evidence}`, 1_048_576),
    severity: SEVERITY[finding.severity],
    ...(rule ? { solution: rule.remediation } : {}),
    location: where
      ? {
          file: visibleLine(checkoutPath(report, where.file)),
          start_line: Math.max(1, where.line),
          ...(where.endLine !== undefined && where.endLine >= where.line ? { end_line: where.endLine } : {}),
        }
      : {},
    identifiers,
  };
}

/**
 * The schema wants `YYYY-MM-DDTHH:MM:SS` (UTC, no fraction, no zone). Start: the earliest target's start; end: when
 * the run finished (or the latest target's start plus its duration).
 */
function scanTimes(run: ScanRun, finishedAt: Date | undefined): { start: string; end: string } {
  const starts = run.reports.map((report) => Date.parse(report.startedAt)).filter((time) => Number.isFinite(time));
  const ends = run.reports.map((report) => Date.parse(report.startedAt) + (report.timings.total ?? 0)).filter((time) => Number.isFinite(time));
  const end = finishedAt?.getTime() ?? (ends.length > 0 ? Math.max(...ends) : 0);
  const start = starts.length > 0 ? Math.min(...starts) : end;
  return { start: gitlabTime(start), end: gitlabTime(Math.max(start, end)) };
}

function gitlabTime(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 19);
}

/** A stable UUID (v4 layout) from a finding's identity, so the same finding keeps its id between pipelines. */
function uuidFrom(key: string): string {
  const hex = createHash('sha256').update(key).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

