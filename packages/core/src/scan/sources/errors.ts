import { ArchiveError } from '../archive.js';

/**
 * A scan input that cannot be turned into files: malformed, not found, unreachable or refused. The engine records it
 * against the input and goes on with the other targets; transport layers map it to exit code 2 / a 4xx error.
 */
export class TargetError extends Error {
  constructor(
    readonly input: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${input}: ${reason}`, options);
    this.name = 'TargetError';
  }
}

/** An archive the unpacker refused makes the whole target unscannable: report it against the input like other failures. */
export function asTargetError(input: string, error: unknown): unknown {
  return error instanceof ArchiveError ? new TargetError(input, error.message, { cause: error }) : error;
}
