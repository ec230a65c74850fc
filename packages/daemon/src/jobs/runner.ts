import type { ScanEvent } from '@svc/core';
import type { Logger } from '../logger.js';
import { scanView } from '../scan-view.js';
import type { ScanRecord, ScanRepository } from '../store/repositories.js';
import type { ScanEventHub } from './hub.js';
import type { ScanJob, ScanOutcome } from './pool.js';
import { gradedReports, summarizeRun, ungradedReason } from './summary.js';

/** The part of ScanPool the runner uses; the pool decides how a scan is isolated and bounded. */
export interface ScanExecutor {
  run(job: ScanJob, hooks?: { onEvent?: (event: ScanEvent) => void; signal?: AbortSignal }): Promise<ScanOutcome>;
  close(): Promise<void>;
  /** Clears what a crashed predecessor left (the pool's job folders); called once at start. */
  removeOrphanedJobDirs?(): Promise<string[]>;
}

export interface ScanRunnerOptions {
  scans: ScanRepository;
  executor: ScanExecutor;
  hub: ScanEventHub;
  logger: Logger;
  clock: () => Date;
  /** Scans claimed from the queue at once; the pool's size, so a claimed scan never waits for a worker. */
  concurrency: number;
}

/** Why a scan submitted with a bearer token fails when the daemon restarted before running it. */
export const BEARER_TOKEN_LOST =
  'the scan was submitted with a bearer_token, which the daemon keeps in memory only, and the daemon restarted before the scan ran: submit it again with the token';

/** The stream's event kinds after the first `snapshot` (DESIGN.md "SSE"). */
export type StreamEventKind = 'progress' | 'finding' | 'completed' | 'failed' | 'cancelled';

/**
 * Moves scans from the SQLite queue through the executor: claims the oldest queued scan whenever a slot is free,
 * stores and publishes its stream events in order, and records the result. The queue lives in the database, so
 * scans queued or running when the daemon stops run again at the next start (`start` re-queues the running
 * ones). Handlers only insert and call `notify`; nothing here runs on a request's path.
 */
export class ScanRunner {
  private readonly credentials = new Map<string, string>();
  private readonly inFlight = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private stopping = false;
  private pumping = false;

  constructor(private readonly options: ScanRunnerOptions) {}

  async start(): Promise<void> {
    const orphans = (await this.options.executor.removeOrphanedJobDirs?.()) ?? [];
    if (orphans.length > 0) this.options.logger.info('removed job folders left by a daemon that was killed', { folders: orphans.length });
    const requeued = await this.options.scans.requeueInterrupted();
    if (requeued > 0) this.options.logger.info('re-queued scans interrupted by a restart', { scans: requeued });
    this.notify();
  }

  /** A scan was queued (or a slot came free): claim as many as there are free slots. */
  notify(): void {
    void this.pump();
  }

  /**
   * Keeps a submission's bearer token in memory until its scan runs (the scan record only says there was one). A scan
   * that outlives the process (re-queued at a restart) has lost it and fails with that reason: listed anonymously,
   * an endpoint may show less than its callers see, and grading that as the server would be a false verdict.
   */
  holdCredential(scanId: string, bearerToken: string): void {
    this.credentials.set(scanId, bearerToken);
  }

  releaseCredential(scanId: string): void {
    this.credentials.delete(scanId);
  }

  get running(): number {
    return this.inFlight.size;
  }

