import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { runPanel, defaultJudges, type Judge } from '../judges/panel.js';
import { RULES } from '../rules/index.js';
import { loadTagger } from '../rules/description/read.js';
import type { Rule } from '../rules/create-rule.js';
import { REPORT_SCHEMA_VERSION, type ScanRun, type TargetFailure } from '../report/schema.js';
import { SVC_VERSION } from '../version.js';
import { ANALYZERS } from './analysis/index.js';
import type { ScanEventListener, Stage } from './events.js';
import { assessCoverage, notScanned } from './coverage.js';
import { applySuppressions, CONFIG_FILE, readRepoConfig, type SuppressionOptions } from './suppressions.js';
import { inventoryWorkspace } from './inventory.js';
import type {
  CodeFact,
  ExtractionDiagnostic,
  Finding,
  ParseProblem,
  ScanMode,
  ScanReport,
  ScanTarget,
  SourceFile,
  TaintFlow,
  ToolDefinition,
  Workspace,
} from './model.js';
import { modelTexts } from './model-texts.js';
import { scopeCode } from './scope.js';
import { withCodeContext } from './code-context.js';
import { foldRootCauses } from './facets.js';
import { launchedDependencies } from './launcher.js';
import { scoreFindings } from './score.js';
import { isLiveEndpoint, scanRemote } from './remote/scan.js';
import { runRules, sortFindings } from './run-rules.js';
import { defaultPoolSize, TargetPool, type WorkerPoolOptions } from './target-pool.js';
import { pinnedEntry, type Lockfile } from './lockfile.js';
import { largestFirst } from './target-size.js';
import { expandTarget, fetchTarget, parseTarget, TargetError, type SourceOptions } from './target.js';

export interface ScanOptions {
  mode?: ScanMode;
  signal?: AbortSignal;
  onEvent?: ScanEventListener;
  source?: SourceOptions;
  /** Judges for deep mode; defaults to the built-in panel plus the LLM judge when SVC_LLM_URL/SVC_LLM_MODEL are set. */
  judges?: Judge[];
  /** Rules to run; defaults to the whole catalog (filtered by mode). */
  rules?: readonly Rule[];
  /** The time a report records as its start, and baseline expiry is judged against; the real time unless a test sets it. */
  clock?: () => Date;
  /** Command-line exclusions and baseline, applied to every target (scan/suppressions.ts). */
  suppressions?: SuppressionOptions;
  /** Scan several targets at once on worker threads (scan/target-pool.ts); without it, one at a time on this thread. */
  workers?: WorkerPoolOptions;
  /** A parsed mcp.lock (scan/lockfile.ts): a target it names is compared with what was pinned (rule tool-drift). */
  lock?: Lockfile;
}

/**
 * Scans every input (expanding MCP client configs into their servers). A target that fails is recorded in
 * `errors` and the others are still scanned; the run never throws for a bad target, only for an abort.
 *
 * With `workers` and more than one target, targets run on a pool of worker threads, largest first; reports and
 * errors still come out in input order (a config's servers in config order, the packages their launchers start after
 * them), exactly as a one-at-a-time scan orders them.
 */
export async function scanInputs(inputs: readonly string[], options: ScanOptions = {}): Promise<ScanRun> {
  const outcomes: Array<{ order: number[]; report?: ScanReport; failure?: TargetFailure }> = [];
  const fail = (order: number[], input: string, error: unknown) => {
    const failure: TargetFailure = { input, message: describeError(error) };
    outcomes.push({ order, failure });
    options.onEvent?.({ type: 'error', target: input, message: failure.message });
  };

  const jobs: TargetJob[] = [];
  for (const [index, input] of inputs.entries()) {
    options.signal?.throwIfAborted();
    try {
      const targets = await expandTarget(parseTarget(input));
      targets.forEach((target, position) => jobs.push({ order: [index, 0, position], target }));
    } catch (error) {
      if (isAbort(error, options.signal)) throw error;
      fail([index, -1], input, error);
    }
  }

  const runner = targetRunner(options, jobs.length);
  try {
    const scanJobs = async (wave: TargetJob[]) => {
      const settled = await Promise.allSettled(
        largestFirst(wave, runner.parallel).map(async (job) => {
          try {
            const report = await runner.scan(job.target);
            if (job.launchedBy) report.target.launchedBy = job.launchedBy;
            outcomes.push({ order: job.order, report });
          } catch (error) {
            if (isAbort(error, options.signal)) throw error;
            fail(job.order, targetLabel(job.target), error);
          }
        }),
      );
      // Every job has settled (temp dirs removed) before an abort is passed on.
      const aborted = settled.find((result) => result.status === 'rejected');
      if (aborted) throw aborted.reason;
    };
    await scanJobs(jobs);
    // A launcher's dependencies follow it, found in report order so the first launcher to name one is its launcher.
    const launched = new Set<string>();
    const dependencies: TargetJob[] = [];
    for (const job of jobs) {
      const report = outcomes.find((outcome) => outcome.order === job.order)?.report;
      if (!report) continue;
      launchedTargets(job.target, report, launched).forEach((target, position) =>
        dependencies.push({ order: [job.order[0]!, 1, job.order[2]!, position], target, launchedBy: launcherName(report) }),
      );
    }
    await scanJobs(dependencies);
  } finally {
    await runner.close();
  }

  outcomes.sort((a, b) => compareOrder(a.order, b.order));
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generator: { name: 'svc', version: SVC_VERSION },
    reports: outcomes.flatMap((outcome) => (outcome.report ? [outcome.report] : [])),
    errors: outcomes.flatMap((outcome) => (outcome.failure ? [outcome.failure] : [])),
  };
}

