import { describe, expect, it } from 'vitest';
import { hiddenRuns, type HiddenRun } from './unicode.js';

/**
 * The first implementation, which split the whole text into code points, restated as the oracle the match-driven one
 * must agree with (classification, legitimate uses and decoding copied from it).
 */
const BIDI = [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069];
const ZERO_WIDTH = [0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x180e];
const INVISIBLE = [0x00ad, 0x034f, 0x115f, 0x1160, 0x2061, 0x2062, 0x2063, 0x2064, 0x3164, 0xffa0, 0x200e, 0x200f, 0x061c];
const EMOJI = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}\u{FE0F}\u{20E3}]/u;
const JOINING_SCRIPT = /[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Mongolian}\p{Script=Tibetan}]/u;
const RTL_LETTER = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}]/u;

function referenceClass(codePoint: number): HiddenRun['class'] | undefined {
  if ((codePoint >= 0xfff9 && codePoint <= 0xfffb) || (codePoint >= 0x1d173 && codePoint <= 0x1d17a)) return 'invisible';
  if (codePoint >= 0xe0000 && codePoint <= 0xe007f) return 'tag';
  if (codePoint >= 0xe0100 && codePoint <= 0xe01ef) return 'variation-selector';
  if (BIDI.includes(codePoint)) return 'bidi';
  if (ZERO_WIDTH.includes(codePoint)) return 'zero-width';
  if (INVISIBLE.includes(codePoint)) return 'invisible';
  return undefined;
}

function referenceLegitimate(hiddenClass: HiddenRun['class'], codePoints: number[], before: string, after: string, position: number): boolean {
  const only = codePoints.length === 1 ? codePoints[0] : undefined;
  if (only === 0xfeff && position === 0) return true;
  if ((only === 0x200d || only === 0x200c) && ((EMOJI.test(before) && EMOJI.test(after)) || (JOINING_SCRIPT.test(before) && JOINING_SCRIPT.test(after)))) {
    return true;
  }
  if ((only === 0x200e || only === 0x200f || only === 0x061c) && (RTL_LETTER.test(before) || RTL_LETTER.test(after))) return true;
  if (hiddenClass === 'tag' && before === '\u{1F3F4}' && codePoints.at(-1) === 0xe007f && codePoints.length <= 8) return true;
  if (hiddenClass === 'variation-selector' && codePoints.length === 1 && /\p{Ideographic}/u.test(before)) return true;
  return false;
}

function referenceDecode(hiddenClass: HiddenRun['class'], codePoints: number[]): string | undefined {
  if (hiddenClass === 'tag') {
    return codePoints.filter((c) => c >= 0xe0020 && c <= 0xe007e).map((c) => String.fromCharCode(c - 0xe0000)).join('');
  }
  if (hiddenClass === 'variation-selector') return Buffer.from(codePoints.map((c) => c - 0xe0100 + 16)).toString('utf8');
  return undefined;
}

function referenceRuns(text: string): HiddenRun[] {
  const chars = [...text];
  const offsets: number[] = [];
  let offset = 0;
  for (const char of chars) {
    offsets.push(offset);
    offset += char.length;
  }
  const runs: HiddenRun[] = [];
  for (let i = 0; i < chars.length; i += 1) {
    const hiddenClass = referenceClass(chars[i]!.codePointAt(0)!);
    if (!hiddenClass) continue;
    let j = i;
    while (j + 1 < chars.length && referenceClass(chars[j + 1]!.codePointAt(0)!) === hiddenClass) j += 1;
    const codePoints = chars.slice(i, j + 1).map((char) => char.codePointAt(0)!);
    if (!referenceLegitimate(hiddenClass, codePoints, chars[i - 1] ?? '', chars[j + 1] ?? '', i)) {
      runs.push({ class: hiddenClass, index: offsets[i]!, codePoints, decoded: referenceDecode(hiddenClass, codePoints) });
    }
    i = j;
  }
  return runs;
}

/** A deterministic pseudo-random sequence (no real randomness in tests). */
function* lcg(seed: number): Generator<number> {
  let state = seed;
  for (;;) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    yield state;
  }
}

const PIECES = [
  'a', 'Z', ' ', '\n', 'ok', '\u{1F469}', '\u{1F3F4}', '\u{1F308}', '\uFE0F', '\u0645', '\u05E9', '\u4E00', '\uD800', '\uDC00',
  '\u200B', '\u200C', '\u200D', '\u200E', '\u200F', '\u202E', '\u2066', '\uFEFF', '\u00AD', '\u034F', '\u3164', '\uFFF9',
  '\u{1D173}', '\u{E0041}', '\u{E007F}', '\u{E0080}', '\u{E0100}', '\u{E01EF}', '\u180E', '\u2060', '\u2064', '\u061C',
];

describe('hiddenRuns', () => {
  it('classifies every code point the way the whole-text split did', () => {
    // Each code point alone between letters, over the planes where hidden characters live (and their neighbours).
    for (let codePoint = 0; codePoint <= 0x10ffff; codePoint++) {
      if ((codePoint >= 0xd800 && codePoint <= 0xdfff) || (codePoint > 0x1ffff && (codePoint < 0xe0000 || codePoint > 0xe0fff))) continue;
      const text = `a${String.fromCodePoint(codePoint)}b`;
      expect(hiddenRuns(text), codePoint.toString(16)).toEqual(referenceRuns(text));
    }
  });

  it('finds the same runs as splitting the text into code points, on mixed texts', () => {
    const random = lcg(7);
    for (let sample = 0; sample < 3000; sample++) {
      let text = '';
      const length = random.next().value % 24;
      for (let i = 0; i < length; i++) text += PIECES[random.next().value % PIECES.length];
      expect(hiddenRuns(text), JSON.stringify(text)).toEqual(referenceRuns(text));
    }
  });

  it('keeps the legitimate neighbours across surrogate pairs: a joiner between two emoji, a flag tag sequence', () => {
    expect(hiddenRuns('\u{1F469}\u200D\u{1F4BB}')).toEqual([]);
    expect(hiddenRuns('x\u{1F3F4}\u{E0067}\u{E0062}\u{E0077}\u{E006C}\u{E0073}\u{E007F}y')).toEqual([]);
    expect(hiddenRuns('\uFEFFstart')).toEqual([]);
    expect(hiddenRuns('mid\uFEFFdle')).toEqual([{ class: 'zero-width', index: 3, codePoints: [0xfeff], decoded: undefined }]);
  });

  it('finds a hidden character at the end of a large text (what the old split did in seconds)', () => {
    const text = `${'const a = 1;\n'.repeat(400_000)}x\u200By`;
    expect(hiddenRuns(text)).toEqual([{ class: 'zero-width', index: text.length - 2, codePoints: [0x200b], decoded: undefined }]);
  });
});
