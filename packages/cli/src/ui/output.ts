import type { CommandIo } from '../terminal.js';

export { textTable } from '@svc/core';

// How the account, team, billing and rules commands print: one table layout and one JSON layout for all of them.

/** `--json`: the data, pretty-printed, on stdout. */
export function printJson(io: CommandIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
