import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describeError, describeWhere, discoverConfigs, formatRun, parseHeader, readBaseline, removeAllTempDirs, scanInputs, scanTarget, SEVERITIES, targetLabel, targetTitle, visibleLine } from '@svc/core';
import type { Lockfile, ReportFormat, ScanMode, ScanOptions, ScanRun, SuppressionOptions } from '@svc/core';
import { EXIT, type FailOn } from '../exit-codes.js';
import { exitCodeForRun } from '../run-exit-code.js';
import type { CommandIo } from '../terminal.js';
import { wantsColor } from '../terminal.js';
import { EndpointOAuth } from '../oauth/endpoints.js';
import { startProgress } from '../ui/progress.js';
import { scanLockfile } from './pin.js';
import { writeFileAtomic } from '../write-atomic.js';

/** `--report <format>=<file>`: the same run rendered once more, in another format, to its own file. */
export interface ReportFile {
  format: ReportFormat;
  file: string;
}

export interface ScanCommandOptions {
  format: ReportFormat;
  output?: string;
  /** More reports of the same scan (repeatable `--report sarif=svc.sarif`), so CI scans once for every format. */
  report?: ReportFile[];
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
  /** `-H "Name: value"` as given, for the remote endpoints named on the command line. */
  header?: string[];
  /** The environment variable holding a bearer token for those endpoints. */
  bearerTokenEnv?: string;
  /** The mcp.lock to compare with (`--lockfile`), none (`--no-lockfile`: false), or ./mcp.lock when present. */
  lockfile?: string | false;
  /** OAuth sign-in for those endpoints: true signs in even without a terminal, false never uses OAuth; default: on a terminal. */
  oauth?: boolean;
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

  const unwritable = await checkReportFiles(options);
  if (unwritable !== undefined) {
    io.stderr.write(`svc: ${unwritable}\n`);
    return EXIT.error;
  }

  // What the scan reads before it starts (baseline, lock, headers, stored sign-ins): any of it broken is exit 2, now.
  let suppressions: SuppressionOptions;
  let lock: Lockfile | undefined;
  let headers: Record<string, string>;
  let oauth: EndpointOAuth | undefined;
  let endpointHeaders: Record<string, Record<string, string>>;
  try {
    suppressions = await suppressionOptions(options);
    lock = await scanLockfile(options.lockfile);
    headers = remoteHeaders(options, io.env);
    oauth = await EndpointOAuth.open(inputs, headers, options.oauth, io);
    endpointHeaders = (await oauth?.storedHeaders()) ?? {};
  } catch (error) {
    io.stderr.write(`svc: ${visibleLine((error as Error).message)}\n`);
    return EXIT.error;
  }

  const scanOptions = (perEndpoint: Record<string, Record<string, string>>): ScanOptions => ({
    mode: options.mode,
    signal: io.signal,
    source: {
      npmRegistry: options.registry,
      pypiIndex: options.indexUrl,
      // A config's url servers expand `${env:VAR}` in their own headers from this environment.
      remote: { headers, endpointHeaders: perEndpoint, env: { ...io.env } },
    },
    clock: io.clock,
    suppressions,
    ...(lock ? { lock } : {}),
  });
  const progress = await startProgress(inputs.length, options, io);
  const scan = scanInputs(inputs, { ...scanOptions(endpointHeaders), onEvent: (event) => progress.onEvent(event), ...scanWorkers(options.jobs) });
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
  // Sign-in needs the terminal to itself, so it comes after the progress view; each endpoint is then scanned again.
  if (oauth) {
    run = await oauth.signInWhereAsked(run, async (target, signedIn) => {
      try {
        return { report: await scanTarget(target, scanOptions({ ...endpointHeaders, ...signedIn })) };
      } catch (error) {
        return { failure: { input: targetLabel(target), message: describeError(error) } };
      }
    });
    if (io.signal.aborted) {
      io.stderr.write('svc: interrupted\n');
      return EXIT.interrupted;
    }
  }
  return printRun(run, options, io);
}

