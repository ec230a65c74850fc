// Many targets at once (a client config with many servers, a list of packages): long-lived worker threads, one per
// core by default, each scanning one target at a time with a heap cap. A worker loads the engine once and keeps it
// warm for every target it is given; the caller sees the same events and gets the same reports as from scanTarget.

import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ScanReport, ScanTarget } from './model.js';
import { killProcessGroup, noteWorkerGroup } from './sources/process-groups.js';
import { createTempDir, removeTempDir } from './sources/temp.js';
import type { ScanOptions } from './engine.js';
import type { PoolRequest, PoolResponse } from './target-worker.js';

export interface WorkerPoolOptions {
  /** The built worker entry: a module that calls serveTargetScans() (dist/scan-worker.js beside the CLI's bundle). */
  url: URL;
  /** Threads at most; default one per core (os.availableParallelism()). */
  size?: number;
  /** Old-generation heap cap of each worker, MiB (resourceLimits.maxOldGenerationSizeMb). */
  heapMb?: number;
}

/**
 * Above what a scan needs (the largest package of the benchmark corpus, a 6 MB bundle among 1 MB of other code, fits
 * in 192 MiB) and low enough that peak memory is the caps', not the biggest bundle's: two workers and the calling
 * thread stay under 700 MB on the corpus. A target that outgrows it is scanned again on the calling thread, which has
 * no cap, so an unusually large package costs time, never its report.
 */
export const DEFAULT_WORKER_HEAP_MB = 256;

const MIN_WORKER_HEAP_MB = 16;

export function defaultPoolSize(): number {
  return availableParallelism();
}

interface Job {
  target: ScanTarget;
  label: string;
  resolve: (report: ScanReport) => void;
  reject: (error: unknown) => void;
}

interface Slot {
  worker: Worker;
  job?: Job & { id: number };
  /** Process groups the worker runs (git): killed here when the worker is gone before it could. */
  groups: Set<number>;
}

/** Kills the process groups a worker left (it was terminated or died before it could kill them itself). */
function killGroupsOf(slot: Slot): void {
  for (const pgid of slot.groups) {
    killProcessGroup(pgid);
    noteWorkerGroup({ pgid, state: 'exited' });
  }
  slot.groups.clear();
}

/** A worker that died under a job (heap cap, a crash): the job is redone on the calling thread. */
class WorkerLost extends Error {}

export class TargetPool {
  readonly #options: Required<Pick<WorkerPoolOptions, 'size' | 'heapMb'>> & WorkerPoolOptions;
  readonly #scan: ScanOptions;
  readonly #runInProcess: (target: ScanTarget) => Promise<ScanReport>;
  readonly #labelOf: (target: ScanTarget) => string;
  readonly #onAbort = () => this.#abortAll();
  readonly #slots = new Set<Slot>();
  readonly #queue: Job[] = [];
  #nextId = 1;
  /** A folder holding every worker's temp dirs, registered on this thread: removed whatever becomes of a worker. */
  #tempRoot: Promise<string> | undefined;

  constructor(
    options: WorkerPoolOptions,
    scan: ScanOptions,
    runInProcess: (target: ScanTarget) => Promise<ScanReport>,
    labelOf: (target: ScanTarget) => string,
  ) {
    const size = options.size ?? defaultPoolSize();
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`worker pool size must be an integer >= 1, got ${size}`);
    const heapMb = options.heapMb ?? DEFAULT_WORKER_HEAP_MB;
    // Below a few MiB V8 cannot even set up the thread's heap, and on Node 22 and 24 that failure aborts the whole
    // process instead of ending the worker with ERR_WORKER_OUT_OF_MEMORY.
    if (!(heapMb >= MIN_WORKER_HEAP_MB)) throw new RangeError(`worker heap cap must be at least ${MIN_WORKER_HEAP_MB} MiB, got ${heapMb}`);
    this.#options = { ...options, size, heapMb };
    this.#scan = scan;
    this.#runInProcess = runInProcess;
    this.#labelOf = labelOf;
    scan.signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** Scans one target on the first free worker; resolves to its report, rejects as scanTarget would. */
  async scan(target: ScanTarget): Promise<ScanReport> {
    this.#scan.signal?.throwIfAborted();
    try {
      return await new Promise<ScanReport>((resolve, reject) => {
        this.#queue.push({ target, label: this.#labelOf(target), resolve, reject });
        this.#dispatch();
      });
    } catch (error) {
      if (!(error instanceof WorkerLost)) throw error;
      return this.#runInProcess(target);
    }
  }

