import { SEVERITIES, type ScanRun, type ScanTarget, type Severity } from '@svc/core';
import type { ScanSummary } from '../store/repositories.js';

export interface RunSummary {
  summary: ScanSummary;
  findings: Array<{ ruleId: string; category: string; severity: Severity }>;
}

/** What an input names before it is scanned: the registry columns of a queued package scan. */
export function describeTarget(target: ScanTarget): { source: string; package: string | null; version: string | null } {
  switch (target.kind) {
    case 'npm':
      return { source: 'npm', package: target.name, version: null };
    case 'pypi':
      return { source: 'pypi', package: target.name, version: target.version ?? null };
    case 'git':
      return { source: 'git', package: target.url, version: target.ref ?? null };
    default:
      return { source: target.kind, package: null, version: null };
  }
}

/**
 * The columns a completed scan keeps beside its result. A config expands to several servers: then the score
 * and grade are the worst of them and the counts add up, so a list never shows a config as cleaner than its
 * worst server. Servers that were not scanned (remote endpoints) have no score and take no part in it; a run with
 * no scanned server at all is a failed scan (see `gradedReports`). Name and version come from the report when there
 * is exactly one.
 */
export function summarizeRun(run: ScanRun, queued: { source: string | null; package: string | null; version: string | null }): RunSummary {
  const counts = Object.fromEntries(SEVERITIES.map((severity) => [severity, 0])) as Record<Severity, number>;
  const findings: RunSummary['findings'] = [];
  let score = 100;
  let grade = 'A';
  let toolsCount = 0;
  for (const report of run.reports) {
    for (const finding of report.findings) {
      counts[finding.severity] += 1;
      findings.push({ ruleId: finding.ruleId, category: finding.category, severity: finding.severity });
    }
    if (report.score !== null && report.score < score) score = report.score;
    if (report.grade !== null && report.grade > grade) grade = report.grade;
    toolsCount += report.tools.length;
  }
  const only = run.reports.length === 1 ? run.reports[0] : undefined;
  return {
    summary: {
      source: queued.source,
      package: only !== undefined && queued.source !== 'config' ? (queued.package ?? only.target.name) : queued.package,
      version: only?.target.version ?? queued.version,
      score,
      grade,
      counts,
      findingsCount: findings.length,
      toolsCount,
    },
    findings,
  };
}

/** The reports that have a score: a run without any (every server remote, say) has nothing to show as a result. */
export function gradedReports(run: ScanRun): ScanRun['reports'] {
  return run.reports.filter((report) => report.coverage.status !== 'not-scanned');
}

/** Why a run produced no graded report: the targets that failed and those that could not be scanned. */
export function ungradedReason(run: ScanRun): string {
  return [
    ...run.errors.map((error) => `${error.input}: ${error.message}`),
    ...run.reports.map((report) => `${report.target.input}: not scanned: ${report.coverage.reasons.join('; ')}`),
  ].join('; ');
}
