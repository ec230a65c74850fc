import { describe, expect, it } from 'vitest';
import { unsafeNameCharacter } from './display-text.js';

describe('unsafeNameCharacter', () => {
  it.each([
    ['Acme\r\nBcc: attacker@example.com', 'U+000D'],
    ['deploy\u0000bot', 'U+0000'],
    ['ci\tkey', 'U+0009'],
    ['\u202Egnp.exe', 'U+202E'],
    ['team\u2066x', 'U+2066'],
    ['a\u2028b', 'U+2028'],
    ['esc\u001b[31m', 'U+001B'],
    ['tag\u{E0041}', 'U+E0041'],
  ])('%j holds %s', (name, code) => {
    expect(unsafeNameCharacter(name)).toBe(code);
  });

  it('accepts names in any script, with emoji and accents', () => {
    for (const name of ['Acme Security', 'Équipe sécurité', 'セキュリティ', 'deploy bot 🚀', 'family 👨‍👩‍👧']) expect(unsafeNameCharacter(name)).toBeUndefined();
  });
});
