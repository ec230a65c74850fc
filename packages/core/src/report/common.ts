// What every human-facing reporter needs: scanned text made safe to show, and where a finding points.
import { SEVERITIES, type Capability, type FailOnLevel, type Finding, type ScanReport, type Severity, type SourceLocation } from '../scan/model.js';

/**
 * Code points that are invisible, reorder text, or drive a terminal: C0/C1 controls (ESC starts ANSI sequences),
 * format characters (zero-width, bidi overrides, Unicode tags), private-use, unassigned and lone surrogates,
 * line/paragraph separators, spaces other than U+0020, variation selectors and the fillers that render blank.
 */
export const HIDDEN_CHARACTERS =
  // eslint-disable-next-line no-misleading-character-class -- lone joiners and selectors are exactly what is matched
  /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000\u034F\u115F\u1160\u17B4\u17B5\u180B-\u180F\u2800\u3164\uFFA0\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/gu;
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;

export function codePointLabel(char: string): string {
  return `<U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}>`;
}

/**
 * Scanned text as something safe to print: every hidden or control character becomes `<U+XXXX>`, so a reader sees
 * exactly what the model would get and nothing in a tool description can recolour, rewrite or hide terminal output.
 * Line feeds and tabs are kept (evidence is often multi-line code); emoji presentation selectors and zero-width
 * joiners are kept only between pictographs, where they are ordinary emoji and nothing is hidden.
 */
export function visible(text: string): string {
  return text.replace(HIDDEN_CHARACTERS, (char, offset: number, whole: string) => {
    if (char === '\n' || char === '\t') return char;
    if (char === '\uFE0F' || char === '\uFE0E') {
      if (PICTOGRAPHIC.test(previousCodePoint(whole, offset))) return char;
    } else if (char === '\u200D') {
      const before = previousCodePoint(whole, offset);
      const after = String.fromCodePoint(whole.codePointAt(offset + 1) ?? 0);
      const beforeIsEmoji = PICTOGRAPHIC.test(before) || before === '\uFE0F';
      if (beforeIsEmoji && PICTOGRAPHIC.test(after)) return char;
    }
    return codePointLabel(char);
  });
}

/**
 * JSON text with every hidden character written as a `\uXXXX` escape: the same data for a parser, but a terminal
 * or editor showing the file cannot be reordered or recoloured by it. Outside strings JSON.stringify only emits
 * ASCII, so every match is inside a string literal; its own line feeds are layout and stay.
 */
