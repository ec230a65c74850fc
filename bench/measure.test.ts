import { describe, expect, it } from 'vitest';
import { checkTargets, formatMarkdown, formatTable, median, percentile, throughput } from './measure.mjs';

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

describe('percentile', () => {
  it('takes the nearest rank', () => {
    const values = Array.from({ length: 20 }, (_, index) => 20 - index);
    expect(percentile(values, 95)).toBe(19);
    expect(percentile(values, 50)).toBe(10);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([], 95)).toBeNaN();
  });
});

describe('checkTargets', () => {
  it('passes inside every target and fails each one separately', () => {
    const inside = checkTargets({ cliOverBare: 1.9, rawTransfer: false, peakRssMiB: 650, endToEndP95Ms: 900 });
    expect(inside.map((verdict) => verdict.pass)).toEqual([true, true, true]);
    const outside = checkTargets({ cliOverBare: 2.1, rawTransfer: false, peakRssMiB: 700, endToEndP95Ms: 1000 });
    expect(outside.map((verdict) => verdict.pass)).toEqual([false, false, false]);
    expect(outside[1]?.value).toBe(700);
  });

  it('holds runtimes with raw transfer to the tighter ratio', () => {
    expect(checkTargets({ cliOverBare: 1.9, rawTransfer: true, peakRssMiB: 100, endToEndP95Ms: 100 })[0]).toMatchObject({ target: '≤ 1.5', pass: false });
    expect(checkTargets({ cliOverBare: 1.4, rawTransfer: true, peakRssMiB: 100, endToEndP95Ms: 100 })[0]?.pass).toBe(true);
  });
});

describe('formatTable', () => {
  it('aligns text left and numbers right under a ruled header', () => {
    const table = formatTable(['name', 'ms'], [['a', 1.5], ['longer', 120]]);
    expect(table.split('\n')).toEqual(['name      ms', '------  ----', 'a       1.50', 'longer   120']);
  });
});

describe('formatMarkdown', () => {
  it('renders the user run against both floors, the target verdicts, the in-process totals and one row per package', () => {
    const pass = { ms: 100, filesPerSecond: 10, mibPerSecond: 1, cpuMs: 90 };
    const markdown = formatMarkdown({
      at: '2026-01-02T03:04:05.000Z',
      reps: 3,
      environment: { node: 'v22.0.0', platform: 'linux x64', cpus: 2, cpuModel: 'cpu', rawTransfer: true },
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
        endToEndP95Ms: 400,
        endToEndMaxMs: 450,
        endToEndFetchP50Ms: 80,
        inProcessPeakRssKiB: 204800,
        loadAverage: { before: 1, after: 1, cpus: 2 },
      },
      userRun: {
        targets: 1,
        files: 1,
        mib: 0.01,
        rows: [
          { name: 'bare parse', wallMs: 1000, cpuMs: 900, peakRssMiB: 120, overBare: 1, cpuOverBare: 1, overMaterialise: 0.5 },
          { name: 'parse + materialise', wallMs: 2000, cpuMs: 2100, peakRssMiB: 300, overBare: 2, cpuOverBare: 2.33, overMaterialise: 1 },
          { name: 'svc scan', wallMs: 1800, cpuMs: 2500, peakRssMiB: 600, overBare: 1.8, cpuOverBare: 2.78, overMaterialise: 0.9 },
        ],
      },
      targets: checkTargets({ cliOverBare: 1.8, rawTransfer: true, peakRssMiB: 600, endToEndP95Ms: 400 }),
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
    expect(markdown).toContain('v22.0.0 (oxc raw transfer)');
    expect(markdown).toContain('| svc scan | 1800 | 2500 | 600 | 1.80 | 2.78 | 0.90 |');
    expect(markdown).toContain('| svc scan / bare parse (wall) | 1.80 | ≤ 1.5 | **fail** |');
    expect(markdown).toContain('| svc scan peak RSS (MiB) | 600 | < 700 | pass |');
    expect(markdown).toContain('| fast scan | 150 | 10 | 1 | 1.50 | 90 | 1.40 |');
    expect(markdown).toContain('| `@demo/server@1.0.0` | 1 | 2 | 1 | 1.50 | 1.50 | 1.40 | 3 | 200 | 4 | 0/1/2/0/0 |');
  });
});
