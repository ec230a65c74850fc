import { describe, expect, it } from 'vitest';
import { wantsColor } from './terminal.js';

describe('wantsColor', () => {
  const tty = { isTTY: true };
  const pipe = { isTTY: false };

  it('colours a terminal by default and a pipe only with FORCE_COLOR', () => {
    expect(wantsColor(tty, true, {})).toBe(true);
    expect(wantsColor(pipe, true, {})).toBe(false);
    expect(wantsColor(pipe, true, { FORCE_COLOR: '1' })).toBe(true);
    expect(wantsColor(pipe, true, { FORCE_COLOR: '0' })).toBe(false);
  });

  it('--no-color and a non-empty NO_COLOR always win', () => {
    expect(wantsColor(tty, false, {})).toBe(false);
    expect(wantsColor(tty, true, { NO_COLOR: '1' })).toBe(false);
    expect(wantsColor(tty, true, { NO_COLOR: '' })).toBe(true);
    expect(wantsColor(tty, false, { FORCE_COLOR: '1' })).toBe(false);
  });
});
