// Runs scans off the request path: a bounded number at once, each in a fresh worker thread with its own temp dir,
// a time limit and a heap cap, so one hostile or huge target costs one thread and never the daemon.

import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { DEFAULT_GIT_POLICY, type GitPolicy } from './git-destination.js';
import { loadWorkerCode, startWorker, type WorkerCode } from './worker-code.js';
import { killProcessGroup, type ScanEvent, type ScanMode, type ScanRun } from '@svc/core';

export interface ScanJob {
  scanId: string;
  input: string;
  mode: ScanMode;
  /** The submission's bearer token for a remote endpoint: held in memory only, never in the database or logs. */
  bearerToken?: string;
}

export interface ScanPoolOptions {
  /** URL of the built worker script (dist/scan-worker.js); read once, with the modules beside it, at construction. */
  workerUrl: URL;
  /** How many scans run at once (>= 1). */
  size: number;
  /** A scan running longer is terminated and fails with a clear message. */
  timeoutMs: number;
  /** SVC_SCAN_ROOTS, absolute, resolved: local folders a caller may name (path inputs, config files, file:// git URLs). Empty: all local inputs refused. */
  scanRoots: readonly string[];
  /** Where scans of git URLs may connect; default https to public addresses only. */
  git?: GitPolicy;
  /** SVC_REMOTE_ALLOW_PRIVATE: remote endpoint scans may connect to loopback and private addresses. */
  remoteAllowPrivate?: boolean;
  /** Parent dir for each job's private temp dir (default os.tmpdir()). */
  tempRoot?: string;
  /** Passed to core's SourceOptions: npm registry, PyPI index, tarball cache dir. */
  source?: { npmRegistry?: string; pypiIndex?: string; cacheDir?: string };
  /** Worker heap cap (resourceLimits.maxOldGenerationSizeMb), so one huge package cannot take the daemon down. */
  maxHeapMb?: number;
}

export type ScanOutcome =
  | { ok: true; run: ScanRun }
  | {
      ok: false;
      reason: 'failed' | 'timeout' | 'crashed' | 'refused';
      /** For the scan record: says what happened, never how (no stack, no paths). */
      message: string;
      /** For the operator's log only: the worker's own error, when there was one. */
      detail?: string;
    }
  | { ok: false; reason: 'aborted' };

export interface ScanHooks {
  onEvent?: (event: ScanEvent) => void;
  /** Called once the job leaves the queue and its worker starts. */
  onStart?: () => void;
  signal?: AbortSignal;
}

/** What the pool hands each worker (workerData). */
export interface WorkerInput {
  input: string;
  mode: ScanMode;
  scanRoots: readonly string[];
  git: GitPolicy;
  tempDir: string;
  source: { npmRegistry?: string; pypiIndex?: string; cacheDir?: string };
  remote: { allowPrivate: boolean; bearerToken?: string };
}

/**
 * What a worker posts back: events while it runs, then exactly one of result, refused or failed. Besides, each child
 * process group it starts and ends (`process`), and `stopped` once it has killed them all after the pool's `stop`.
 */
export type WorkerMessage =
  | { type: 'event'; event: ScanEvent }
  | { type: 'result'; run: ScanRun }
  | { type: 'refused'; message: string }
  | { type: 'failed'; message: string }
  | { type: 'process'; pgid: number; state: 'started' | 'exited' }
  | { type: 'stopped' };

/** What the pool posts to a worker: kill your child processes and say so (`stopped`); the thread ends after. */
export type PoolMessage = { type: 'stop' };

/** How long a worker told to stop may take to kill its children before it is terminated regardless. */
const STOP_GRACE_MS = 5_000;

/** Heap cap per scan when the operator sets none: far above what the inventory limits let a normal scan use. */
export const DEFAULT_SCAN_HEAP_MB = 1024;

const ABORTED: ScanOutcome = { ok: false, reason: 'aborted' };

/**
 * The built worker script: beside the bundle in dist/, and dist/scan-worker.js when this module runs from source
 * (vitest), which therefore needs `npm run build -w @svc/daemon` first.
 */
export function scanWorkerUrl(): URL {
  return import.meta.url.endsWith('.ts') ? new URL('../../dist/scan-worker.js', import.meta.url) : new URL('./scan-worker.js', import.meta.url);
}

interface Queued {
  job: ScanJob;
  hooks: ScanHooks;
  resolve: (outcome: ScanOutcome) => void;
  detach: () => void;
}

interface Running {
  /** Stops the job now; its run() resolves `aborted` once the worker is gone and the temp dir removed. */
  stop: () => void;
  done: Promise<void>;
}

/** Job folders are `svcd-job-<pid>-<random>`: the pid says whose they are after a crash. */
const JOB_DIR_PREFIX = 'svcd-job-';

