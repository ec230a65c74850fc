import { SEVERITIES } from '@svc/core';
import type { ScanRun, Severity } from '@svc/core';
import { EXIT, type FailOn } from './exit-codes.js';

export function meetsThreshold(severity: Severity, failOn: FailOn): boolean {
  if (failOn === 'never') return false;
  return SEVERITIES.indexOf(severity) <= SEVERITIES.indexOf(failOn);
}

/**
 * A failed or not-scanned target outranks findings: the run is incomplete, so "clean" or "only findings" would both
 * be claims the scan cannot back. A partly scanned target counts the same way when the caller asks for it
 * (`--fail-on-partial`). Findings the deep-mode judge panel dismissed stay in the report but do not fail the build.
 */
export function exitCodeForRun(run: ScanRun, failOn: FailOn, failOnPartial = false): number {
  if (run.errors.length > 0) return EXIT.error;
  const incomplete = run.reports.some(
    ({ coverage }) => coverage.status === 'not-scanned' || (failOnPartial && coverage.status === 'partial'),
  );
  if (incomplete) return EXIT.error;
  const failing = run.reports.some((report) =>
    report.findings.some((finding) => finding.consensus !== 'dismiss' && meetsThreshold(finding.severity, failOn)),
  );
  return failing ? EXIT.findings : EXIT.clean;
}
