// The few decoding operations an obfuscated loader builds its payload with (base64, hex, char codes, reversal, XOR with a
// constant key, rot13), as pure functions over literal inputs. Both analyzers evaluate them on constants of the scanned
// code so a finding can show the decoded text; nothing of the scanned code runs, and every input and output is bounded.

/** Longest input or output handled: a loader's payload is small, and a larger literal is data, not a dropper. */
export const MAX_DECODED = 64 * 1024;

/** What a loader's decoded value can be: text, or a list of character / byte codes still to be turned into text. */
export type Decoded = string | number[];

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const HEX = /^(?:[0-9a-fA-F]{2})*$/;

export function decodeBase64(text: string): string | undefined {
  const compact = text.replace(/\s+/g, '');
  if (compact.length > MAX_DECODED || !BASE64.test(compact)) return undefined;
  return Buffer.from(compact, compact.includes('-') || compact.includes('_') ? 'base64url' : 'base64').toString('utf8');
}

export function decodeHex(text: string): string | undefined {
  const compact = text.replace(/\s+|\\x|0x/g, '');
  if (compact.length > MAX_DECODED || !HEX.test(compact)) return undefined;
  return Buffer.from(compact, 'hex').toString('utf8');
}

export function rot13(text: string): string {
  return text.replace(/[a-z]/gi, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

export function reversed(value: Decoded): Decoded {
  return typeof value === 'string' ? [...value].reverse().join('') : [...value].reverse();
}

/** Character codes to text; undefined for values no code point has (so a wrong guess stays undecoded). */
export function fromCodes(codes: readonly number[]): string | undefined {
  if (codes.length > MAX_DECODED || !codes.every((code) => Number.isInteger(code) && code >= 0 && code <= 0x10ffff)) return undefined;
  let text = '';
  for (let start = 0; start < codes.length; start += 4096) text += String.fromCodePoint(...codes.slice(start, start + 4096));
  return text;
}

export function codesOf(text: string): number[] | undefined {
  return text.length > MAX_DECODED ? undefined : [...text].map((c) => c.codePointAt(0) ?? 0);
}

/** The integer operators a char-code decoder uses (`c ^ key`, `c - 3`, `(c + k) % 256`). */
export function arithmetic(operator: string, left: number, right: number): number | undefined {
  switch (operator) {
    case '^':
      return left ^ right;
    case '+':
      return left + right;
    case '-':
      return left - right;
    case '%':
      return right === 0 ? undefined : left % right;
    case '&':
      return left & right;
    case '|':
      return left | right;
    default:
      return undefined;
  }
}

/** The decoded text as a finding shows it: cut, so a large payload does not fill the report. */
export function shownDecoded(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
