import { createBaseline, scanInputs, visibleLine } from '@svc/core';
import type { ScanMode } from '@svc/core';
import { EXIT } from '../exit-codes.js';
import type { CommandIo } from '../terminal.js';
import { writeFileAtomic } from '../write-atomic.js';

export interface BaselineCommandOptions {
  reason: string;
  expires?: string;
  output: string;
  mode: ScanMode;
}

/**
 * `svc baseline`: scans the targets and writes every finding (by its stable id) as accepted, with the reason and an
 * optional expiry, so `svc scan --baseline` reports only what is new. A target that fails leaves the file unwritten:
 * a baseline missing a target's findings would let them through as "new" later, or hide nothing it claims to.
 */
export async function baselineCommand(targets: string[], options: BaselineCommandOptions, io: CommandIo): Promise<number> {
  if (options.reason.trim() === '') {
    io.stderr.write('svc: --reason must say why these findings are accepted\n');
    return EXIT.error;
  }
  const run = await scanInputs(targets, { mode: options.mode, signal: io.signal, clock: io.clock });
  for (const failure of run.errors) io.stderr.write(`svc: ${visibleLine(failure.input)}: ${visibleLine(failure.message)}\n`);
  const notScanned = run.reports.filter((report) => report.coverage.status === 'not-scanned');
  for (const report of notScanned) io.stderr.write(`svc: ${visibleLine(report.target.input)}: not scanned: ${visibleLine(report.coverage.reasons.join('; '))}\n`);
  if (run.errors.length > 0 || notScanned.length > 0) {
    io.stderr.write(`svc: ${options.output} not written: every target must be scanned for a baseline\n`);
    return EXIT.error;
  }
  const findings = run.reports.flatMap((report) => report.findings);
  const baseline = createBaseline(findings, options.reason.trim(), io.clock(), options.expires);
  try {
    await writeFileAtomic(options.output, `${JSON.stringify(baseline, null, 2)}\n`);
  } catch (error) {
    io.stderr.write(`svc: cannot write ${options.output}: ${(error as Error).message}\n`);
    return EXIT.error;
  }
  io.stderr.write(`svc: wrote ${findings.length} finding${findings.length === 1 ? '' : 's'} to ${options.output}${options.expires ? ` (until ${options.expires})` : ''}\n`);
  return EXIT.clean;
}
