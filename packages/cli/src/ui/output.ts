import type { CommandIo } from '../terminal.js';

// How the account, team, billing and rules commands print: one table layout and one JSON layout for all of them.

/** Columns padded to their widest cell, two spaces apart; the last column is not padded, so no line ends in spaces. */
export function textTable(rows: readonly (readonly string[])[]): string {
  const widths = (rows[0] ?? []).map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  ').trimEnd()).join('\n');
}

/** `--json`: the data, pretty-printed, on stdout. */
export function printJson(io: CommandIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
