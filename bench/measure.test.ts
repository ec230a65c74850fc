import { describe, expect, it } from 'vitest';
import { checkTargets, formatTable, median, throughput } from './measure.mjs';

describe('median', () => {
  it('takes the middle of an odd count and the mean of the middle two of an even count, regardless of order', () => {
    expect(median([30, 10, 20])).toBe(20);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});

describe('throughput', () => {
  it('turns a total time into files and MiB per second', () => {
    expect(throughput(2000, 100, 4 * 1024 * 1024)).toEqual({ ms: 2000, filesPerSecond: 50, mibPerSecond: 2 });
  });
});

describe('checkTargets', () => {
  it('passes inside every target and fails each one separately', () => {
    const inside = checkTargets({ ratio: 1.5, peakRssKiB: 300 * 1024, endToEndP50Ms: 400 });
    expect(inside.map((verdict) => verdict.pass)).toEqual([true, true, true]);
    const outside = checkTargets({ ratio: 2.5, peakRssKiB: 1024 * 1024, endToEndP50Ms: 1000 });
    expect(outside.map((verdict) => verdict.pass)).toEqual([false, false, false]);
    expect(outside[1]?.value).toBe(1024);
  });
});

describe('formatTable', () => {
  it('aligns text left and numbers right under a ruled header', () => {
    const table = formatTable(['name', 'ms'], [['a', 1.5], ['longer', 120]]);
    expect(table.split('\n')).toEqual(['name      ms', '------  ----', 'a       1.50', 'longer   120']);
  });
});
