import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describeWhere, discoverConfigs, formatRun, readBaseline, removeAllTempDirs, scanInputs, SEVERITIES, targetTitle, visibleLine } from '@svc/core';
import type { Lockfile, ReportFormat, ScanMode, ScanOptions, ScanRun, SuppressionOptions } from '@svc/core';
import { EXIT, type FailOn } from '../exit-codes.js';
import { exitCodeForRun } from '../run-exit-code.js';
import type { CommandIo } from '../terminal.js';
import { wantsColor } from '../terminal.js';
import { startProgress } from '../ui/progress.js';
import { scanLockfile } from './pin.js';
import { writeFileAtomic } from '../write-atomic.js';

export interface ScanCommandOptions {
  format: ReportFormat;
  output?: string;
  mode: ScanMode;
  failOn: FailOn;
  /** Partly scanned targets fail the run (exit 2), for CI gates that must not pass on code they did not see. */
  failOnPartial?: boolean;
  /** --fail-on was given explicitly (not its default): it then wins over a repository's svc.config.json. */
  failOnExplicit?: boolean;
  excludeRule?: string[];
  excludePath?: string[];
  /** A baseline file written by `svc baseline`: the findings it lists are suppressed until they expire. */
  baseline?: string;
  discover?: boolean;
  registry?: string;
  indexUrl?: string;
  color: boolean;
  quiet?: boolean;
  /** Targets scanned at once on worker threads; default one per core. */
  jobs?: number;
  /** The mcp.lock to compare with (`--lockfile`), none (`--no-lockfile`: false), or ./mcp.lock when present. */
  lockfile?: string | false;
}

/** How long an interrupted scan gets to wind down before its temp dirs are removed from under it. */
const ABORT_GRACE_MS = 1000;

function countLine(run: ScanRun): string {
  const findings = run.reports.flatMap((report) => report.findings);
  const detail = SEVERITIES.map((severity) => [severity, findings.filter((f) => f.severity === severity).length] as const)
    .filter(([, count]) => count > 0)
    .map(([severity, count]) => `${count} ${severity}`)
    .join(', ');
  const targets = `${run.reports.length} target${run.reports.length === 1 ? '' : 's'} scanned`;
  const failed = run.errors.length > 0 ? `, ${run.errors.length} failed` : '';
  return `${targets}${failed}, ${findings.length} finding${findings.length === 1 ? '' : 's'}${detail ? ` (${detail})` : ''}`;
}

async function resolveInputs(targets: string[], options: ScanCommandOptions, io: CommandIo): Promise<string[]> {
  if (!options.discover) return targets;
  const configs = await discoverConfigs();
  if (!options.quiet && configs.length > 0) {
    io.stderr.write(`svc: found ${configs.length} MCP client config${configs.length === 1 ? '' : 's'}:\n`);
    for (const config of configs) io.stderr.write(`  ${config.path} (${config.client})\n`);
  }
  return [...targets, ...configs.map((config) => config.path)];
}

export async function scanCommand(targets: string[], options: ScanCommandOptions, io: CommandIo): Promise<number> {
  const inputs = await resolveInputs(targets, options, io);
  if (inputs.length === 0) {
    io.stderr.write('svc: no MCP client configuration found on this machine; nothing to scan\n');
    return EXIT.clean;
  }

  // Fail before a long scan rather than after it when the report cannot be written.
  if (options.output !== undefined) {
    try {
      if ((await stat(options.output).catch(() => undefined))?.isDirectory()) throw new Error('it is a directory; give a file name');
      await access(dirname(resolve(options.output)), constants.W_OK);
    } catch (error) {
      io.stderr.write(`svc: cannot write report to ${options.output}: ${(error as Error).message}\n`);
      return EXIT.error;
    }
  }

  let suppressions: SuppressionOptions;
  let lock: Lockfile | undefined;
  try {
    suppressions = await suppressionOptions(options);
    lock = await scanLockfile(options.lockfile);
  } catch (error) {
    io.stderr.write(`svc: ${visibleLine((error as Error).message)}\n`);
    return EXIT.error;
  }

  const progress = await startProgress(inputs.length, options, io);
  const scan = scanInputs(inputs, {
    mode: options.mode,
    signal: io.signal,
    onEvent: (event) => progress.onEvent(event),
    source: {
      npmRegistry: options.registry,
      pypiIndex: options.indexUrl,
    },
    clock: io.clock,
    suppressions,
    ...(lock ? { lock } : {}),
    ...scanWorkers(options.jobs),
  });
  const aborted = new Promise<'aborted'>((resolveAbort) => {
    if (io.signal.aborted) resolveAbort('aborted');
    io.signal.addEventListener('abort', () => resolveAbort('aborted'), { once: true });
  });

  let run: ScanRun;
  try {
    const outcome = await Promise.race([scan, aborted]);
    if (outcome === 'aborted') throw io.signal.reason;
    run = outcome;
  } catch (error) {
    progress.stop();
    if (io.signal.aborted) {
      await Promise.race([scan.catch(() => undefined), delay(ABORT_GRACE_MS)]);
      await removeAllTempDirs();
      io.stderr.write('svc: interrupted\n');
      return EXIT.interrupted;
    }
    io.stderr.write(`svc: ${visibleLine((error as Error).message ?? String(error))}\n`);
    return EXIT.error;
  }
  progress.stop();
  return printRun(run, options, io);
}

