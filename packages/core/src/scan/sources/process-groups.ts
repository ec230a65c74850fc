// Child processes of the sources (git and the helpers it starts: git-remote-http, ssh) run in a process group of
// their own, so one kill reaches the helpers too: killing git alone leaves git-remote-http running, reparented to
// PID 1. The live groups are tracked per thread (a daemon scan worker sees only its own), so an owner can kill them
// all at once (the CLI on a second Ctrl-C, the daemon's scan worker when the pool stops it) and can be told about
// each one (the pool keeps the ids, to kill the groups itself should the worker not answer).

import { spawn } from 'node:child_process';

export interface ProcessGroupEvent {
  /** The group's id: the pid of the child that leads it. */
  pgid: number;
  state: 'started' | 'exited';
}

export interface GroupRunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Aborting kills the whole group; the run rejects with an AbortError once the child is gone. */
  signal?: AbortSignal;
  /** Past this the whole group is killed and the run rejects with a GroupRunError (`timedOut`). */
  timeoutMs: number;
  maxBuffer: number;
}

export class GroupRunError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
    readonly timedOut = false,
  ) {
    super(message);
  }
}

/** Live groups and a promise each that settles once the group's leader is reaped and its output pipes are closed. */
const liveGroups = new Map<number, Promise<void>>();
const listeners = new Set<(event: ProcessGroupEvent) => void>();

/** Calls `listener` for every group started or ended from now on; returns the unsubscribe function. */
export function watchProcessGroups(listener: (event: ProcessGroupEvent) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** SIGKILL to every process of the group; one already gone is no error. */
export function killProcessGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // ESRCH: the group has ended.
  }
}

/** Kills every live group and resolves once each leader is reaped (a worker about to be terminated waits for this). */
export async function killAllProcessGroups(): Promise<void> {
  for (const pgid of liveGroups.keys()) killProcessGroup(pgid);
  await Promise.all(liveGroups.values());
}

/**
 * Groups that other threads of this process run (the CLI's pool workers report theirs): a worker dies with the process
 * on a second Ctrl-C without a chance to kill its groups, so this thread's exit path kills them too.
 */
const workerGroups = new Set<number>();

/** Records a group a worker thread started or ended (its ProcessGroupEvent, passed on by the thread that owns it). */
export function noteWorkerGroup(event: ProcessGroupEvent): void {
  if (event.state === 'started') workerGroups.add(event.pgid);
  else workerGroups.delete(event.pgid);
}

/** For exit paths where nothing asynchronous runs any more (a second Ctrl-C, a crash). */
export function killAllProcessGroupsSync(): void {
  for (const pgid of liveGroups.keys()) killProcessGroup(pgid);
  for (const pgid of workerGroups) killProcessGroup(pgid);
}

function emit(event: ProcessGroupEvent): void {
  for (const listener of listeners) listener(event);
}

/**
 * Runs `file` in a new process group and collects its output (execFile would not pass `detached` on). A timeout, an
 * abort or output over `maxBuffer` kills the whole group; the promise settles once the leader is reaped and every
 * member has closed the output pipes, so a settled run has left no process behind.
 */
export function runInProcessGroup(file: string, args: readonly string[], options: GroupRunOptions): Promise<{ stdout: string; stderr: string }> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    let failure: GroupRunError | undefined;
    // With `detached` the child calls setsid(): its pid is the id of its new group (and session).
    const child = spawn(file, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const pgid = child.pid;
    const kill = () => {
      if (pgid !== undefined) killProcessGroup(pgid);
    };
    const output = { stdout: [] as Buffer[], stderr: [] as Buffer[], bytes: 0 };
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      output.bytes += chunk.length;
      if (output.bytes > options.maxBuffer) {
        failure ??= new GroupRunError(`${file} wrote more than ${options.maxBuffer} bytes and was stopped`, '');
        kill();
      } else into.push(chunk);
    };
    child.stdout.on('data', collect(output.stdout));
    child.stderr.on('data', collect(output.stderr));
    const timer = setTimeout(() => {
      failure ??= new GroupRunError(`${file} did not finish within ${Math.round(options.timeoutMs / 1000)} s and was stopped`, '', true);
      kill();
    }, options.timeoutMs);
    let markExited!: () => void;
    const exited = new Promise<void>((done) => (markExited = done));
    const settle = (error: Error | undefined, code: number | null, killedBy: NodeJS.Signals | null) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', kill);
      if (pgid !== undefined && liveGroups.delete(pgid)) {
        markExited();
        emit({ pgid, state: 'exited' });
      }
      const stdout = Buffer.concat(output.stdout).toString('utf8');
      const stderr = Buffer.concat(output.stderr).toString('utf8');
      if (signal?.aborted) reject(abortError(signal));
      else if (failure) reject(new GroupRunError(failure.message, stderr, failure.timedOut));
      else if (error) reject(new GroupRunError(error.message, stderr));
      else if (code !== 0) reject(new GroupRunError(`Command failed: ${file} ${args.join(' ')} (${killedBy ?? `exit code ${code}`})`, stderr));
      else resolve({ stdout, stderr });
    };
    child.on('error', (error) => settle(error, null, null));
    child.on('close', (code, killedBy) => settle(undefined, code, killedBy));
    if (pgid !== undefined) {
      liveGroups.set(pgid, exited);
      emit({ pgid, state: 'started' });
    }
    signal?.addEventListener('abort', kill, { once: true });
  });
}

function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error('The operation was aborted', { cause: signal.reason }), { name: 'AbortError' });
}
