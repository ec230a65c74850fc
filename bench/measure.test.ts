import { describe, expect, it } from 'vitest';
import { checkTargets, formatMarkdown, formatTable, median, throughput } from './measure.mjs';

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

describe('formatMarkdown', () => {
  it('renders the totals, the target verdicts and one row per package', () => {
    const pass = { ms: 100, filesPerSecond: 10, mibPerSecond: 1, cpuMs: 90 };
    const markdown = formatMarkdown({
      at: '2026-01-02T03:04:05.000Z',
      reps: 3,
      environment: { node: 'v20.0.0', platform: 'linux x64', cpus: 2, cpuModel: 'cpu' },
      totals: {
        packages: 1,
        files: 1,
        mib: 0.01,
        parse: pass,
        fast: { ...pass, ms: 150 },
        deep: { ...pass, ms: 300 },
        ratio: 1.5,
        cpuRatio: 1.4,
        deepRatio: 3,
        deepCpuRatio: 2.9,
        endToEndP50Ms: 200,
        endToEndMaxMs: 200,
        endToEndFetchP50Ms: 80,
        peakRssKiB: 204800,
        loadAverage: { before: 1, after: 1, cpus: 2 },
      },
      targets: checkTargets({ ratio: 2.5, peakRssKiB: 204800, endToEndP50Ms: 200 }),
      packages: [
        {
          package: '@demo/server@1.0.0',
          files: 1,
          kb: 2,
          parseMs: 1,
          fastMs: 1.5,
          ratio: 1.5,
          cpuRatio: 1.4,
          deepMs: 3,
          endToEndMs: 200,
          tools: 4,
          counts: { critical: 0, high: 1, medium: 2, low: 0, info: 0 },
        },
      ],
    });
    expect(markdown).toContain('| fast scan | 150 | 10 | 1 | 1.50 | 90 | 1.40 |');
    expect(markdown).toContain('| fast / parse-only | 2.50 | ≤ 2.0 | **fail** |');
    expect(markdown).toContain('| peak RSS (MiB) | 200 | < 1024 | pass |');
    expect(markdown).toContain('| `@demo/server@1.0.0` | 1 | 2 | 1 | 1.50 | 1.50 | 1.40 | 3 | 200 | 4 | 0/1/2/0/0 |');
  });
});
