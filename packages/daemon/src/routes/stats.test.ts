import { CATEGORIES, getRule, RULES } from '@svc/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { minute, seedScan } from '../test/seed.js';
import { startTestServer, type TestServer } from '../test/server.js';

let server: TestServer;
const hidden: string[] = [];
const ids: Record<string, string> = {};

interface ErrorBody {
  success: false;
  error: { code: string; details?: Record<string, unknown> };
}

async function json<T>(path: string): Promise<T> {
  const response = await fetch(`${server.url}${path}`);
  const text = await response.text();
  expect(response.status, `${path}: ${text}`).toBe(200);
  for (const id of hidden) expect(text, `${path} leaks ${id}`).not.toContain(id);
  return JSON.parse(text) as T;
}

async function expectError(path: string, status: number, code: string, field?: string): Promise<void> {
  const response = await fetch(`${server.url}${path}`);
  expect(response.status, path).toBe(status);
  const body = (await response.json()) as ErrorBody;
  expect(body.success).toBe(false);
  expect(body.error.code).toBe(code);
  if (field !== undefined) expect(body.error.details?.['field'], path).toBe(field);
}

interface Stats {
  packages_scanned: number;
  scans_completed: number;
  rules_live: number;
  findings_by_severity: Record<string, number>;
  findings_by_category: Record<string, number>;
  grade_distribution: Record<string, number>;
  updated_at: string | null;
}

interface StateOfMcp {
  period: { from: string | null; to: string | null; since: string | null };
  packages_analysed: number;
  packages_with_critical_or_high: number;
  share_with_critical_or_high: number;
  average_score: number | null;
  grade_distribution: Record<string, number>;
  severity_breakdown: { severity: string; findings: number; packages_affected: number }[];
  category_breakdown: { category: string; findings: number; packages_affected: number }[];
  top_rules: { rule_id: string; title: string; category: string; severity: string | null; packages_affected: number; findings: number }[];
  generated_at: string;
}

const done = (n: number) => new Date(minute(n).getTime() + 60_000).toISOString();

