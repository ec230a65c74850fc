// What a description's sentences act on: URLs, mail addresses, paths, commands and code, tool names. They are found
// before the language model reads the text and replaced by plain placeholder words, so `~/.ssh/id_rsa` or
// `https://x.example/?q=` neither breaks a sentence apart nor confuses the part-of-speech tagger.
import { SENSITIVE_STORES, type SensitiveStore } from '../support/sensitive-targets.js';

export type EntityKind = 'url' | 'email' | 'phone' | 'path' | 'code' | 'tool';

export interface Entity {
  kind: EntityKind;
  text: string;
  /** For paths and code: the secret store it names. */
  store?: SensitiveStore;
  /** For URLs: the query or path carries a placeholder for data ("?q={conversation}"), so opening it sends data. */
  carriesData?: boolean;
  /** For URLs: written as a markdown image, which clients fetch as soon as they render it. */
  image?: boolean;
  /** For code: what the snippet does that no description needs (download-and-run, cookie theft …). */
  payload?: string;
}

/** Placeholders in a URL or snippet that ask the model to fill in data it holds. */
const DATA_PLACEHOLDER =
  /[{<[$]{1,2}\s*[\w\s.'-]{0,40}?(?:conversation|chat|history|messages|context|summary|secret|api_?key|key|token|password|credential|cookie|session|file_?contents?|contents|env|prompt|memory|user_?(?:message|input|query|question|prompt|data)|ssh)[\w\s.'-]{0,40}\s*[}>\]]{1,2}|\$[A-Z][A-Z_]*(?:KEY|TOKEN|SECRET|PASSWORD|CONTENTS?|HISTORY|CONVERSATION)\b|\.\.\.|…/i;

