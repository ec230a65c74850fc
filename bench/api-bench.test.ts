import { describe, expect, it } from 'vitest';
import {
  apiVerdicts,
  checkBudget,
  connectionSpread,
  EDGE_LIMIT,
  formatApiMarkdown,
  formatStatuses,
  latencySummary,
  percentile,
  type PhaseResult,
} from './api-bench.mjs';

function phase(overrides: Partial<PhaseResult> & Pick<PhaseResult, 'id' | 'connections'>): PhaseResult {
  return {
    label: overrides.id,
    requests: 6000,
    requestsPerSecond: 1000,
    latency: latencySummary([1, 2, 3]),
    statuses: { '200': 6000 },
    expected: [200],
    errors: 0,
    timeouts: 0,
    fairness: connectionSpread([
      [5, 1, 1],
      [5, 1, 1],
    ]),
    ...overrides,
  };
}

describe('percentile and latencySummary', () => {
  it('takes the nearest rank, so p99 of 100 values is the 99th and p50 of an even count is the lower middle', () => {
    const values = Array.from({ length: 100 }, (_, index) => index + 1);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([], 50)).toBeNaN();
  });

  it('sorts its input and rounds to 0.01 ms', () => {
    expect(latencySummary([3.333, 1.111, 2.222, 10.456])).toEqual({ count: 4, p50: 2.22, p90: 10.46, p99: 10.46, max: 10.46, mean: 4.28 });
  });
});

describe('connectionSpread', () => {
  it('keeps each connection’s first answer apart from its steady-state answers', () => {
    const spread = connectionSpread([
      [900, 2, 2, 2],
      [4, 4, 4, 4],
      [3, 2, 2],
    ]);
    expect(spread.firstAnswer).toMatchObject({ count: 3, max: 900 });
    expect(spread.steady).toMatchObject({ count: 8, max: 4 });
    expect(spread).toMatchObject({ connections: 3, minRequests: 3, maxRequests: 4, fastestP50: 2, slowestP50: 4, p50Spread: 2 });
  });

  it('counts a connection that was never answered', () => {
    expect(connectionSpread([[1, 1], []])).toMatchObject({ minRequests: 0, maxRequests: 2 });
  });
});

describe('formatStatuses', () => {
  it('lists status codes in numeric order', () => {
    expect(formatStatuses({ '429': 5970, '202': 30 })).toBe('202×30 429×5970');
  });
});

describe('checkBudget', () => {
  it('refuses a plan that would run one credential into the edge rule', () => {
    expect(() => checkBudget({ warmup: 1000, requests: 6000 })).not.toThrow();
    expect(() => checkBudget({ warmup: 1000, requests: EDGE_LIMIT - 1000 })).toThrow(/edge rule/);
  });
});

describe('apiVerdicts', () => {
  const plan = { connections: 10, highConnections: 100 };
  const passing = [
    phase({ id: 'bare-get', connections: 10, requestsPerSecond: 4000 }),
    phase({ id: 'read', connections: 10, requestsPerSecond: 2000, latency: { ...latencySummary([1]), p99: 9.9 } }),
    phase({ id: 'read', connections: 100 }),
    phase({ id: 'submit', connections: 100, statuses: { '202': 30, '429': 5970 }, expected: [202, 429] }),
  ];

  it('passes when the read keeps half the bare rate under 10 ms p99 and the high count serves everyone alike', () => {
    const verdicts = apiVerdicts(passing, plan);
    expect(verdicts.map((verdict) => verdict.pass)).toEqual([true, true, true, true, true]);
    expect(verdicts[0]?.value).toBe(0.5);
  });

  it('fails each target on its own', () => {
    const slow = passing.map((row) => (row.id === 'read' && row.connections === 10 ? { ...row, requestsPerSecond: 1000, latency: { ...row.latency, p99: 10 } } : row));
    expect(apiVerdicts(slow, plan).map((verdict) => verdict.pass)).toEqual([false, false, true, true, true]);

    const broken = passing.map((row) =>
      row.connections === 100 ? { ...row, errors: 1, timeouts: 1, statuses: { ...row.statuses, '500': 1 }, fairness: connectionSpread([[1, 1, 1, 1], [1, 1, 1, 4]]) } : row,
    );
    expect(apiVerdicts(broken, plan).map((verdict) => verdict.pass)).toEqual([true, true, false, false, false]);
  });

  it('judges the queuing of the daemon’s routes, not the bare baseline’s', () => {
    const bareTail = [...passing, phase({ id: 'bare-get', kind: 'bare', connections: 100, fairness: connectionSpread([[1, 1, 1, 1], [1, 1, 1, 9]]) })];
    expect(apiVerdicts(bareTail, plan)[4]).toMatchObject({ pass: true, value: 1 });
  });

  it('fails the queuing target when a connection is left without answers', () => {
    const starved = passing.map((row) => (row.id === 'submit' ? { ...row, fairness: connectionSpread([[1, 1, 1], []]) } : row));
    expect(apiVerdicts(starved, plan)[4]?.pass).toBe(false);
  });

  it('fails rather than passes when the phases it judges are missing', () => {
    expect(apiVerdicts([], plan).some((verdict) => verdict.pass)).toBe(false);
  });
});

describe('formatApiMarkdown', () => {
  it('renders the run as Markdown tables with the targets’ results', () => {
    const phases = [phase({ id: 'bare-get', connections: 10 }), phase({ id: 'read', connections: 10, vsBare: 0.42, serverCpuMicrosPerRequest: 500 })];
    const markdown = formatApiMarkdown({
      at: '2026-11-23T06:30:00.000Z',
      environment: { node: 'v20.20.2', platform: 'linux x64', cpus: 2, cpuModel: 'EPYC' },
      load: { before: 1.5, after: 2 },
      plan: { warmup: 1000, requests: 6000 },
      phases,
      targets: apiVerdicts(phases, { connections: 10, highConnections: 100 }),
    });
    expect(markdown).toContain('Run of 2026-11-23 06:30 UTC: v20.20.2, linux x64, 2 × EPYC; 1-min load 1.5 → 2');
    expect(markdown).toContain('| read | 10 | 6000 | 1000 | 2 | 3 | 3 | 200×6000 | 0 | 0 | 0.42 | 500 |');
    expect(markdown).toContain('| read req/s vs bare GET (10 conns) | 1 | ≥ 0.5 | pass |');
    expect(markdown).toContain('**fail**');
  });
});