/** A target to scan and where its report goes: [input, wave, position in the input, position among dependencies]. */
interface TargetJob {
  order: number[];
  target: ScanTarget;
  launchedBy?: string;
}

function compareOrder(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if ((a[i] ?? -2) !== (b[i] ?? -2)) return (a[i] ?? -2) - (b[i] ?? -2);
  return 0;
}

interface TargetRunner {
  parallel: boolean;
  scan(target: ScanTarget): Promise<ScanReport>;
  close(): Promise<void>;
}

/**
 * One target, or options a thread cannot carry (rule or judge objects), scan on this thread one at a time;
 * otherwise a pool of worker threads takes them.
 */
function targetRunner(options: ScanOptions, targets: number): TargetRunner {
  const inProcess = (target: ScanTarget) => scanTarget(target, options);
  const size = Math.min(options.workers?.size ?? defaultPoolSize(), targets);
  if (!options.workers || size < 2 || options.rules || options.judges) {
    let chain: Promise<unknown> = Promise.resolve();
    return {
      parallel: false,
      scan: (target) => {
        const next = chain.then(() => inProcess(target));
        chain = next.catch(() => undefined);
        return next;
      },
      close: async () => {},
    };
  }
  const pool = new TargetPool({ ...options.workers, size }, options, inProcess, targetLabel);
  return { parallel: true, scan: (target) => pool.scan(target), close: () => pool.close() };
}

const launcherName = (report: ScanReport) => (report.target.version ? `${report.target.name}@${report.target.version}` : report.target.name);

/**
 * The dependencies a launcher's report names, as targets: a package fetched from the registry gets them from the
 * registry too (pinned version or range); a folder only from its own `node_modules`, since a folder scan stays offline
 * (the launcher's coverage names what was not installed). Each is scanned once per run, and a dependency is never
 * followed further (a launcher of a launcher is reported, not chased).
 */
function launchedTargets(target: ScanTarget, report: ScanReport, seen: Set<string>): ScanTarget[] {
  if (report.target.launchedBy !== undefined || (target.kind !== 'npm' && target.kind !== 'directory')) return [];
  const targets: ScanTarget[] = [];
  for (const { name, spec } of report.launches ?? []) {
    if (target.kind === 'directory') {
      const installed = path.join(target.path, 'node_modules', name);
      if (seen.has(installed) || !existsSync(path.join(installed, 'package.json'))) continue;
      seen.add(installed);
      targets.push({ kind: 'directory', input: installed, path: installed });
    } else if (!seen.has(`${name}@${spec}`)) {
      seen.add(`${name}@${spec}`);
      targets.push({ kind: 'npm', input: `npm:${name}@${spec}`, name, spec });
    }
  }
  return targets;
}

/**
 * Fetches one target, scans it and always disposes of its temp dir. A remote endpoint is listed live
 * (remote/scan.ts); container images and unresolvable commands are reported, not scanned.
 */
export async function scanTarget(target: ScanTarget, options: ScanOptions = {}): Promise<ScanReport> {
  const label = targetLabel(target);
  if (target.kind === 'remote' && isLiveEndpoint(target)) return scanRemote(target, options);
  if (target.kind === 'remote') {
    const report = notScannedReport(target, options.mode ?? 'fast', options.clock?.() ?? new Date());
    options.onEvent?.({ type: 'done', target: label, report });
    return report;
  }
  options.onEvent?.({ type: 'stage', target: label, stage: 'fetch' });
  const started = performance.now();
  const workspace = await fetchTarget(target, { ...options.source, signal: options.signal });
  try {
    return await scanWorkspace(workspace, options, { fetch: performance.now() - started });
  } finally {
    await workspace.dispose();
  }
}

