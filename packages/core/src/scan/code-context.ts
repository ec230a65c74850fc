import type { CodeContext, Finding } from './model.js';

/** Lines shown before and after a finding's line. */
const AROUND = 2;
/** Characters kept of one line: a minified bundle's line can be megabytes long. */
const MAX_LINE = 160;

/** The code around each code finding's location, read from the texts the inventory already holds (no file is opened again). */
export function withCodeContext(findings: readonly Finding[], textOf: (path: string) => string | undefined): Finding[] {
  const linesOf = new Map<string, string[] | undefined>();
  return findings.map((finding) => {
    const location = finding.location;
    // The line of a hard-coded secret is the secret: its evidence is masked, and the context must not undo that. A
    // finding about a tool's text is shown by the sentence at fault (its evidence), not by the registration call.
    if (!location || location.line < 1 || finding.category === 'secrets' || finding.tool) return finding;
    if (!linesOf.has(location.file)) linesOf.set(location.file, textOf(location.file)?.split(/\r?\n/));
    const lines = linesOf.get(location.file);
    if (!lines || location.line > lines.length) return finding;
    const context = contextAround(lines, location.line, location.column);
    return { ...finding, context };
  });
}

export function contextAround(lines: readonly string[], line: number, column = 1): CodeContext {
  const first = Math.max(1, line - AROUND);
  const last = Math.min(lines.length, line + AROUND);
  // A window of every shown line starts at the same column, so a minified neighbour line stays aligned with the hit.
  const start = Math.max(0, column - 1 - Math.floor(MAX_LINE / 3));
  return { startLine: first, lines: lines.slice(first - 1, last).map((text) => clip(text, start)) };
}

function clip(text: string, start: number): string {
  if (text.length <= MAX_LINE) return text;
  const from = Math.min(start, Math.max(0, text.length - MAX_LINE));
  return `${from > 0 ? '…' : ''}${text.slice(from, from + MAX_LINE)}${from + MAX_LINE < text.length ? '…' : ''}`;
}
