/**
 * Invisible and direction-changing characters, classified by what they let an attacker do. Shared by hidden-unicode
 * (which reports them) and the text rules (which strip them before matching, see text-patterns.ts).
 */
export type HiddenClass = 'tag' | 'variation-selector' | 'bidi' | 'zero-width' | 'invisible';

export interface HiddenRun {
  class: HiddenClass;
  /** Offset of the first character (UTF-16 index) and the run's length in code points. */
  index: number;
  codePoints: number[];
  /** For tags and variation-selector smuggling: the text the run encodes. */
  decoded?: string;
}

const BIDI = new Set([0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]);
const ZERO_WIDTH = new Set([0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x180e]);
/** Fillers and invisible operators that render as nothing and have been used to pad or split words. */
const INVISIBLE = new Set([0x00ad, 0x034f, 0x115f, 0x1160, 0x2061, 0x2062, 0x2063, 0x2064, 0x3164, 0xffa0, 0x200e, 0x200f, 0x061c]);

function classOf(codePoint: number): HiddenClass | undefined {
  // Interlinear annotation marks hide the annotated text in renderers that support them; musical formatting
  // controls render as nothing.
  if ((codePoint >= 0xfff9 && codePoint <= 0xfffb) || (codePoint >= 0x1d173 && codePoint <= 0x1d17a)) return 'invisible';
  if (codePoint >= 0xe0000 && codePoint <= 0xe007f) return 'tag';
  if (codePoint >= 0xe0100 && codePoint <= 0xe01ef) return 'variation-selector';
  if (BIDI.has(codePoint)) return 'bidi';
  if (ZERO_WIDTH.has(codePoint)) return 'zero-width';
  if (INVISIBLE.has(codePoint)) return 'invisible';
  return undefined;
}

// U+034F is a combining mark, which ESLint rejects inside a class, so it is its own alternative. Every code point
// `classOf` classifies matches (unicode.test.ts checks the whole range), so a run can only start at a match.
const ANY_HIDDEN = /\u034F|[\u00AD\u061C\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\u3164\uFEFF\uFFA0\uFFF9-\uFFFB\u{1D173}-\u{1D17A}\u{E0000}-\u{E01EF}]/gu;

const EMOJI = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}\u{FE0F}\u{20E3}]/u;
/** Scripts whose orthography needs ZWJ/ZWNJ between letters (Arabic, Persian, Indic, Sinhala …). */
const JOINING_SCRIPT = /[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Mongolian}\p{Script=Tibetan}]/u;
const RTL_LETTER = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}]/u;

/** Variation selectors 17–256 carry one byte each in the "emoji smuggling" trick (VS1–16 carry 0–15). */
function variationSelectorByte(codePoint: number): number {
  return codePoint - 0xe0100 + 16;
}

/**
 * The suspicious invisible characters of a text, grouped into runs of one class. Legitimate uses are left out: a BOM
 * at offset 0, ZWJ/ZWNJ inside emoji sequences or between letters of scripts that need them, LRM/RLM next to
 * right-to-left letters, and the tag sequences of subdivision flag emoji (🏴 + tags + cancel tag).
 */
export function hiddenRuns(text: string): HiddenRun[] {
  // Only the neighbourhood of each match is looked at: whole files are never split into code points.
  const runs: HiddenRun[] = [];
  ANY_HIDDEN.lastIndex = 0;
  for (let match = ANY_HIDDEN.exec(text); match !== null; match = ANY_HIDDEN.exec(text)) {
    const index = match.index;
    const hiddenClass = classOf(text.codePointAt(index)!);
    if (!hiddenClass) continue;
    const codePoints: number[] = [];
    let end = index;
    while (end < text.length) {
      const codePoint = text.codePointAt(end)!;
      if (classOf(codePoint) !== hiddenClass) break;
      codePoints.push(codePoint);
      end += codePoint > 0xffff ? 2 : 1;
    }
    ANY_HIDDEN.lastIndex = end;
    const after = end < text.length ? String.fromCodePoint(text.codePointAt(end)!) : '';
    if (!isLegitimate(hiddenClass, codePoints, codePointBefore(text, index), after, index)) {
      runs.push({ class: hiddenClass, index, codePoints, decoded: decode(hiddenClass, codePoints) });
    }
  }
  return runs;
}

