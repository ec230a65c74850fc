/** What the CLI writes to; injected so commands never reach for process.* themselves. */
export interface CommandIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Where prompts read from (`svc login` asks for the code); absent: nothing can be asked. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Opens a URL in the user's browser (OAuth sign-in); tests pass one that plays the browser. Absent: the platform's opener. */
  openBrowser?: (url: string) => Promise<void>;
  /** Aborted on the first Ctrl-C. */
  signal: AbortSignal;
  /** The time a command judges by (a session's expiry); tests set it, so no outcome depends on the real date. */
  clock: () => Date;
  /**
   * The running command was given --json: its failure is a JSON object on stdout instead of a line on stderr. Set by
   * the program just before the command's action runs (program.ts).
   */
  json?: boolean;
}

/**
 * Colour only on a terminal, unless NO_COLOR (https://no-color.org) or --no-color says no, or FORCE_COLOR asks for
 * it on a pipe (CI logs that render ANSI).
 */
export function wantsColor(stream: { isTTY?: boolean }, flag: boolean, env: NodeJS.ProcessEnv): boolean {
  if (!flag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true;
}