  /** Stops every worker and removes whatever temp dirs they left. */
  async close(): Promise<void> {
    this.#scan.signal?.removeEventListener('abort', this.#onAbort);
    const slots = [...this.#slots];
    this.#slots.clear();
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
    for (const slot of slots) killGroupsOf(slot);
    const tempRoot = await this.#tempRoot?.catch(() => undefined);
    if (tempRoot) await removeTempDir(tempRoot);
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      let slot = [...this.#slots].find((candidate) => !candidate.job);
      if (!slot) {
        if (this.#slots.size >= this.#options.size) return;
        slot = this.#startWorker();
      }
      const job = this.#queue.shift()!;
      void this.#run(slot, job);
    }
  }

  async #run(slot: Slot, job: Job): Promise<void> {
    const id = this.#nextId++;
    slot.job = { ...job, id };
    let tempRoot: string;
    try {
      this.#tempRoot ??= createTempDir(this.#scan.source?.tempRoot);
      tempRoot = await this.#tempRoot;
    } catch (error) {
      this.#finish(slot, () => job.reject(error));
      return;
    }
    const { signal: _signal, ...source } = this.#scan.source ?? {};
    const request: PoolRequest = {
      type: 'scan',
      id,
      target: job.target,
      mode: this.#scan.mode ?? 'fast',
      source: { ...source, tempRoot },
      ...(this.#scan.suppressions ? { suppressions: this.#scan.suppressions } : {}),
      ...(this.#scan.lock ? { lock: this.#scan.lock } : {}),
      ...(this.#scan.clock ? { now: this.#scan.clock().toISOString() } : {}),
    };
    slot.worker.postMessage(request);
  }

  #startWorker(): Slot {
    const worker = new Worker(this.#options.url, { resourceLimits: { maxOldGenerationSizeMb: this.#options.heapMb } });
    const slot: Slot = { worker, groups: new Set() };
    this.#slots.add(slot);
    worker.on('message', (response: PoolResponse) => {
      if (response.type === 'process') {
        noteWorkerGroup(response.event);
        if (response.event.state === 'started') slot.groups.add(response.event.pgid);
        else slot.groups.delete(response.event.pgid);
        return;
      }
      const job = slot.job;
      if (!job || response.id !== job.id) return;
      switch (response.type) {
        case 'event':
          this.#scan.onEvent?.(response.event);
          return;
        case 'report':
          this.#scan.onEvent?.({ type: 'done', target: job.label, report: response.report });
          return this.#finish(slot, () => job.resolve(response.report));
        case 'failed':
          return this.#finish(slot, () => job.reject(new Error(response.message)));
        case 'aborted':
          return this.#finish(slot, () => job.reject(this.#scan.signal?.reason ?? new DOMException('The scan was aborted', 'AbortError')));
      }
    });
    // A worker that dies (its heap cap reached, a native crash) takes only its own job with it: that job is redone on
    // the calling thread and a fresh worker takes the queue.
    const lost = () => {
      killGroupsOf(slot);
      if (!this.#slots.delete(slot)) return;
      const job = slot.job;
      slot.job = undefined;
      job?.reject(new WorkerLost(`worker for ${job.label} stopped`));
      this.#dispatch();
    };
    worker.on('error', lost);
    worker.on('exit', lost);
    return slot;
  }

  #finish(slot: Slot, settle: () => void): void {
    slot.job = undefined;
    settle();
    this.#dispatch();
  }

  #abortAll(): void {
    const reason = this.#scan.signal?.reason;
    for (const job of this.#queue.splice(0)) job.reject(reason);
    for (const slot of this.#slots) if (slot.job) slot.worker.postMessage({ type: 'abort', id: slot.job.id } satisfies PoolRequest);
  }
}