/** The whole code point that ends just before `index` (a surrogate pair counts as one), or ''. */
function codePointBefore(text: string, index: number): string {
  if (index === 0) return '';
  const low = text.charCodeAt(index - 1);
  const isPair = low >= 0xdc00 && low <= 0xdfff && index >= 2 && text.charCodeAt(index - 2) >= 0xd800 && text.charCodeAt(index - 2) <= 0xdbff;
  return text.slice(isPair ? index - 2 : index - 1, index);
}

function isLegitimate(hiddenClass: HiddenClass, codePoints: number[], before: string, after: string, offset: number): boolean {
  const only = codePoints.length === 1 ? codePoints[0] : undefined;
  if (only === 0xfeff && offset === 0) return true;
  if ((only === 0x200d || only === 0x200c) && ((EMOJI.test(before) && EMOJI.test(after)) || (JOINING_SCRIPT.test(before) && JOINING_SCRIPT.test(after)))) {
    return true;
  }
  if ((only === 0x200e || only === 0x200f || only === 0x061c) && (RTL_LETTER.test(before) || RTL_LETTER.test(after))) return true;
  if (hiddenClass === 'tag' && before === '\u{1F3F4}' && codePoints.at(-1) === 0xe007f && codePoints.length <= 8) return true;
  // One variation selector after an ideograph picks a glyph variant (Ideographic Variation Sequences).
  if (hiddenClass === 'variation-selector' && codePoints.length === 1 && /\p{Ideographic}/u.test(before)) return true;
  return false;
}

function decode(hiddenClass: HiddenClass, codePoints: number[]): string | undefined {
  if (hiddenClass === 'tag') {
    return codePoints
      .filter((codePoint) => codePoint >= 0xe0020 && codePoint <= 0xe007e)
      .map((codePoint) => String.fromCharCode(codePoint - 0xe0000))
      .join('');
  }
  if (hiddenClass === 'variation-selector') {
    return Buffer.from(codePoints.map(variationSelectorByte)).toString('utf8');
  }
  return undefined;
}

const NAMES: Record<number, string> = {
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x2060: 'WORD JOINER',
  0xfeff: 'ZERO WIDTH NO-BREAK SPACE',
  0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING',
  0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE',
  0x2068: 'FIRST STRONG ISOLATE',
  0x2069: 'POP DIRECTIONAL ISOLATE',
};

export function codePointLabel(codePoint: number): string {
  const hex = `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
  const name = NAMES[codePoint];
  return name ? `${hex} ${name}` : hex;
}

/**
 * The text with every hidden run made visible: `⟦U+200B⟧`, and decoded tag text as `⟦tags: …⟧`. Control characters
 * are escaped too, so evidence is safe to print in a terminal.
 */
export function revealHidden(text: string, runs: readonly HiddenRun[]): string {
  let result = '';
  let cursor = 0;
  for (const run of runs) {
    result += text.slice(cursor, run.index);
    const length = run.codePoints.reduce((sum, codePoint) => sum + (codePoint > 0xffff ? 2 : 1), 0);
    if (run.decoded !== undefined) {
      result += `⟦${run.class === 'tag' ? 'tags' : 'variation selectors'}: ${run.decoded}⟧`;
    } else {
      result += run.codePoints.map((codePoint) => `⟦${codePointLabel(codePoint).split(' ')[0]}⟧`).join('');
    }
    cursor = run.index + length;
  }
  result += text.slice(cursor);
  return escapeControls(result);
}

/** C0/C1 controls other than tab and newline as `\xNN`, so evidence cannot drive a terminal. */
export function escapeControls(text: string): string {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
