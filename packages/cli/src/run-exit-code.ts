import { failsRun } from '@svc/core';
import type { ScanRun } from '@svc/core';
import { EXIT, type FailOn } from './exit-codes.js';

/**
 * A failed or not-scanned target outranks findings: the run is incomplete, so "clean" or "only findings" would both
 * be claims the scan cannot back. A partly scanned target counts the same way when the caller asks for it
 * (`--fail-on-partial`). Findings the deep-mode judge panel dismissed stay in the report but do not fail the build.
 */
export interface ExitPolicy {
  failOn: FailOn;
  /** `--fail-on-partial`: a partly scanned target fails the run. */
  failOnPartial?: boolean;
  /** `--fail-on` was given on the command line: it then wins over a repository's svc.config.json `failOn`. */
  failOnExplicit?: boolean;
}

export function exitCodeForRun(run: ScanRun, { failOn, failOnPartial = false, failOnExplicit = true }: ExitPolicy): number {
  if (run.errors.length > 0) return EXIT.error;
  const incomplete = run.reports.some(
    ({ coverage }) => coverage.status === 'not-scanned' || (failOnPartial && coverage.status === 'partial'),
  );
  if (incomplete) return EXIT.error;
  // A repository's svc.config.json may set its own threshold; an explicit --fail-on wins over it.
  const failing = run.reports.some((report) =>
    report.findings.some((finding) => failsRun(report, finding, { failOn, failOnExplicit })),
  );
  return failing ? EXIT.findings : EXIT.clean;
}