export function jsonWithVisibleEscapes(json: string): string {
  return json.replace(HIDDEN_CHARACTERS, (char) =>
    char === '\n'
      ? char
      : [...Array(char.length).keys()].map((i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''),
  );
}

/** `visible` for multi-line text: Windows line endings are ordinary line breaks, a lone CR is shown. */
export function visibleBlock(text: string): string {
  return visible(text.replace(/\r\n/g, '\n'));
}

/** `visible`, then on one line: line feeds and tabs shown as `⏎` and spaces (for titles, table cells, annotations). */
export function visibleLine(text: string): string {
  return visibleBlock(text).replace(/\n/g, ' ⏎ ').replace(/\t/g, ' ');
}

/**
 * At most `max` characters (code points, as JSON Schema's `maxLength` counts them), the last one `…` when the text was
 * cut; never splits a surrogate pair.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}

function previousCodePoint(text: string, offset: number): string {
  if (offset === 0) return '';
  const low = text.charCodeAt(offset - 1);
  const start = low >= 0xdc00 && low <= 0xdfff && offset >= 2 ? offset - 2 : offset - 1;
  return String.fromCodePoint(text.codePointAt(start) ?? 0);
}

/** At most `maxLines` lines of at most `maxWidth` characters, saying what was cut. */
export function excerpt(text: string, maxLines = 8, maxWidth = 200): string[] {
  const lines = text.split('\n');
  const shown = lines.slice(0, maxLines).map((line) => {
    const chars = [...line];
    return chars.length > maxWidth ? `${chars.slice(0, maxWidth).join('')}… (+${chars.length - maxWidth} chars)` : line;
  });
  if (lines.length > maxLines) shown.push(`… (${lines.length - maxLines} more lines)`);
  return shown;
}

/**
 * Where a finding points in the target's files: its own code location, or, for findings about what the model
 * reads, the location of the tool's definition.
 */
export function findingLocation(report: ScanReport, finding: Finding): SourceLocation | undefined {
  if (finding.location) return finding.location;
  if (!finding.tool) return undefined;
  const { name, kind } = finding.tool;
  const definition =
    report.tools.find((tool) => tool.name === name && tool.kind === kind) ?? report.tools.find((tool) => tool.name === name);
  return definition?.location;
}

/**
 * A report path as CI tools want it, relative to the directory svc ran in (the repository checkout): for a
 * directory target given as a relative path, the target's own prefix is put back (`svc scan servers/weather`
 * reports `src/index.ts`; GitHub needs `servers/weather/src/index.ts`). Other paths are returned unchanged.
 */
export function checkoutPath(report: ScanReport, file: string): string {
  const { kind, input } = report.target;
  if (kind !== 'directory' || /^[a-z][a-z0-9+.-]*:\/\//i.test(file)) return file;
  const base = input.replace(/\\/g, '/').replace(/^(\.\/)+/, '').replace(/\/+$/, '');
  if (base === '' || base === '.' || base.startsWith('/') || /^[A-Za-z]:/.test(base) || base.split('/').includes('..')) {
    return file;
  }
  return `${base}/${file.replace(/^(\.\/)+/, '')}`;
}

/** `file:line[:column]`, `kind name › field` for a tool finding (with its code location when known), or ''. */
export function describeWhere(finding: Finding): string {
  const tool = finding.tool ? `${finding.tool.kind} ${finding.tool.name} › ${finding.tool.field}` : '';
  const at = finding.location;
  // A remote endpoint's definitions are located by URL (`https://host/mcp#tools/name`): a line number means nothing there.
  const code = at ? (/^[a-z][a-z0-9+.-]*:\/\//i.test(at.file) ? at.file : `${at.file}:${at.line}${at.column ? `:${at.column}` : ''}`) : '';
  return tool && code ? `${tool} (${code})` : tool || code;
}

export function targetTitle(report: ScanReport): string {
  const { kind, input, name, version, origin } = report.target;
  const label = version ? `${name}@${version}` : name;
  const head = origin ? `${origin.serverName} (${input})` : input;
  // `npm:weather-mcp@1.2.0` already says what was scanned; `./servers/a` does not, nor does `npm:weather-mcp`, whose
  // version the registry chose.
  const unpinned = version !== undefined && (kind === 'npm' || kind === 'pypi') && !input.includes(version);
  return name && (!input.includes(name) || unpinned) ? `${head} — ${label}` : head;
}

/** How judges voted, e.g. `confirm 2, dismiss 1 → confirm`; '' outside deep mode. */
export function describeConsensus(finding: Finding): string {
  if (!finding.votes?.length && !finding.consensus) return '';
  const tally = new Map<string, number>();
  for (const vote of finding.votes ?? []) tally.set(vote.verdict, (tally.get(vote.verdict) ?? 0) + 1);
  const votes = [...tally].map(([verdict, count]) => `${verdict} ${count}`).join(', ');
  return finding.consensus ? `${votes}${votes ? ' → ' : ''}${finding.consensus}` : votes;
}

/** The score as people read it: `72/100 grade C`, or `not graded` for a target whose code was not looked at. */
export function scoreLabel(report: ScanReport): string {
  return report.score === null || report.grade === null ? 'not graded' : `${report.score}/100 grade ${report.grade}`;
}

/** `partial: …` or `not scanned: …` with every reason, one line; undefined for a target that was fully scanned. */
export function coverageNote(report: ScanReport): string | undefined {
  const { status, reasons } = report.coverage;
  if (status === 'scanned') return undefined;
  return `${status === 'partial' ? 'partial' : 'not scanned'}: ${visibleLine(reasons.join('; '))}`;
}

/** Columns padded to their widest cell, two spaces apart; the last column is not padded, so no line ends in spaces. */
export function textTable(rows: readonly (readonly string[])[]): string {
  const widths = (rows[0] ?? []).map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  ').trimEnd()).join('\n');
}

/** How many tools the text report lists with their capabilities before it says "… more" (the JSON has them all). */
export const MAX_TOOLS_LISTED = 25;

/**
 * A tool's capabilities on one line, grouped by kind with up to two of the paths, hosts or programs of each:
 * `persistence ~/.bashrc · file-write ~/.bashrc · network api.weather.gov · env`.
 */
export function capabilitySummary(capabilities: readonly Capability[]): string {
  const byKind = new Map<string, string[]>();
  for (const capability of capabilities) {
    const targets = byKind.get(capability.kind) ?? [];
    if (capability.target !== undefined && !targets.includes(capability.target)) targets.push(capability.target);
    byKind.set(capability.kind, targets);
  }
  return [...byKind]
    .map(([kind, targets]) => {
      const shown = targets.slice(0, 2).map((target) => (target.length > 48 ? `${target.slice(0, 47)}…` : target));
      const more = targets.length > 2 ? ` +${targets.length - 2}` : '';
      return shown.length > 0 ? `${kind} ${shown.join(', ')}${more}` : kind;
    })
    .join(' · ');
}

/** `--fail-on` and where it came from: reporters that mark failures (JUnit) use the rule the exit code uses. */
export interface FailPolicy {
  failOn?: FailOnLevel;
  /** `--fail-on` was given on the command line: it then wins over a repository's svc.config.json `failOn`. */
  failOnExplicit?: boolean;
  /** `--fail-on-partial`: a partly scanned target fails the run. */
  failOnPartial?: boolean;
}

/** The default of `svc scan --fail-on`. */
export const DEFAULT_FAIL_ON: FailOnLevel = 'high';

export function meetsThreshold(severity: Severity, failOn: FailOnLevel): boolean {
  if (failOn === 'never') return false;
  return SEVERITIES.indexOf(severity) <= SEVERITIES.indexOf(failOn);
}

/** The threshold one report is judged by: an explicit --fail-on, else the repository's svc.config.json, else the default. */
export function reportFailOn(report: ScanReport, { failOn = DEFAULT_FAIL_ON, failOnExplicit = true }: FailPolicy): FailOnLevel {
  return failOnExplicit ? failOn : (report.repoConfig?.failOn ?? failOn);
}

/** A finding that fails the run under the policy; findings the judge panel dismissed never do. */
export function failsRun(report: ScanReport, finding: Finding, policy: FailPolicy): boolean {
  return finding.consensus !== 'dismiss' && meetsThreshold(finding.severity, reportFailOn(report, policy));
}