/** Whether a process exists (EPERM: it does, owned by someone else). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class ScanPool {
  readonly #options: ScanPoolOptions;
  readonly #queue: Queued[] = [];
  readonly #running = new Set<Running>();
  /** The worker's code as it was when the daemon started (worker-code.ts says why). */
  readonly #code: WorkerCode | undefined;
  #closed = false;

  constructor(options: ScanPoolOptions) {
    if (!Number.isInteger(options.size) || options.size < 1) throw new RangeError(`scan pool size must be an integer >= 1, got ${options.size}`);
    if (!(options.timeoutMs > 0) || !Number.isFinite(options.timeoutMs)) throw new RangeError(`scan timeout must be a positive number of ms, got ${options.timeoutMs}`);
    this.#options = { ...options, scanRoots: [...options.scanRoots] };
    this.#code = loadWorkerCode(options.workerUrl);
  }

  get #tempRoot(): string {
    return this.#options.tempRoot ?? tmpdir();
  }

  /**
   * Removes the job folders a daemon killed with -9 left behind: each is named after the process that made it, and a
   * folder whose process is gone belongs to no live job. Folders of live processes (this one, another svcd sharing the
   * temp dir) are left alone. Returns the names removed, for the log.
   */
  async removeOrphanedJobDirs(): Promise<string[]> {
    const entries = await readdir(this.#tempRoot).catch(() => [] as string[]);
    const removed: string[] = [];
    for (const name of entries) {
      const pid = Number(new RegExp(`^${JOB_DIR_PREFIX}(\\d+)-`).exec(name)?.[1]);
      if (!Number.isInteger(pid) || pid <= 0 || processAlive(pid)) continue;
      await rm(path.join(this.#tempRoot, name), { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
      removed.push(name);
    }
    return removed;
  }

  /** Scans running now. */
  get active(): number {
    return this.#running.size;
  }

  /** Resolves when the job ends; waits for a free slot first (FIFO). Never rejects for a scan's own failure. */
  run(job: ScanJob, hooks: ScanHooks = {}): Promise<ScanOutcome> {
    // After close() nothing starts; `aborted` tells the caller to leave the scan queued for the next start.
    if (this.#closed || hooks.signal?.aborted) return Promise.resolve(ABORTED);
    return new Promise((resolve) => {
      const onAbort = () => {
        const index = this.#queue.indexOf(entry);
        if (index !== -1) {
          this.#queue.splice(index, 1);
          resolve(ABORTED);
        }
      };
      const entry: Queued = { job, hooks, resolve, detach: () => hooks.signal?.removeEventListener('abort', onAbort) };
      hooks.signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(entry);
      this.#pump();
    });
  }

  /** Terminates running workers (their run() resolves `aborted`), resolves queued jobs `aborted` and refuses new jobs. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const entry of this.#queue.splice(0)) {
      entry.detach();
      entry.resolve(ABORTED);
    }
    const running = [...this.#running];
    for (const slot of running) slot.stop();
    await Promise.all(running.map((slot) => slot.done));
  }

  #pump(): void {
    while (!this.#closed && this.#running.size < this.#options.size) {
      const next = this.#queue.shift();
      if (!next) return;
      next.detach();
      this.#start(next);
    }
  }

  #start({ job, hooks, resolve }: Queued): void {
    let stopRequested = false;
    let stopWorker: (() => void) | undefined;
    let finished!: () => void;
    const slot: Running = {
      stop: () => {
        stopRequested = true;
        stopWorker?.();
      },
      done: new Promise<void>((done) => (finished = done)),
    };
    this.#running.add(slot);
    void this.#execute(job, hooks, {
      stopped: () => stopRequested,
      onStoppable: (stop) => (stopWorker = stop),
    }).then((outcome) => {
      this.#running.delete(slot);
      finished();
      resolve(outcome);
      this.#pump();
    });
  }

  async #execute(
    job: ScanJob,
    hooks: ScanHooks,
    control: { stopped: () => boolean; onStoppable: (stop: () => void) => void },
  ): Promise<ScanOutcome> {
    let tempDir: string;
    try {
      tempDir = await mkdtemp(path.join(this.#tempRoot, `${JOB_DIR_PREFIX}${process.pid}-`));
    } catch (error) {
      return { ok: false, reason: 'failed', message: `cannot create the scan's temp dir (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
    }
    try {
      if (control.stopped() || hooks.signal?.aborted) return ABORTED;
      return await this.#runWorker(job, hooks, tempDir, control.onStoppable);
    } finally {
      // A terminated worker cannot clean up after itself, so the pool removes whatever the scan left.
      await rm(tempDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
    }
  }

  #runWorker(job: ScanJob, hooks: ScanHooks, tempDir: string, onStoppable: (stop: () => void) => void): Promise<ScanOutcome> {
    const heapMb = this.#options.maxHeapMb ?? DEFAULT_SCAN_HEAP_MB;
    const workerData: WorkerInput = {
      input: job.input,
      mode: job.mode,
      scanRoots: this.#options.scanRoots,
      git: this.#options.git ?? DEFAULT_GIT_POLICY,
      tempDir,
      source: { ...this.#options.source },
      remote: { allowPrivate: this.#options.remoteAllowPrivate === true, ...(job.bearerToken ? { bearerToken: job.bearerToken } : {}) },
    };
    return new Promise((resolve) => {
      let worker: Worker;
      try {
        if (!this.#code) throw new Error(`no scan worker at ${this.#options.workerUrl.href} when the daemon started`);
        worker = startWorker(this.#code, { workerData, resourceLimits: { maxOldGenerationSizeMb: heapMb } });
      } catch {
        resolve({ ok: false, reason: 'crashed', message: 'the scan worker could not be started' });
        return;
      }
      let outcome: ScanOutcome | undefined;
      /** The worker's live child process groups (git and its helpers), as it reports them. */
      const groups = new Set<number>();
      let graceTimer: NodeJS.Timeout | undefined;
      // The first verdict wins; the promise settles on 'exit', once the thread is really gone.
      const decide = (verdict: ScanOutcome) => {
        if (outcome) return;
        outcome = verdict;
        clearTimeout(timer);
        hooks.signal?.removeEventListener('abort', onAbort);
        // A finished scan's thread may still hold keep-alive sockets; nothing more is wanted from it.
        if (groups.size === 0) {
          void worker.terminate();
          return;
        }
        // Children outlive a terminated thread: terminate() runs no JS in the worker, and git's helpers would go on,
        // reparented to PID 1. So a worker with children is first told to stop: it kills their groups and waits until
        // its event loop has reaped them (no zombies), then says `stopped`. A worker too busy to answer (a runaway
        // loop) is terminated after the grace, and the pool kills the groups it was told about on 'exit' instead:
        // the pool knows every group because the worker reports each one as it starts it.
        worker.postMessage({ type: 'stop' } satisfies PoolMessage);
        graceTimer = setTimeout(() => void worker.terminate(), STOP_GRACE_MS);
      };
      const onAbort = () => decide(ABORTED);
      const seconds = Number((this.#options.timeoutMs / 1000).toFixed(3));
      const timer = setTimeout(
        () => decide({ ok: false, reason: 'timeout', message: `the scan was stopped after the time limit of ${seconds} s (SVC_SCAN_TIMEOUT_SECONDS)` }),
        this.#options.timeoutMs,
      );
      hooks.signal?.addEventListener('abort', onAbort, { once: true });
      onStoppable(onAbort);

      worker.on('message', (message: WorkerMessage) => {
        if (message.type === 'process') {
          if (message.state === 'started') groups.add(message.pgid);
          else groups.delete(message.pgid);
          return;
        }
        if (message.type === 'stopped') {
          groups.clear();
          void worker.terminate();
          return;
        }
        if (outcome) return;
        switch (message.type) {
          case 'event':
            try {
              hooks.onEvent?.(message.event);
            } catch (error) {
              // A throw here would be an uncaught exception in the daemon; the scan cannot be recorded, so stop it.
              decide({ ok: false, reason: 'failed', message: `recording a scan event failed: ${error instanceof Error ? error.message : String(error)}` });
            }
            return;
          case 'result':
            decide({ ok: true, run: message.run });
            return;
          case 'refused':
            decide({ ok: false, reason: 'refused', message: message.message });
            return;
          case 'failed':
            decide({ ok: false, reason: 'failed', message: message.message });
            return;
        }
      });
      worker.on('messageerror', () => decide({ ok: false, reason: 'crashed', message: 'the scan worker sent a message that could not be read' }));
      worker.on('error', (error: NodeJS.ErrnoException) => {
        decide(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? { ok: false, reason: 'crashed', message: `the scan ran out of memory (limit ${heapMb} MB) and was stopped` }
            : { ok: false, reason: 'crashed', message: 'the scan worker crashed', detail: error.stack ?? error.message },
        );
      });
      worker.on('exit', (code) => {
        clearTimeout(graceTimer);
        // Groups a worker did not kill itself (it crashed, or did not answer `stop`). Their leaders stay zombies until
        // the daemon exits, since only the gone thread's event loop would have reaped them, but nothing runs any more.
        for (const pgid of groups) killProcessGroup(pgid);
        groups.clear();
        decide({ ok: false, reason: 'crashed', message: `the scan worker exited (code ${code}) without a result` });
        resolve(outcome ?? ABORTED);
      });
      try {
        hooks.onStart?.();
      } catch (error) {
        decide({ ok: false, reason: 'failed', message: `starting the scan failed: ${error instanceof Error ? error.message : String(error)}` });
      }
    });
  }
}