/**
 * Several targets run on worker threads started from dist/scan-worker.js, built beside this bundle. From source
 * (vitest) there is no such file beside this module, and targets run one at a time on this thread; the built CLI's
 * tests (cli.test.ts) cover the pool.
 */
function scanWorkers(jobs: number | undefined): Pick<ScanOptions, 'workers'> {
  if (jobs === 1 || import.meta.url.endsWith('.ts')) return {};
  return { workers: { url: new URL('./scan-worker.js', import.meta.url), ...(jobs ? { size: jobs } : {}) } };
}

/** The command line's exclusions and baseline, as the engine takes them; a baseline that does not read is an error. */
export async function suppressionOptions(options: Pick<ScanCommandOptions, 'excludeRule' | 'excludePath' | 'baseline'>): Promise<SuppressionOptions> {
  return {
    ...(options.excludeRule?.length ? { excludeRules: options.excludeRule } : {}),
    ...(options.excludePath?.length ? { excludePaths: options.excludePath } : {}),
    ...(options.baseline !== undefined ? { baseline: { file: options.baseline, data: await readBaseline(options.baseline) } } : {}),
  };
}

export type PrintOptions = Pick<ScanCommandOptions, 'format' | 'output' | 'failOn' | 'failOnPartial' | 'failOnExplicit' | 'color' | 'quiet'>;

/**
 * Prints a finished run: failures on stderr, the report on stdout or atomically to --output; resolves to the exit
 * code. Shared with `svc scan --remote`, so a remote scan prints exactly what a local one does.
 */
export async function printRun(run: ScanRun, options: PrintOptions, io: CommandIo): Promise<number> {
  const toFile = options.output !== undefined;
  // --quiet text: nothing but the findings, one line each (no header, score or summary), for grep and scripts.
  const findingsOnly = options.quiet === true && options.format === 'text' && !toFile;
  // Each failure is printed once: the text report on stdout has an Errors section, anything else gets it on stderr.
  if (options.format !== 'text' || toFile || findingsOnly) {
    for (const failure of run.errors) io.stderr.write(`svc: ${visibleLine(failure.input)}: ${visibleLine(failure.message)}\n`);
  }

  const color = options.format === 'text' && !toFile && wantsColor(io.stdout, options.color, io.env);
  const report = findingsOnly ? findingLines(run) : formatRun(options.format, run, { color });
  if (toFile) {
    try {
      await writeFileAtomic(options.output!, report);
    } catch (error) {
      io.stderr.write(`svc: cannot write report to ${options.output}: ${(error as Error).message}\n`);
      return EXIT.error;
    }
    if (!options.quiet) io.stderr.write(`svc: wrote ${options.format} report to ${options.output}: ${countLine(run)}\n`);
  } else if (report !== '') {
    io.stdout.write(report.endsWith('\n') ? report : `${report}\n`);
  }
  return exitCodeForRun(run, options);
}

/** `<target>: SEVERITY rule-id message at file:line`, one line per finding; '' when there is none. */
function findingLines(run: ScanRun): string {
  return run.reports
    .flatMap((report) =>
      report.findings.map((finding) => {
        const where = describeWhere(finding);
        return `${visibleLine(targetTitle(report))}: ${finding.severity.toUpperCase()} ${finding.ruleId} ${visibleLine(finding.message)}${where ? ` at ${visibleLine(where)}` : ''}\n`;
      }),
    )
    .join('');
}