describe('statistics over seeded scans', () => {
  beforeAll(async () => {
    server = await startTestServer();
    const s = server.services;
    // alpha: an old scan with a critical finding, then a clean latest one; only the latest counts.
    ids['alphaOld'] = await seedScan(s, { kind: 'npm', name: 'alpha', version: '1.0.0', rules: ['command-injection'], at: minute(0) });
    ids['alpha'] = await seedScan(s, { kind: 'npm', name: 'alpha', version: '1.1.0', at: minute(100) });
    ids['beta'] = await seedScan(s, { kind: 'npm', name: 'beta', version: '2.0.0', rules: ['hardcoded-secret', 'hardcoded-secret', 'ssrf'], at: minute(10) });
    ids['gamma'] = await seedScan(s, { kind: 'pypi', name: 'gamma', version: '0.1', rules: ['ssrf', 'command-injection'], at: minute(200) });
    ids['delta'] = await seedScan(s, { kind: 'git', name: 'owner/delta', rules: ['cors-wildcard'], at: minute(300) });
    // Public but not a registry package: counts in scans_completed only.
    ids['dir'] = await seedScan(s, { kind: 'directory', name: 'my-dir', rules: ['path-traversal'], at: minute(400) });
    hidden.push(
      await seedScan(s, { kind: 'npm', name: 'secret', version: '1.0.0', rules: ['sql-injection'], at: minute(500), visibility: 'private' }),
      await seedScan(s, { kind: 'npm', name: 'beta', version: '9.0.0', rules: ['sql-injection'], at: minute(501), visibility: 'private' }),
      await seedScan(s, { kind: 'npm', name: 'failing', version: '1.0.0', at: minute(502), state: 'failed' }),
      await seedScan(s, { kind: 'npm', name: 'alpha', version: '5.0.0', at: minute(503), state: 'running' }),
      await seedScan(s, { kind: 'npm', name: 'queued', version: '1.0.0', at: minute(504), state: 'queued' }),
    );
  });
  afterAll(async () => {
    await server.close();
  });

  it('GET /api/v1/stats counts packages, public scans, live rules and the latest scan of each package', async () => {
    const stats = await json<Stats>('/api/v1/stats');
    expect(stats).not.toHaveProperty('success');
    const scores = await Promise.all(['npm/alpha', 'npm/beta', 'pypi/gamma', 'git/owner%2Fdelta'].map(async (p) => (await json<{ grade: string }>(`/api/v1/registry/${p}`)).grade));
    const grades = { A: 0, B: 0, C: 0, D: 0, F: 0 } as Record<string, number>;
    for (const grade of scores) grades[grade] = (grades[grade] ?? 0) + 1;
    expect(stats).toEqual({
      packages_scanned: 4,
      scans_completed: 6,
      rules_live: RULES.length,
      // alpha's old critical no longer counts; beta's private 9.0.0 never did.
      findings_by_severity: { critical: 1, high: 2, medium: 3, low: 0, info: 0 },
      findings_by_category: {
        ...Object.fromEntries(CATEGORIES.map((category) => [category, 0])),
        'command-injection': 1,
        secrets: 2,
        ssrf: 2,
        'insecure-transport': 1,
      },
      grade_distribution: grades,
      updated_at: done(400),
    });
    expect(stats.rules_live).toBeGreaterThan(10);
  });

  it('GET /api/v1/stats/state-of-mcp reports over all data', async () => {
    const report = await json<StateOfMcp>('/api/v1/stats/state-of-mcp');
    const scores = await Promise.all(['npm/alpha', 'npm/beta', 'pypi/gamma', 'git/owner%2Fdelta'].map(async (p) => (await json<{ score: number }>(`/api/v1/registry/${p}`)).score));
    expect(report.period).toEqual({ from: done(10), to: done(300), since: null });
    expect(report.packages_analysed).toBe(4);
    // beta (high) and gamma (critical); alpha's latest scan is clean.
    expect(report.packages_with_critical_or_high).toBe(2);
    expect(report.share_with_critical_or_high).toBe(0.5);
    expect(report.average_score).toBe(Math.round((scores.reduce((a, b) => a + b, 0) / 4) * 10) / 10);
    expect(Object.values(report.grade_distribution).reduce((a, b) => a + b, 0)).toBe(4);
    expect(report.top_rules[0]).toEqual({
      rule_id: 'ssrf',
      title: getRule('ssrf')?.meta.title,
      category: 'ssrf',
      severity: 'medium',
      packages_affected: 2,
      findings: 2,
    });
    expect(report.top_rules.map((rule) => rule.rule_id)).toEqual(['ssrf', 'hardcoded-secret', 'command-injection', 'cors-wildcard']);
    expect(report.top_rules.map((rule) => rule.rule_id)).not.toContain('sql-injection');
    expect(report.top_rules.map((rule) => rule.rule_id)).not.toContain('path-traversal');
    expect(report.category_breakdown).toEqual([
      { category: 'secrets', findings: 2, packages_affected: 1 },
      { category: 'ssrf', findings: 2, packages_affected: 2 },
      { category: 'command-injection', findings: 1, packages_affected: 1 },
      { category: 'insecure-transport', findings: 1, packages_affected: 1 },
    ]);
    expect(report.severity_breakdown).toEqual([
      { severity: 'medium', findings: 3, packages_affected: 3 },
      { severity: 'high', findings: 2, packages_affected: 1 },
      { severity: 'critical', findings: 1, packages_affected: 1 },
    ]);
    expect(Date.parse(report.generated_at)).toBeGreaterThan(0);
  });

  it('limits state-of-mcp to scans since a date and refuses a bad one', async () => {
    const since = minute(150).toISOString();
    const report = await json<StateOfMcp>(`/api/v1/stats/state-of-mcp?since=${encodeURIComponent(since)}`);
    expect(report.period).toEqual({ from: since, to: done(300), since });
    expect(report.packages_analysed).toBe(2);
    expect(report.top_rules.map((rule) => rule.rule_id)).toEqual(['command-injection', 'cors-wildcard', 'ssrf']);

    const day = await json<StateOfMcp>('/api/v1/stats/state-of-mcp?since=2026-11-01');
    expect(day.period.since).toBe('2026-11-01T00:00:00.000Z');
    expect(day.packages_analysed).toBe(4);
    const future = await json<StateOfMcp>('/api/v1/stats/state-of-mcp?since=2999-01-01');
    expect(future).toMatchObject({ packages_analysed: 0, share_with_critical_or_high: 0, average_score: null, top_rules: [], period: { from: '2999-01-01T00:00:00.000Z', to: null } });

    for (const bad of ['yesterday', '2026-13-01', '2026-02-30T00:00', '1700000000', '']) {
      await expectError(`/api/v1/stats/state-of-mcp?since=${encodeURIComponent(bad)}`, 400, 'INVALID_FIELD', 'since');
    }
  });

  it('GET /versions answers the envelope with every publicly scanned version, newest first', async () => {
    const response = await fetch(`${server.url}/versions?source=npm&package=alpha`);
    expect(response.status).toBe(200);
    const text = await response.text();
    for (const id of hidden) expect(text).not.toContain(id);
    const body = JSON.parse(text) as { success: true; data: { source: string; package: string; versions: { version: string; scan_id: string; scans: number; scanned_at: string; score: number; grade: string }[] } };
    expect(body.success).toBe(true);
    expect(body.data).toEqual({
      source: 'npm',
      package: 'alpha',
      versions: [
        // The seeded versions list the same tools; the newer one lost the old one's finding, so nothing is new.
        { version: '1.1.0', scan_id: ids['alpha'], score: 100, grade: 'A', scanned_at: done(100), scans: 1, changes: { from_version: '1.0.0', added: [], removed: [], changed: [], new_findings: [] } },
        { version: '1.0.0', scan_id: ids['alphaOld'], score: expect.any(Number) as number, grade: expect.any(String) as string, scanned_at: done(0), scans: 1, changes: null },
      ],
    });
    const beta = (await json<{ data: { versions: { version: string }[] } }>('/versions?source=npm&package=beta')).data;
    expect(beta.versions.map((v) => v.version)).toEqual(['2.0.0']);
  });

  it('GET /versions refuses missing parameters and does not know private or unfinished packages', async () => {
    await expectError('/versions', 400, 'INVALID_FIELD');
    await expectError('/versions?package=alpha', 400, 'INVALID_FIELD', 'source');
    await expectError('/versions?source=npm', 400, 'INVALID_FIELD', 'package');
    await expectError('/versions?source=npm&package=', 400, 'INVALID_FIELD', 'package');
    await expectError('/versions?source=cargo&package=alpha', 400, 'INVALID_FIELD', 'source');
    for (const name of ['secret', 'failing', 'queued', 'nope', 'my-dir']) await expectError(`/versions?source=npm&package=${name}`, 404, 'NOT_FOUND');
  });
});

describe('statistics of an empty daemon', () => {
  beforeEach(async () => {
    server = await startTestServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('answers zeros, nulls and every key', async () => {
    const stats = await json<Stats>('/api/v1/stats');
    expect(stats).toEqual({
      packages_scanned: 0,
      scans_completed: 0,
      rules_live: RULES.length,
      findings_by_severity: { critical: 0, high: 0, medium: 0, low: 0, info: 0 },
      findings_by_category: Object.fromEntries(CATEGORIES.map((category) => [category, 0])),
      grade_distribution: { A: 0, B: 0, C: 0, D: 0, F: 0 },
      updated_at: null,
    });
    const report = await json<StateOfMcp>('/api/v1/stats/state-of-mcp');
    expect(report).toMatchObject({ period: { from: null, to: null, since: null }, packages_analysed: 0, share_with_critical_or_high: 0, average_score: null, top_rules: [] });
    expect((await json<{ items: unknown[]; next_cursor: null }>('/api/v1/registry')).items).toEqual([]);
    expect((await json<{ items: unknown[] }>('/api/v1/scans/recent')).items).toEqual([]);
  });
});
