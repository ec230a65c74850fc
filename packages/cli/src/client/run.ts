import { EXIT } from '../exit-codes.js';
import type { CommandIo } from '../terminal.js';
import { ApiError, ServerUnreachableError } from './api-client.js';

/** A failure the user fixes (not signed in, no keychain, a bad flag): one line on stderr, exit 2, no stack. */
export class CliError extends Error {
  override readonly name = 'CliError';

  /** The `code` of the JSON error object `--json` prints. */
  constructor(
    message: string,
    readonly code = 'CLI_ERROR',
  ) {
    super(message);
  }
}

/**
 * The failure as `--json` prints it on stdout: the server's error object (`{error: {code, message, details?}}`, as
 * in its envelope, docs/domain.md) or the CLI's own in the same shape. Undefined for errors that are bugs.
 */
export function failureJson(error: unknown): { error: { code: string; message: string; details?: unknown } } | undefined {
  if (error instanceof ApiError) return { error: { code: error.code, message: error.message, ...(error.details === undefined ? {} : { details: error.details }) } };
  if (error instanceof ServerUnreachableError) return { error: { code: 'SERVER_UNREACHABLE', message: error.message } };
  if (error instanceof CliError) return { error: { code: error.code, message: error.message } };
  return undefined;
}

/**
 * The one line a failed account, team, billing or remote-scan command prints: the server's message and code, and
 * for a 429 the wait and the limit from `error.details` (spec 7.3). Undefined for errors that are bugs.
 */
export function failureLine(error: unknown): string | undefined {
  if (error instanceof ApiError) {
    const details = error.details ?? {};
    if (error.code === 'RATE_LIMITED' && typeof details['limit'] === 'number') {
      const wait = error.retryAfterSeconds ?? details['retry_after_seconds'];
      return `${error.message} (RATE_LIMITED: ${String(details['current'])} of ${details['limit']} in the ${String(details['window'])} window on the ${String(details['tier'])} tier; retry in ${String(wait)} s)`;
    }
    return `${error.message} (${error.code})`;
  }
  if (error instanceof ServerUnreachableError || error instanceof CliError) return error.message;
  return undefined;
}

/**
 * Runs a command that talks to a server and maps its failures to one line and exit 2 (DESIGN.md convention 7):
 * daemon errors are shown as their message and code, never as a stack trace. Anything else is a bug and is rethrown.
 */
export async function runCommand(io: CommandIo, action: () => Promise<number | void>): Promise<number> {
  try {
    return (await action()) ?? EXIT.clean;
  } catch (error) {
    const line = failureLine(error);
    if (line === undefined) throw error;
    // Printed once: as JSON on stdout for a script that asked for --json, else as the one line on stderr.
    if (io.json) io.stdout.write(`${JSON.stringify(failureJson(error))}\n`);
    else io.stderr.write(`svc: ${line}\n`);
    return EXIT.error;
  }
}
