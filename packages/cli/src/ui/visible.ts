/**
 * Characters a terminal would not show (or would interpret): control characters, zero-width and bidi format
 * characters, Unicode tag characters, variation selectors and invisible fillers. Evidence about hidden-character
 * attacks must be shown, never replayed, so these become `⟨U+XXXX⟩` markers. ESC is a control character, so an
 * evidence string cannot inject terminal escape sequences either.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}\u{FE00}-\u{FE0F}\u{E0100}-\u{E01EF}\u115F\u1160\u3164\uFFA0]/gu;

export function visible(text: string, options: { keepNewlines?: boolean } = {}): string {
  return text.replace(HIDDEN, (char) => {
    if (char === '\n') return options.keepNewlines ? '\n' : '↵ ';
    if (char === '\t') return options.keepNewlines ? '\t' : ' ';
    const codePoint = char.codePointAt(0) ?? 0;
    return `⟨U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}⟩`;
  });
}
