import { describe, expect, it } from 'vitest';
import { visible } from './visible.js';

describe('visible', () => {
  it('marks zero-width, bidi, tag and variation-selector characters by code point', () => {
    expect(visible('a\u200Bb')).toBe('a⟨U+200B⟩b');
    expect(visible('x\u202Ey')).toBe('x⟨U+202E⟩y');
    expect(visible('\u{E0041}')).toBe('⟨U+E0041⟩');
    expect(visible('ok\uFE0F')).toBe('ok⟨U+FE0F⟩');
  });

  it('neutralises terminal escape sequences', () => {
    const shown = visible('\u001b[2Jgone');
    expect(shown).toBe('⟨U+001B⟩[2Jgone');
    expect(shown).not.toContain('\u001b');
  });

  it('keeps ordinary text, including non-Latin scripts and emoji, and flattens newlines to one line', () => {
    expect(visible('naïve 東京 🙂')).toBe('naïve 東京 🙂');
    expect(visible('one\ntwo')).toBe('one↵ two');
    expect(visible('one\ntwo', { keepNewlines: true })).toBe('one\ntwo');
  });
});
