import { EXIT } from './exit-codes.js';
import { main } from './program.js';

// The one place that touches the process: signals, exit codes, broken pipes.
const interrupt = new AbortController();
process.on('SIGINT', () => {
  if (interrupt.signal.aborted) {
    // A second Ctrl-C means "now": skip the wind-down.
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
  process.stderr.write(`svc: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = EXIT.error;
}