/** The pipeline over files already on disk: inventory → analyzers → rules → (deep) judges → score. */
export async function scanWorkspace(
  workspace: Workspace,
  options: ScanOptions = {},
  timings: Record<string, number> = {},
): Promise<ScanReport> {
  const mode = options.mode ?? 'fast';
  // An unknown mode would run no rule at all and report a clean scan: refuse it instead.
  if (mode !== 'fast' && mode !== 'deep') throw new TypeError(`unknown scan mode: ${String(mode)} (expected fast or deep)`);
  const label = targetLabel(workspace.target);
  const startedAt = (options.clock?.() ?? new Date()).toISOString();
  const emit = options.onEvent ?? (() => {});
  const totalStart = performance.now();
  const time = async <T>(stage: Stage, work: () => Promise<T> | T): Promise<T> => {
    emit({ type: 'stage', target: label, stage });
    const start = performance.now();
    try {
      return await work();
    } finally {
      timings[stage] = round((timings[stage] ?? 0) + performance.now() - start);
    }
  };

  // The user's own code (a folder, a git checkout) may carry svc.config.json and inline svc-ignore comments; a package
  // fetched from a registry may not silence itself. A broken config fails the target before any work is done.
  const ownCode = workspace.target.kind === 'directory' || workspace.target.kind === 'git';
  const rules = options.rules ?? RULES;
  const repoConfig = ownCode ? await readRepoConfig(workspace.root, new Set(RULES.map((rule) => rule.id))) : undefined;

  loadTagger();
  const inventory = await time('inventory', () => inventoryWorkspace(workspace.root, undefined, options.signal));
  const problems: ParseProblem[] = [...inventory.problems];
  for (const problem of inventory.problems) emit({ type: 'problem', target: label, ...problem });

  // Declarations, browser build output and CommonJS twins are listed in the report, never silently dropped.
  const scope = scopeCode(inventory.files, inventory.manifests);

  const tools: ToolDefinition[] = [];
  const flows: TaintFlow[] = [];
  const facts: CodeFact[] = [];
  const diagnostics: ExtractionDiagnostic[] = [];
  let parsedFiles = 0;
  const texts = new Map(inventory.files.flatMap((file) => (file.text === undefined ? [] : [[file.path, file.text] as const])));
  await time('analyze', async () => {
    const analyzable = inventory.files.filter((file) => (file.role === 'source' || file.role === 'bundle') && !scope.skipped.has(file.path));
    const total = analyzable.length;
    let done = 0;
    for (const analyzer of ANALYZERS) {
      options.signal?.throwIfAborted();
      const files = analyzable.filter((file) => file.language && analyzer.languages.includes(file.language));
      if (files.length === 0) continue;
      const result = await analyzer.analyze(files, {
        mode,
        signal: options.signal,
        readText: (path) => texts.get(path),
        onFile: (file) => emit({ type: 'progress', target: label, stage: 'analyze', done: ++done, total, file: file.path }),
      });
      tools.push(...result.tools);
      flows.push(...result.flows);
      facts.push(...withoutBundledFacts(result.facts, files));
      diagnostics.push(...(result.diagnostics ?? []));
      for (const problem of result.problems) {
        problems.push(problem);
        emit({ type: 'problem', target: label, ...problem });
      }
      parsedFiles += result.parsedFiles;
    }
  });

  let findings = await time('rules', () =>
    runRules(rules, {
      mode,
      workspace,
      files: inventory.files,
      manifests: inventory.manifests,
      tools,
      modelTexts: modelTexts(tools),
      flows,
      facts,
      now: new Date(startedAt),
      ...pinnedEntry(options.lock, workspace),
    }, problems, options.signal),
  );

  options.signal?.throwIfAborted();
  const silenced = applySuppressions({
    findings,
    files: inventory.files,
    ownCode,
    config: repoConfig,
    options: options.suppressions ?? {},
    now: options.clock?.() ?? new Date(),
  });
  findings = silenced.findings;

  let dismissed: Finding[] | undefined;
  if (mode === 'deep') {
    dismissed = [];
    if (findings.length > 0) {
      const panel = await time('judges', () =>
        runPanel(
          findings,
          { tools, flows, facts, files: inventory.files, manifests: inventory.manifests },
          { judges: options.judges ?? defaultJudges(), signal: options.signal },
        ),
      );
      findings = panel.findings;
      dismissed = panel.dismissed;
    }
  }
  const rootCauses = new Map(rules.flatMap((rule) => (rule.meta.rootCause ? [[rule.id, rule.meta.rootCause] as const] : [])));
  const present = (list: readonly Finding[]) => withCodeContext(foldRootCauses(list, (ruleId) => rootCauses.get(ruleId)), (file) => texts.get(file));
  findings = present(findings);
  if (dismissed) dismissed = present(dismissed);
  for (const finding of findings) emit({ type: 'finding', target: label, finding });

  const { score, grade, counts } = await time('score', () => scoreFindings(findings));
  const launches = launchedDependencies(inventory.files, inventory.manifests, tools);
  const coverage = assessCoverage({ problems, tools, manifests: inventory.manifests, diagnostics, launches });
  timings.total = round(performance.now() - totalStart + (timings.fetch ?? 0));

  const report: ScanReport = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generator: { name: 'svc', version: SVC_VERSION },
    target: {
      kind: workspace.target.kind,
      input: workspace.target.input,
      name: workspace.name,
      ...(workspace.version ? { version: workspace.version } : {}),
      contentHash: inventory.contentHash,
      ...('origin' in workspace.target && workspace.target.origin ? { origin: workspace.target.origin } : {}),
    },
    mode,
    startedAt,
    timings,
    stats: {
      files: inventory.files.length,
      bytes: inventory.bytes,
      parsedFiles,
      skippedFiles: inventory.skippedFiles,
    },
    tools: tools.map(({ handlerId: _handlerId, ...tool }) => tool),
    findings: sortFindings(findings),
    ...(dismissed ? { dismissed: sortFindings(dismissed) } : {}),
    ...(launches.length > 0 ? { launches } : {}),
    score,
    grade,
    counts,
    problems,
    coverage,
    ...(silenced.suppressed.length > 0 ? { suppressed: sortFindings(silenced.suppressed) } : {}),
    ...(repoConfig ? { repoConfig: { file: CONFIG_FILE, ...(repoConfig.failOn ? { failOn: repoConfig.failOn } : {}) } } : {}),
    scopedOut: scope.scopedOut,
  };
  emit({ type: 'done', target: label, report });
  return report;
}


