// One scan in its own worker thread (started by ScanPool, one thread per job): a crash, an out-of-memory or a runaway
// loop here ends this thread only. Events go to the parent as they happen (progress throttled), then the ScanRun.

import { parentPort, workerData } from 'node:worker_threads';
import {
  expandTarget,
  killAllProcessGroups,
  REPORT_SCHEMA_VERSION,
  scanTarget,
  SVC_VERSION,
  targetLabel,
  TargetError,
  type ScanEvent,
  type ScanOptions,
  type ScanRun,
  type ScanTarget,
  watchProcessGroups,
} from '@svc/core';
import { checkGitDestination, GIT_FETCH_FAILED } from './git-destination.js';
import { checkExpandedTarget, checkScanInput } from './input-policy.js';
import type { PoolMessage, WorkerInput, WorkerMessage } from './pool.js';

// Progress for one target and stage at most this often; the last one of a stage always follows.
const PROGRESS_INTERVAL_MS = 100;

const port = parentPort;
if (!port) throw new Error('scan-worker.js runs only as a worker thread of svcd');
const job = workerData as WorkerInput;

function post(message: WorkerMessage): void {
  try {
    port?.postMessage(message);
  } catch {
    // Scan data is plain JSON; should anything unclonable slip in, a JSON round trip strips it.
    port?.postMessage(JSON.parse(JSON.stringify(message)) as WorkerMessage);
  }
}

// The pool learns of every child process group (git and its helpers) as it starts, so it can kill them should this
// thread be terminated without answering; told to stop, the thread kills them itself and waits until they are reaped.
watchProcessGroups((event) => post({ type: 'process', ...event }));
port.on('message', (message: PoolMessage) => {
  if (message.type === 'stop') void killAllProcessGroups().then(() => post({ type: 'stopped' }));
});
// Listening must not keep a finished scan's thread alive.
port.unref();

interface Pending {
  event: ScanEvent;
  timer: NodeJS.Timeout;
}

/** Passes every event at once except progress, which is held back per target+stage and sent at most every 100 ms. */
function createThrottle(send: (event: ScanEvent) => void): { emit: (event: ScanEvent) => void; flush: () => void } {
  const lastSent = new Map<string, number>();
  const pending = new Map<string, Pending>();
  const flushKey = (key: string) => {
    const held = pending.get(key);
    if (!held) return;
    clearTimeout(held.timer);
    pending.delete(key);
    lastSent.set(key, Date.now());
    send(held.event);
  };
  const flushTarget = (target: string) => {
    for (const key of [...pending.keys()]) if (key.startsWith(`${target}\0`)) flushKey(key);
  };
  return {
    emit(event) {
      if (event.type !== 'progress') {
        // Whatever comes next (a new stage, a finding, done) must not overtake the stage's last progress.
        flushTarget(event.target);
        send(event);
        return;
      }
      const key = `${event.target}\0${event.stage}`;
      const wait = (lastSent.get(key) ?? 0) + PROGRESS_INTERVAL_MS - Date.now();
      const held = pending.get(key);
      if (wait <= 0 && !held) {
        lastSent.set(key, Date.now());
        send(event);
        return;
      }
      if (held) {
        held.event = event;
        return;
      }
      pending.set(key, { event, timer: setTimeout(() => flushKey(key), Math.max(wait, 0)) });
    },
    flush() {
      for (const key of [...pending.keys()]) flushKey(key);
    },
  };
}

function describeError(error: unknown): string {
  if (error instanceof TargetError) return error.reason;
  if (error instanceof Error) return error.message;
  return String(error);
}

async function main(): Promise<void> {
  const checked = checkScanInput(job.input, job.scanRoots);
  if (!checked.ok) {
    post({ type: 'refused', message: checked.message });
    return;
  }
  const throttle = createThrottle((event) => post({ type: 'event', event }));
  const options: ScanOptions = {
    mode: job.mode,
    onEvent: throttle.emit,
    // Remote endpoints: private addresses only when the operator allows them; the submission's bearer token goes to
    // the endpoint it named and nowhere else (a config's servers get none), and no `${env:…}` header is expanded.
    source: { ...job.source, tempRoot: job.tempDir, remote: { allowPrivate: job.remote.allowPrivate } },
  };
  const run: ScanRun = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generator: { name: 'svc', version: SVC_VERSION },
    reports: [],
    errors: [],
  };
  const fail = (input: string, message: string) => {
    run.errors.push({ input, message });
    throttle.emit({ type: 'error', target: input, message });
  };

  // core's scanInputs would parse the input again with the daemon's cwd and could not refuse a config's targets
  // outside the roots, so this is its loop with both checks in it.
  let targets: ScanTarget[] = [];
  try {
    targets = await expandTarget(checked.target);
  } catch (error) {
    fail(job.input, describeError(error));
  }
  for (const target of targets) {
    const label = targetLabel(target);
    const allowed = checkExpandedTarget(target, job.scanRoots);
    if (!allowed.ok) {
      fail(label, allowed.message);
      continue;
    }
    // Git URLs, a config's included: resolved, checked and pinned before git runs (git-destination.ts).
    let scanOptions = options;
    if (allowed.target.kind === 'remote' && !allowed.target.origin && job.remote.bearerToken) {
      scanOptions = { ...options, source: { ...options.source, remote: { allowPrivate: job.remote.allowPrivate, headers: { Authorization: `Bearer ${job.remote.bearerToken}` } } } };
    }
    if (allowed.target.kind === 'git') {
      const destination = await checkGitDestination(allowed.target.url, job.git);
      if (!destination.ok) {
        fail(label, destination.message);
        continue;
      }
      scanOptions = { ...options, source: { ...options.source, git: destination.git } };
    }
    try {
      run.reports.push(await scanTarget(allowed.target, scanOptions));
    } catch (error) {
      if (allowed.target.kind === 'git' && error instanceof TargetError) {
        // git's own message names hosts, ports and services of the daemon's network: the operator's log gets it.
        console.error(`svcd: git fetch of ${label} failed: ${error.reason}`);
        fail(label, GIT_FETCH_FAILED);
      } else fail(label, describeError(error));
    }
  }
  throttle.flush();
  post({ type: 'result', run });
}

main().catch((error: unknown) => {
  post({ type: 'failed', message: describeError(error) });
});
