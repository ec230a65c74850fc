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
