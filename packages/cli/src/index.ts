import { EXIT } from './exit-codes.js';

// The one place that touches the process: signals, exit codes, broken pipes, crashes.

/** `--debug` anywhere on the command line (or SVC_DEBUG=1) shows the stack of an internal error. */
const debug = process.argv.slice(2).includes('--debug') || process.env.SVC_DEBUG === '1';

/**
 * Set once the engine has loaded: kills the scan's child processes (git runs in process groups of its own, which a
 * terminal's Ctrl-C does not reach) and removes its temp dirs, synchronously, the things an exit "now" still does.
 */
let cleanUpNow: (() => void) | undefined;

/**
 * An internal error (a bug, a native binding that does not load, a rejection nobody awaited) is exit 2 with one
 * line, never Node's default exit 1, which CI would read as "findings".
 */
function crash(error: unknown): never {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`svc: internal error: ${message.split('\n')[0]}\n`);
  if (debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  else process.stderr.write('svc: run again with --debug for the stack trace\n');
  cleanUpNow?.();
  process.exit(EXIT.error);
}
process.on('uncaughtException', crash);
process.on('unhandledRejection', crash);

const interrupt = new AbortController();
process.on('SIGINT', () => {
  if (interrupt.signal.aborted) {
    // A second Ctrl-C means "now": skip the wind-down, but leave no process or temp dir behind.
    cleanUpNow?.();
    process.stderr.write('svc: interrupted\n');
    process.exit(EXIT.interrupted);
  }
  interrupt.abort(new Error('interrupted'));
});

// `svc rules | head` closes the pipe early; that is not an error worth a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.clean);
  throw error;
});

try {
  // Loaded here, not imported above, so a dependency that fails to load (a missing native binding of the parser on
  // an unsupported platform) is reported like any other internal error.
  const { main } = await import('./program.js');
  const { killAllProcessGroupsSync, removeAllTempDirsSync } = await import('@svc/core');
  cleanUpNow = () => {
    killAllProcessGroupsSync();
    removeAllTempDirsSync();
  };
  const code = await main(process.argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    stdin: process.stdin,
    signal: interrupt.signal,
    clock: () => new Date(),
  });
  // An interrupted scan may still have work winding down (sockets, timers); its temp dirs are already gone.
  if (code === EXIT.interrupted) process.exit(code);
  process.exitCode = code;
} catch (error) {
  crash(error);
}
