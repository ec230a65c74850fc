// The worker side of the target pool (target-pool.ts): a long-lived worker thread that scans one target at a time
// for the thread that started it. It loads the engine once and keeps it warm (compiled code, the language models of
// the description analyser) for every target it is given.

import { parentPort } from 'node:worker_threads';
import { describeError, scanTarget } from './engine.js';
import type { ScanEvent } from './events.js';
import type { ScanMode, ScanReport, ScanTarget } from './model.js';
import type { Lockfile } from './lockfile.js';
import type { SuppressionOptions } from './suppressions.js';
import type { SourceOptions } from './sources/options.js';
import { watchProcessGroups, type ProcessGroupEvent } from './sources/process-groups.js';

const PROGRESS_INTERVAL_MS = 50;

/** What the pool sends: a target to scan, or the abort of the one running. */
export type PoolRequest =
  | {
      type: 'scan';
      id: number;
      target: ScanTarget;
      mode: ScanMode;
      /** Functions do not cross threads: the source options without their signal, the clock as the time it read. */
      source: Omit<SourceOptions, 'signal'>;
      suppressions?: SuppressionOptions;
      lock?: Lockfile;
      now?: string;
    }
  | { type: 'abort'; id: number };

/** What the worker answers: the scan's events as they happen, then exactly one outcome per scan. */
export type PoolResponse =
  | { type: 'event'; id: number; event: ScanEvent }
  | { type: 'report'; id: number; report: ScanReport }
  | { type: 'failed'; id: number; message: string }
  | { type: 'aborted'; id: number }
  /** A process group this worker's sources started or ended (git and its helpers), for the pool to kill if need be. */
  | { type: 'process'; event: ProcessGroupEvent };

/** Serves scan requests on this worker's parent port until the pool terminates the thread. */
export function serveTargetScans(): void {
  const port = parentPort;
  if (!port) throw new Error('serveTargetScans runs in a worker thread started by the target pool');
  const running = new Map<number, AbortController>();
  watchProcessGroups((event) => port.postMessage({ type: 'process', event } satisfies PoolResponse));

  port.on('message', (request: PoolRequest) => {
    if (request.type === 'abort') {
      running.get(request.id)?.abort(new DOMException('The scan was aborted', 'AbortError'));
      return;
    }
    const controller = new AbortController();
    running.set(request.id, controller);
    const { id, target, mode, source, suppressions, lock, now } = request;
    let lastProgress = 0;
    void (async () => {
      let response: PoolResponse;
      try {
        const report = await scanTarget(target, {
          mode,
          signal: controller.signal,
          source,
          suppressions,
          lock,
          ...(now ? { clock: () => new Date(now) } : {}),
          onEvent: (event) => {
            // The report travels once, as the outcome; the pool emits the `done` event itself.
            if (event.type === 'done') return;
            // A progress line per file is thousands of messages for a display that redraws a few times a second:
            // the first, then one per PROGRESS_INTERVAL_MS, and the last of each stage go through.
            if (event.type === 'progress' && event.done !== 1 && event.done !== event.total) {
              const at = performance.now();
              if (at - lastProgress < PROGRESS_INTERVAL_MS) return;
              lastProgress = at;
            }
            port.postMessage({ type: 'event', id, event } satisfies PoolResponse);
          },
        });
        response = { type: 'report', id, report };
      } catch (error) {
        response = controller.signal.aborted ? { type: 'aborted', id } : { type: 'failed', id, message: describeError(error) };
      } finally {
        running.delete(id);
      }
      port.postMessage(response);
    })();
  });
}
