// Turns a description into the text the model effectively reads, and marks the parts a person reviewing the
// rendered text would not see: HTML comments, fake conversation turns and chat-template tokens.
import { normalizeForMatching } from '../support/text-patterns.js';

/** Cyrillic and Greek letters drawn like Latin ones; folded only inside words that also hold Latin letters. */
const HOMOGLYPHS: Readonly<Record<string, string>> = {
  а: 'a', в: 'b', е: 'e', к: 'k', м: 'm', н: 'h', о: 'o', р: 'p', с: 'c', т: 't', у: 'y', х: 'x', і: 'i', ј: 'j',
  ѕ: 's', ԁ: 'd', ԛ: 'q', ԝ: 'w', ӏ: 'l', А: 'A', В: 'B', Е: 'E', К: 'K', М: 'M', Н: 'H', О: 'O', Р: 'P', С: 'C',
  Т: 'T', Х: 'X', І: 'I', Ј: 'J', Ѕ: 'S', α: 'a', ε: 'e', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u',
  χ: 'x', Α: 'A', Β: 'B', Ε: 'E', Ζ: 'Z', Η: 'H', Ι: 'I', Κ: 'K', Μ: 'M', Ν: 'N', Ο: 'O', Ρ: 'P', Τ: 'T', Υ: 'Y', Χ: 'X',
};
const HOMOGLYPH_CLASS = new RegExp(`[${Object.keys(HOMOGLYPHS).join('')}]`, 'u');

export interface Prepared {
  /** The visible text, normalised, with hidden segments cut out. */
  visible: string;
  /** Text a rendered view hides from people but the model reads, each with where it was hidden. */
  hidden: Array<{ text: string; where: string }>;
  /** Words spelled with look-alike letters of another script. */
  homoglyphWords: string[];
}

const HTML_COMMENT = /<!--([\s\S]*?)(?:-->|$)/g;
/** Role turns and chat-template tokens: an honest description never speaks as the system or the assistant. */
const FAKE_TURN =
  /(?:^|\n)\s*(?:#{1,4}\s*)?(?:\[\s*)?(system|assistant|developer|admin(?:istrator)?|operator)(?:\s+(?:message|prompt|note|override|instructions?))?\s*\]?\s*:\s*([^\n]+)|<\|im_start\|>\s*(system|assistant)\s*([\s\S]*?)(?:<\|im_end\|>|$)|<\|(?:system|start_header_id\|>system<\|end_header_id)\|>([\s\S]*?)(?:<\|eot_id\|>|<\||$)|\[\/?(?:INST|SYSTEM)\]([\s\S]*?)(?:\[\/(?:INST|SYSTEM)\]|$)|<<SYS>>([\s\S]*?)(?:<<\/SYS>>|$)|<\/?(?:tool_description|function_description|tool_output|system-reminder|system_instructions?|system)>([\s\S]*?)(?=<\/?(?:tool_description|function_description|system-reminder|system_instructions?|system)>|$)/gi;

function foldHomoglyphs(text: string, found: string[]): string {
  return text.replace(/[\p{L}\p{M}]+/gu, (word) => {
    if (!HOMOGLYPH_CLASS.test(word) || !/[A-Za-z]/.test(word)) return word;
    found.push(word);
    return [...word].map((char) => HOMOGLYPHS[char] ?? char).join('');
  });
}

export function prepare(raw: string): Prepared {
  const homoglyphWords: string[] = [];
  const text = foldHomoglyphs(normalizeForMatching(raw), homoglyphWords);
  const hidden: Prepared['hidden'] = [];
  let visible = text.replace(HTML_COMMENT, (_all, inner: string) => {
    if (/\p{L}{3,}/u.test(inner)) hidden.push({ text: inner.trim(), where: 'an HTML comment' });
    return '\n';
  });
  visible = visible.replace(FAKE_TURN, (all: string, ...groups: unknown[]) => {
    const parts = groups.slice(0, 8).filter((part): part is string => typeof part === 'string');
    const role = parts.length > 1 && /^(?:system|assistant|developer|admin|administrator|operator)$/i.test(parts[0]!) ? parts[0]! : 'system';
    const inner = (parts.length > 1 ? parts.slice(1) : parts).join(' ').trim();
    if (inner) hidden.push({ text: inner, where: `a fake ${role.toLowerCase()} turn` });
    return all.startsWith('\n') ? '\n' : '';
  });
  // Emphasis tags (`<IMPORTANT>`) are visible markup; the sentences inside them are read like any other.
  visible = visible.replace(/(?<![=?&/\w])<\/?\s*[A-Za-z][\w-]*\s*>/g, '\n');
  return { visible, hidden, homoglyphWords };
}