/**
 * Every file the run will write (--output and each --report), checked before the scan so that a long scan does not
 * end in "cannot write"; the message says which file and why, or undefined when all can be written.
 */
export async function checkReportFiles(options: Pick<ScanCommandOptions, 'output' | 'report'>): Promise<string | undefined> {
  const files = [...(options.output !== undefined ? [options.output] : []), ...(options.report ?? []).map((entry) => entry.file)];
  const seen = new Set<string>();
  for (const file of files) {
    const absolute = resolve(file);
    if (seen.has(absolute)) return `${file} is given as the output of two reports; give each report its own file`;
    seen.add(absolute);
    try {
      if ((await stat(file).catch(() => undefined))?.isDirectory()) throw new Error('it is a directory; give a file name');
      await access(dirname(absolute), constants.W_OK);
    } catch (error) {
      return `cannot write report to ${file}: ${(error as Error).message}`;
    }
  }
  return undefined;
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

/**
 * The headers for remote endpoints named on the command line: each `--header`, then `--bearer-token-env`'s token.
 * Errors never repeat a value: a header given without its colon may still be a token.
 */
export function remoteHeaders(options: Pick<ScanCommandOptions, 'header' | 'bearerTokenEnv'>, env: NodeJS.ProcessEnv): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const text of options.header ?? []) {
    const [name, value] = parseHeader(text);
    headers[name] = value;
  }
  if (options.bearerTokenEnv !== undefined) {
    const token = env[options.bearerTokenEnv]?.trim();
    if (!token) throw new Error(`--bearer-token-env: the environment variable ${options.bearerTokenEnv} is not set or empty`);
    headers['Authorization'] = `Bearer ${token}`;
  }
  return headers;
}

/** The command line's exclusions and baseline, as the engine takes them; a baseline that does not read is an error. */
export async function suppressionOptions(options: Pick<ScanCommandOptions, 'excludeRule' | 'excludePath' | 'baseline'>): Promise<SuppressionOptions> {
  return {
    ...(options.excludeRule?.length ? { excludeRules: options.excludeRule } : {}),
    ...(options.excludePath?.length ? { excludePaths: options.excludePath } : {}),
    ...(options.baseline !== undefined ? { baseline: { file: options.baseline, data: await readBaseline(options.baseline) } } : {}),
  };
}

export type PrintOptions = Pick<ScanCommandOptions, 'format' | 'output' | 'report' | 'failOn' | 'failOnPartial' | 'failOnExplicit' | 'color' | 'quiet'>;

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
  // JUnit marks failures by the exit code's own policy; GitLab's report needs the time the run ended.
  const reporterOptions = { failOn: options.failOn, failOnExplicit: options.failOnExplicit, failOnPartial: options.failOnPartial, finishedAt: io.clock() };
  const report = findingsOnly ? findingLines(run) : formatRun(options.format, run, { ...reporterOptions, color });
  let written = true;
  if (toFile) {
    written = await writeReport(options.output!, options.format, report, io);
    if (written && !options.quiet) io.stderr.write(`svc: wrote ${options.format} report to ${options.output}: ${countLine(run)}\n`);
  } else if (report !== '') {
    io.stdout.write(report.endsWith('\n') ? report : `${report}\n`);
  }
  for (const { format, file } of options.report ?? []) {
    const extra = await writeReport(file, format, formatRun(format, run, { ...reporterOptions, color: false }), io);
    if (extra && !options.quiet) io.stderr.write(`svc: wrote ${format} report to ${file}\n`);
    written &&= extra;
  }
  // A report that could not be written is a failed run whatever the findings: CI would gate on a file that is not there.
  return written ? exitCodeForRun(run, options) : EXIT.error;
}

async function writeReport(file: string, format: ReportFormat, report: string, io: CommandIo): Promise<boolean> {
  try {
    await writeFileAtomic(file, report);
    return true;
  } catch (error) {
    io.stderr.write(`svc: cannot write ${format} report to ${file}: ${(error as Error).message}\n`);
    return false;
  }
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