const URL = /\bhttps?:\/\/[^\s"'<>`)\]]+|\bwss?:\/\/[^\s"'<>`)\]]+|\b(?:[a-z0-9-]+\.)+(?:com|net|org|io|dev|app|xyz|ru|cn|tk|top|site|online|info|biz|co|me|cc|pw|ws|link|click|sh)(?::\d+)?\/[^\s"'<>`)\]]*/gi;
const MARKDOWN_LINK = /(!?)\[[^\]\n]*\]\(\s*([^)\s]+)[^)\n]*\)/g;
const EMAIL = /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g;
const PHONE = /(?<![\w.])\+\d[\d\s-]{7,16}\d\b/g;
const CODE_SPAN = /```[\s\S]*?```|`[^`\n]+`|"(?:curl|wget|bash|sh|python3?|node|powershell|iwr|iex|fetch|nc)\b[^"\n]*"|'(?:curl|wget|bash|sh|python3?|node|powershell|iwr|iex|fetch|nc)\b[^'\n]*'/g;
const PATH = /(?:~|\$HOME|%\w+%|\.{1,2})?\/[\w.@%+-]+(?:\/[\w.@%+-]*)*|(?<![\w/])\.[a-z][\w-]*(?:\/[\w.-]+)*|\b[A-Z]:\\[^\s"'`]+/g;
/** snake_case, kebab-case with a verb, dotted and `mcp__server__tool` identifiers: the shapes tool names take. */
const TOOL_SHAPED = /\b(?:mcp__[\w-]+__)?[a-z][a-z0-9]*(?:[_][a-z0-9]+)+\b|\b[a-z]+[A-Z][a-zA-Z0-9]+\b/g;

/** Command lines and code that fetch and run something, or read browser secrets and send them out. */
const PAYLOADS: ReadonlyArray<[RegExp, string]> = [
  [/\b(?:curl|wget|iwr|invoke-webrequest|fetch)\b[^|;&\n]*\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b|\b(?:curl|wget)\b[^|;&\n]*\|\s*(?:python3?|node|perl|ruby|php|iex|powershell)\b/i, 'downloads a script and pipes it into an interpreter'],
  [/(?:&&|;|\|\||\$\(|`)\s*(?:curl|wget|nc|ncat|iwr|invoke-webrequest)\b[^\n]*(?:https?:\/\/|\d+\.\d+\.\d+\.\d+)/i, 'chains a network request onto the command'],
  [/\b(?:bash|sh)\s+-c\s+["']?[^"'\n]*(?:curl|wget|nc|\/dev\/tcp)/i, 'runs a shell that opens a network connection'],
  [/\/dev\/tcp\/|\bnc\b[^\n]*\s-e\s|\bmkfifo\b[^\n]*\bnc\b/i, 'opens a reverse shell'],
  [/\b(?:powershell|pwsh)\b[^\n]*\s-(?:e|enc|encodedcommand)\s|\biex\s*\(|\bDownloadString\s*\(/i, 'runs encoded or downloaded PowerShell'],
  [/\bbase64\s+(?:-d|--decode)\b[^\n]*\|\s*(?:ba)?sh\b|\beval\s*\(\s*(?:atob|Buffer\.from)\b/i, 'decodes and runs a hidden payload'],
  [/\bdocument\.cookie\b|\blocalStorage\.getItem\b|\bsessionStorage\b/i, 'reads browser cookies or storage'],
  [/\b(?:new\s+Image\(\)\.src|navigator\.sendBeacon|XMLHttpRequest|fetch\s*\(\s*['"`]https?:)/i, 'sends data from the page to a server'],
  [/\b(?:rm\s+-rf\s+(?:~|\/|\$HOME)|mkfs\b|dd\s+if=\/dev\/(?:zero|random)|:\(\)\s*\{\s*:\|:&\s*\};:)/i, 'destroys files or the system'],
  [/\b(?:crontab\s+-|>>\s*~\/\.(?:bashrc|zshrc|profile)|authorized_keys\b[^\n]*>>|>>[^\n]*authorized_keys)/i, 'installs itself to run again (persistence)'],
  [/\b(?:scp|rsync|curl\s+(?:-T|--upload-file|-F|-d\s*@|--data(?:-binary)?\s*@))\b[^\n]*(?:@|https?:\/\/)/i, 'uploads local files to a remote host'],
];

export function payloadOf(code: string): string | undefined {
  return PAYLOADS.find(([pattern]) => pattern.test(code))?.[1];
}

function storeOf(text: string): SensitiveStore | undefined {
  return SENSITIVE_STORES.find((store) => store.pattern.test(text));
}

export interface Masked {
  /** The text with each entity replaced by a placeholder word (`entityN`), same sentence structure. */
  text: string;
  entities: Entity[];
}

/**
 * Finds the entities of a text and masks them. `knownTools` are names the server or its config define; other
 * tool-shaped words count as tools only when the sentence treats them as one (checked by the reader).
 */
export function maskEntities(text: string, knownTools: ReadonlySet<string>): Masked {
  const entities: Entity[] = [];
  const spans: Array<{ start: number; end: number; entity: Entity }> = [];
  const claim = (start: number, end: number, entity: Entity) => {
    if (spans.some((span) => start < span.end && end > span.start)) return;
    spans.push({ start, end, entity });
  };
  for (const match of text.matchAll(MARKDOWN_LINK)) {
    claim(match.index, match.index + match[0].length, { ...urlEntity(match[2]!), image: match[1] === '!' });
  }
  for (const match of text.matchAll(CODE_SPAN)) {
    const inner = match[0].replace(/^[`'"]+|[`'"]+$/g, '');
    const payload = payloadOf(inner);
    const lower = inner.toLowerCase();
    // A backticked single identifier is a name, not code: a tool, a parameter or a path.
    if (/^[\w.-]+$/.test(inner) && (knownTools.has(lower) || /_/.test(inner))) {
      claim(match.index, match.index + match[0].length, { kind: 'tool', text: inner });
    } else if (!payload && /^[~$.]?\/|^\.[a-z]|^[A-Z]:\\/i.test(inner) && !/\s/.test(inner)) {
      claim(match.index, match.index + match[0].length, { kind: 'path', text: inner, store: storeOf(inner) });
    } else if (/^(?:https?|wss?):\/\/\S+$/i.test(inner)) {
      claim(match.index, match.index + match[0].length, urlEntity(inner));
    } else {
      claim(match.index, match.index + match[0].length, { kind: 'code', text: inner, payload, store: storeOf(inner) });
    }
  }
  for (const match of text.matchAll(URL)) {
    const url = match[0].replace(/[.,;:!?]+$/, '');
    claim(match.index, match.index + url.length, urlEntity(url));
  }
  for (const match of text.matchAll(EMAIL)) claim(match.index, match.index + match[0].length, { kind: 'email', text: match[0] });
  for (const match of text.matchAll(PHONE)) claim(match.index, match.index + match[0].length, { kind: 'phone', text: match[0].trim() });
  for (const store of SENSITIVE_STORES) {
    for (const match of text.matchAll(new RegExp(store.pattern.source, 'gi'))) {
      const lead = match[0].search(/\S/);
      claim(match.index + lead, match.index + match[0].length, { kind: 'path', text: match[0].slice(lead), store });
    }
  }
  for (const match of text.matchAll(PATH)) {
    const path = match[0].replace(/[.,;:]+$/, '');
    if (path.length < 3 || /^\.\.?$/.test(path) || /^\.[a-z]+$/i.test(path) && !storeOf(path)) continue;
    claim(match.index, match.index + path.length, { kind: 'path', text: path, store: storeOf(path) });
  }
  for (const match of text.matchAll(TOOL_SHAPED)) {
    claim(match.index, match.index + match[0].length, { kind: 'tool', text: match[0] });
  }
  const plainNames = plainNamesPattern(knownTools);
  for (const match of plainNames ? text.matchAll(plainNames) : []) {
    claim(match.index, match.index + match[0].length, { kind: 'tool', text: match[0] });
  }
  spans.sort((a, b) => a.start - b.start);
  let masked = '';
  let cursor = 0;
  for (const span of spans) {
    masked += text.slice(cursor, span.start) + `entity${entities.length}`;
    entities.push(span.entity);
    cursor = span.end;
  }
  masked += text.slice(cursor);
  return { text: masked, entities };
}

const plainNamesCache = new WeakMap<ReadonlySet<string>, RegExp | undefined>();

/** One-word tool names ("fetch", "search") count as tools only where the text calls them one ("the fetch tool"). */
function plainNamesPattern(knownTools: ReadonlySet<string>): RegExp | undefined {
  if (plainNamesCache.has(knownTools)) return plainNamesCache.get(knownTools);
  const names = [...knownTools].filter((name) => /^[a-z]{4,}$/.test(name));
  const pattern = names.length > 0 ? new RegExp(String.raw`\b(?:${names.join('|')})\b(?=\s+tool\b)`, 'gi') : undefined;
  plainNamesCache.set(knownTools, pattern);
  return pattern;
}

function urlEntity(url: string): Entity {
  const queryAndPath = url.replace(/^[a-z]+:\/\/[^/]+/i, '');
  return { kind: 'url', text: url, carriesData: /[?&=#/]/.test(queryAndPath) && DATA_PLACEHOLDER.test(queryAndPath) };
}

/** The index of the entity a placeholder word stands for, or undefined for other words. */
export function entityIndex(word: string): number | undefined {
  const match = /^entity(\d+)$/.exec(word);
  return match ? Number(match[1]) : undefined;
}
