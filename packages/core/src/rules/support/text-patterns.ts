import type { FindingInput } from '../create-rule.js';
import type { ModelText } from '../../scan/model.js';

/**
 * Text as the pattern rules match it: NFKC folds full-width and other compatibility look-alikes onto ASCII, and
 * format characters (zero-width, bidi, tags) are dropped so `ig\u200Bnore previous instructions` still reads as
 * what the model sees. hidden-unicode reports the characters themselves.
 */
export function normalizeForMatching(text: string): string {
  return text.normalize('NFKC').replace(/\p{Cf}/gu, '').replace(/[^\S\n]+/g, ' ');
}

export interface Sentence {
  text: string;
  start: number;
}

const sentenceSegmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/**
 * Sentences of a text; line breaks also end a sentence because descriptions use them for bullet points and headings
 * without punctuation, except where a docstring merely wraps a sentence (the next line goes on in lower case after a
 * line without closing punctuation).
 */
export function sentences(text: string): Sentence[] {
  const result: Sentence[] = [];
  let lineStart = 0;
  // Same length as the original, so every sentence's `start` still indexes into `text`.
  const unwrapped = text.replace(/([^\n.!?:;])([ \t]*)\n(?=[ \t]*[a-z(`'"])/g, '$1$2 ');
  for (const line of unwrapped.split('\n')) {
    for (const segment of sentenceSegmenter.segment(line)) {
      const trimmed = segment.segment.trim();
      if (trimmed.length > 0) result.push({ text: trimmed, start: lineStart + segment.index });
    }
    lineStart += line.length + 1;
  }
  return result;
}

/** Shortens evidence to what a report line can show. */
export function clip(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** "tool `add` description", "parameter `path` of tool `read_file`": how messages name the text they are about. */
export function describeModelText(text: ModelText): string {
  const kind = text.toolKind === 'instructions' ? 'server instructions' : `${text.toolKind} \`${text.tool}\``;
  const parameter = /^parameters\.(.+)\.(description|default|name|enum\[\d+\])$/.exec(text.field);
  if (parameter) return `${parameter[2]} of parameter \`${parameter[1]}\` of ${kind}`;
  return text.toolKind === 'instructions' ? kind : `${text.field} of ${kind}`;
}

/** The finding fields every model-text rule shares: located at the tool, naming the field. */
export function modelTextFinding(text: ModelText): Pick<FindingInput, 'location' | 'tool'> {
  return { location: text.location, tool: { name: text.tool, kind: text.toolKind, field: text.field } };
}

/**
 * Words that make decoded or hidden text read as an instruction to a model rather than data, shared by the rules that
 * decode things (tags, base64, rot13) to decide whether what they found is worth a high severity.
 */
export const INSTRUCTION_CUE =
  /\b(ignore|disregard|forget|previous instructions?|system prompt|you (?:must|should|are)|do not|don't|never|always|instead|before|send|forward|include|pass|read|exfiltrate|upload|password|secret|api[ _-]?keys?|tokens?|credentials?|ssh|id_rsa|\.env|conversation|the user|assistant)\b/i;

export const URL_PATTERN = /\bhttps?:\/\/[^\s"'<>`]+/i;

/** How a decoded payload reads: instructions weigh more than a bare URL, which weighs more than plain words. */
export function payloadKind(decoded: string): 'instruction' | 'url' | 'text' {
  if (INSTRUCTION_CUE.test(decoded) && /[a-z]{3,}\s+[a-z]{2,}/i.test(decoded)) return 'instruction';
  if (URL_PATTERN.test(decoded)) return 'url';
  return 'text';
}

/** Line and column (1-based) of an offset in a text. */
export function positionAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) {
    line += 1;
    lineStart = index + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** The line of a text holding an offset, trimmed: the evidence for findings about files. */
export function lineAt(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const end = text.indexOf('\n', offset);
  return text.slice(start, end === -1 ? undefined : end).trim();
}
