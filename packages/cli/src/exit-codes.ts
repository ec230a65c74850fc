import { SEVERITIES } from '@svc/core';
import type { ScanRun, Severity } from '@svc/core';

/** The exit codes `svc` promises scripts (docs/cli.md): see DESIGN.md convention 7. */
export const EXIT = {
  clean: 0,
  findings: 1,
  /** Usage error, or a target that could not be scanned, or any other runtime failure. */
  error: 2,
  /** 128 + SIGINT, as shells report a Ctrl-C. */
  interrupted: 130,
} as const;

export const FAIL_ON = ['critical', 'high', 'medium', 'low', 'never'] as const;
export type FailOn = (typeof FAIL_ON)[number];

export function meetsThreshold(severity: Severity, failOn: FailOn): boolean {
  if (failOn === 'never') return false;
  return SEVERITIES.indexOf(severity) <= SEVERITIES.indexOf(failOn);
}

/**
 * A failed target outranks findings: the run is incomplete, so "clean" or "only findings" would both be claims the
 * scan cannot back. Findings the deep-mode judge panel dismissed stay in the report but do not fail the build.
 */
export function exitCodeForRun(run: ScanRun, failOn: FailOn): number {
  if (run.errors.length > 0) return EXIT.error;
  const failing = run.reports.some((report) =>
    report.findings.some((finding) => finding.consensus !== 'dismiss' && meetsThreshold(finding.severity, failOn)),
  );
  return failing ? EXIT.findings : EXIT.clean;
}
