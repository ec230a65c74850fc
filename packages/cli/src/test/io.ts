import type { PassThrough } from 'node:stream';
import { Writable } from 'node:stream';
import { TEST_CLOCK_START } from '../../../daemon/src/test/clock.js';
import { main } from '../program.js';
import type { CommandIo } from '../terminal.js';

// A CommandIo that records what a command writes, for tests that run commands in-process.

export interface CapturedIo extends CommandIo {
  out(): string;
  err(): string;
}

function sink(): Writable & { text: string } {
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      stream.text += chunk.toString();
      callback();
    },
  }) as Writable & { text: string };
  stream.text = '';
  return stream;
}

/** `clock` defaults to the test servers' start, so a session a test server issued is valid to the command. */
export function captureIo(env: NodeJS.ProcessEnv, options: { stdin?: PassThrough; signal?: AbortSignal; clock?: () => Date } = {}): CapturedIo {
  const stdout = sink();
  const stderr = sink();
  return {
    stdout,
    stderr,
    env,
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    signal: options.signal ?? new AbortController().signal,
    clock: options.clock ?? (() => TEST_CLOCK_START),
    out: () => stdout.text,
    err: () => stderr.text,
  };
}

/** Runs `svc <args>` in-process through the real program (parsing, registration, exit-code mapping). */
export async function runSvc(args: string[], io: CapturedIo): Promise<{ code: number; stdout: string; stderr: string }> {
  const code = await main(['node', 'svc', ...args], io);
  return { code, stdout: io.out(), stderr: io.err() };
}