  /**
   * Stops claiming, lets running scans finish for up to `graceMs`, then aborts the rest, which go back to the
   * queue for the next start. Resolves when every scan has been recorded and the executor is closed.
   */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    const all = () => Promise.all([...this.inFlight.values()].map((job) => job.done));
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([all(), graceOver]);
    clearTimeout(timer);
    for (const job of this.inFlight.values()) job.abort.abort();
    await all();
    await this.options.executor.close();
  }

  /**
   * A scan the store has just marked `cancelled` (DELETE /api/v1/scan/{id}): a running one is stopped through its
   * AbortSignal (the pool kills the worker and removes its temp dir) and `execute` sends the final `cancelled` event
   * once the worker is gone; a queued one was never claimed, so the event is sent here.
   */
  async cancel(scanId: string): Promise<void> {
    const job = this.inFlight.get(scanId);
    if (job !== undefined) {
      job.abort.abort();
      return;
    }
    await this.emitFinal(scanId);
  }

  private async pump(): Promise<void> {
    // One pump at a time: two concurrent ones could both see a free slot and overfill the pool.
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (!this.stopping && this.inFlight.size < this.options.concurrency) {
        const scan = await this.options.scans.claimNext(this.options.clock());
        if (scan === undefined) break;
        const abort = new AbortController();
        const done = this.execute(scan, abort.signal)
          .catch((error: unknown) => {
            this.options.logger.error('scan runner error', { scan_id: scan.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
          })
          .finally(() => {
            this.inFlight.delete(scan.id);
            this.notify();
          });
        this.inFlight.set(scan.id, { abort, done });
      }
    } finally {
      this.pumping = false;
    }
  }

  private async execute(scan: ScanRecord, signal: AbortSignal): Promise<void> {
    const { scans, executor, logger, clock } = this.options;
    // Events are stored one after another in arrival order; the terminal event waits for all of them.
    let stored = Promise.resolve();
    const emit = (kind: StreamEventKind, data: unknown) => {
      stored = stored.then(() => this.store(scan.id, kind, data));
      return stored;
    };
    const started = performance.now();
    const bearerToken = this.credentials.get(scan.id);
    this.credentials.delete(scan.id);
    if (scan.bearerTokenGiven && bearerToken === undefined) {
      if (await scans.fail({ id: scan.id, message: BEARER_TOKEN_LOST, now: clock() })) {
        logger.info('scan failed', { scan_id: scan.id, reason: 'bearer token lost at restart' });
      }
      await this.emitFinal(scan.id);
      return;
    }
    const outcome = await executor.run(
      { scanId: scan.id, input: scan.input, mode: scan.mode, ...(bearerToken ? { bearerToken } : {}) },
      { signal, onEvent: (event) => void streamEvent(event, emit) },
    );
    await stored;

    // Cancelled meanwhile: whatever the worker ended with, the store's `cancelled` stands (complete and fail only
    // change a running scan).
    if (!outcome.ok && outcome.reason === 'aborted' && (await scans.findById(scan.id))?.status !== 'cancelled') {
      await scans.requeue(scan.id);
      logger.info('scan re-queued at shutdown', { scan_id: scan.id });
      return;
    }
    const now = clock();
    const ms = Math.round(performance.now() - started);
    if (!outcome.ok && outcome.reason === 'aborted') {
      logger.info('scan cancelled', { scan_id: scan.id, ms });
    } else if (outcome.ok && gradedReports(outcome.run).length > 0) {
      const { summary, findings } = summarizeRun(outcome.run, scan);
      if (await scans.complete({ id: scan.id, run: outcome.run, summary, findings, now })) {
        logger.info('scan completed', { scan_id: scan.id, ms, findings: findings.length });
      }
    } else {
      // A run whose every target failed (no such package, refused path) or could not be scanned (remote endpoints)
      // is a failed scan with the targets' reasons: a score of 100 for code nobody looked at would be a false claim.
      const message = outcome.ok ? ungradedReason(outcome.run) : outcome.message;
      if (await scans.fail({ id: scan.id, message: message || 'the scan produced no report', now })) {
        logger.info('scan failed', {
          scan_id: scan.id,
          ms,
          reason: outcome.ok ? 'no report' : outcome.reason,
          ...(!outcome.ok && outcome.detail !== undefined ? { detail: outcome.detail } : {}),
        });
      }
    }
    await this.emitFinal(scan.id);
  }

  /** The terminal stream event of a scan that has ended (completed, failed or cancelled); nothing while it runs. */
  private async emitFinal(scanId: string): Promise<void> {
    const final = await this.options.scans.findById(scanId);
    if (final !== undefined && (final.status === 'completed' || final.status === 'failed' || final.status === 'cancelled')) {
      // Anyone may follow a public scan's stream, so its stored events carry the public view.
      await this.store(scanId, final.status, { scan: scanView(final, { insider: final.visibility === 'private' }) });
    }
  }

  private async store(scanId: string, event: StreamEventKind, payload: unknown): Promise<void> {
    const data = JSON.stringify(payload);
    const seq = await this.options.scans.appendEvent({ scanId, event, data });
    this.options.hub.publish(scanId, { seq, event, data });
  }
}

/**
 * Engine events as stream events: stage changes and per-file progress become `progress`, findings `finding`.
 * Per-target reports and errors are not streamed one by one: they are in the terminal event's scan record and
 * in the result.
 */
function streamEvent(event: ScanEvent, emit: (kind: StreamEventKind, data: unknown) => Promise<void>): Promise<void> | undefined {
  switch (event.type) {
    case 'stage':
      return emit('progress', { target: event.target, stage: event.stage });
    case 'progress':
      return emit('progress', { target: event.target, stage: event.stage, done: event.done, total: event.total });
    case 'finding':
      return emit('finding', { target: event.target, finding: event.finding });
    default:
      return undefined;
  }
}