/** Code facts found in minified bundles belong, most likely, to inlined third-party code: not reported. */
function withoutBundledFacts(facts: readonly CodeFact[], files: readonly SourceFile[]): CodeFact[] {
  const bundles = new Set(files.filter((file) => file.role === 'bundle').map((file) => file.path));
  return bundles.size === 0 ? [...facts] : facts.filter((fact) => !bundles.has(fact.location.file));
}

/**
 * The report of a target whose code is not available to a static scan: a remote endpoint, or a server a config runs
 * from a container image or an unresolvable command (config.ts marks those `remote` with a `docker:`/`command:` url).
 * It has no score: nothing was looked at.
 */
function notScannedReport(target: Extract<ScanTarget, { kind: 'remote' }>, mode: ScanMode, startedAt: Date): ScanReport {
  const { counts } = scoreFindings([]);
  const reason = target.url.startsWith('docker:')
    ? `container image ${target.url.slice('docker:'.length)}: its code is not in a package svc can fetch, so it was not scanned`
    : target.url.startsWith('command:')
      ? `the server runs \`${target.url.slice('command:'.length)}\`, which does not name a package or folder svc can scan`
      : `${target.url} is not an http(s) endpoint svc can connect to`;
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generator: { name: 'svc', version: SVC_VERSION },
    target: {
      kind: target.kind,
      input: target.input,
      name: target.url,
      contentHash: createHash('sha256').update('').digest('hex'),
      ...('origin' in target && target.origin ? { origin: target.origin } : {}),
    },
    mode,
    startedAt: startedAt.toISOString(),
    timings: { total: 0 },
    stats: { files: 0, bytes: 0, parsedFiles: 0, skippedFiles: 0 },
    tools: [],
    findings: [],
    score: null,
    grade: null,
    counts,
    problems: [],
    coverage: notScanned(reason),
  };
}

/** How a target is named in progress lines and errors: the input, or the server name for config-expanded targets. */
export function targetLabel(target: ScanTarget): string {
  if ('origin' in target && target.origin) return `${target.origin.serverName} (${target.input})`;
  return target.input;
}

export function describeError(error: unknown): string {
  if (error instanceof TargetError) return error.reason;
  if (error instanceof Error) return error.message;
  return String(error);
}

function isAbort(error: unknown, signal?: AbortSignal): boolean {
  return signal?.aborted === true || (error instanceof Error && error.name === 'AbortError');
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
