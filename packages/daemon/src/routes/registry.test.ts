import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REGISTRY_SORTS } from '../store/registry.js';
import { minute, seedScan } from '../test/seed.js';
import { startTestServer, type TestServer } from '../test/server.js';

let server: TestServer;
/** Scan ids that must never appear in any public answer. */
const hidden: string[] = [];
let ids: Record<string, string> = {};

interface ErrorBody {
  success: false;
  error: { code: string; message: string; details?: Record<string, unknown> };
}
interface Entry {
  source: string;
  package: string;
  version: string | null;
  scan_id: string;
  mode: string;
  score: number;
  grade: string;
  counts: Record<string, number>;
  findings_count: number;
  tools_count: number;
  scanned_at: string;
  scans: number;
}
interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.url}${path}`, { headers });

async function json<T>(path: string, headers: Record<string, string> = {}): Promise<T> {
  const response = await get(path, headers);
  const text = await response.text();
  expect(response.status, `${path}: ${text}`).toBe(200);
  expect(response.headers.get('content-type')).toContain('application/json');
  const body = JSON.parse(text) as T;
  // /api/v1 success bodies are bare data, never the envelope.
  expect(body).not.toHaveProperty('success');
  for (const id of hidden) expect(text, `${path} leaks ${id}`).not.toContain(id);
  return body;
}

async function expectError(path: string, status: number, code: string, field?: string, headers: Record<string, string> = {}): Promise<ErrorBody['error']> {
  const response = await get(path, headers);
  expect(response.status, path).toBe(status);
  const body = (await response.json()) as ErrorBody;
  expect(body.success).toBe(false);
  expect(body.error.code).toBe(code);
  if (field !== undefined) expect(body.error.details?.['field'], path).toBe(field);
  return body.error;
}

/** Every item of a list, following next_cursor with small pages. */
async function walk<T>(path: string, limit: number): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const page: Page<T> = await json<Page<T>>(`${path}${separator}limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
    expect(page.items.length).toBeLessThanOrEqual(limit);
    items.push(...page.items);
    cursor = page.next_cursor;
    pages++;
  } while (cursor !== null && pages < 50);
  return { items, pages };
}

beforeAll(async () => {
  server = await startTestServer();
  const s = server.services;
  const owner = await s.users.create({ email: `owner-${randomUUID()}@example.com`, tier: 'dev', now: minute(0) });
  ids = {
    alpha1: await seedScan(s, { kind: 'npm', name: 'alpha', version: '1.0.0', at: minute(0), userId: owner.id }),
    beta: await seedScan(s, { kind: 'npm', name: '@scope/beta', version: '2.0.0', rules: ['hardcoded-secret', 'hardcoded-secret', 'ssrf'], at: minute(5) }),
    gamma: await seedScan(s, { kind: 'pypi', name: 'Gamma_Pkg', version: '0.1', rules: ['ssrf'], at: minute(6) }),
    delta: await seedScan(s, { kind: 'git', name: 'owner/delta', rules: ['path-traversal'], at: minute(7), mode: 'deep' }),
    under: await seedScan(s, { kind: 'npm', name: 'under_score', version: '1.0.0', at: minute(8) }),
    underX: await seedScan(s, { kind: 'npm', name: 'underXscore', version: '1.0.0', rules: ['cors-wildcard'], at: minute(9) }),
    alpha2: await seedScan(s, { kind: 'npm', name: 'alpha', version: '1.1.0', rules: ['command-injection', 'ssrf', 'ssrf'], at: minute(10), userId: owner.id }),
    alpha2again: await seedScan(s, { kind: 'npm', name: 'alpha', version: '1.1.0', rules: ['command-injection', 'ssrf'], at: minute(11) }),
    dir: await seedScan(s, { kind: 'directory', name: 'my-dir', at: minute(12), visibility: 'public' }),
  };
  // Private scans, also of a public package and newer than its public ones, and unfinished ones: never shown.
  hidden.push(
    await seedScan(s, { kind: 'npm', name: 'secret-pkg', version: '1.0.0', at: minute(13), visibility: 'private', userId: owner.id }),
    await seedScan(s, { kind: 'npm', name: 'alpha', version: '9.9.9', rules: ['sql-injection'], at: minute(14), visibility: 'private', userId: owner.id }),
    await seedScan(s, { kind: 'npm', name: 'broken-pkg', version: '1.0.0', at: minute(15), state: 'failed' }),
    await seedScan(s, { kind: 'npm', name: 'alpha', version: '3.0.0', at: minute(16), state: 'running' }),
    await seedScan(s, { kind: 'npm', name: 'pending-pkg', version: '1.0.0', at: minute(17), state: 'queued' }),
  );
  hidden.push(owner.id);
});
afterAll(async () => {
  await server.close();
});

describe('GET /api/v1/registry', () => {
  it('lists one entry per package from its latest completed public scan, newest first', async () => {
    const page = await json<Page<Entry>>('/api/v1/registry');
    expect(page.next_cursor).toBeNull();
    expect(page.items.map((item) => `${item.source}:${item.package}`)).toEqual([
      'npm:alpha',
      'npm:underXscore',
      'npm:under_score',
      'git:owner/delta',
      'pypi:Gamma_Pkg',
      'npm:@scope/beta',
    ]);
    const alpha = page.items[0];
    expect(alpha).toEqual({
      source: 'npm',
      package: 'alpha',
      version: '1.1.0',
      scan_id: ids['alpha2again'],
      mode: 'fast',
      score: expect.any(Number) as number,
      grade: expect.stringMatching(/^[A-F]$/) as string,
      counts: { critical: 1, high: 0, medium: 1, low: 0, info: 0 },
      findings_count: 2,
      tools_count: 2,
      scanned_at: new Date(minute(11).getTime() + 60_000).toISOString(),
      scans: 3,
    });
    expect(page.items.find((item) => item.package === 'owner/delta')).toMatchObject({ version: null, mode: 'deep' });
  });

  it('filters by source, grade and a literal, case-insensitive name substring', async () => {
    const names = async (query: string) => (await json<Page<Entry>>(`/api/v1/registry?${query}`)).items.map((item) => item.package);
    expect(await names('source=pypi')).toEqual(['Gamma_Pkg']);
    expect(await names('source=git')).toEqual(['owner/delta']);
    expect(await names('q=GAMMA')).toEqual(['Gamma_Pkg']);
    expect(await names('q=ALPH')).toEqual(['alpha']);
    // _ and % are not wildcards.
    expect(await names('q=under_')).toEqual(['under_score']);
    expect(await names('q=%25')).toEqual([]);
    expect(await names(`q=${encodeURIComponent('@scope/')}`)).toEqual(['@scope/beta']);
    expect(await names('q=secret')).toEqual([]);
    expect(await names('q=pending')).toEqual([]);
    const all = await json<Page<Entry>>('/api/v1/registry?sort=name');
    for (const grade of ['A', 'B', 'C', 'D', 'F']) {
      const expected = all.items.filter((item) => item.grade === grade).map((item) => item.package);
      expect(await names(`grade=${grade}&sort=name`)).toEqual(expected);
    }
    expect(await names('source=npm&q=under&sort=name')).toEqual(['underXscore', 'under_score']);
  });

  it('sorts by name, best and worst with a unique tie-break', async () => {
    const list = async (sort: string) => (await json<Page<Entry>>(`/api/v1/registry?sort=${sort}`)).items;
    expect((await list('name')).map((item) => item.package)).toEqual(['@scope/beta', 'Gamma_Pkg', 'alpha', 'owner/delta', 'underXscore', 'under_score']);
    const best = await list('best');
    const worst = await list('worst');
    for (let i = 1; i < best.length; i++) expect(best[i - 1]?.score ?? 0).toBeGreaterThanOrEqual(best[i]?.score ?? 0);
    for (let i = 1; i < worst.length; i++) expect(worst[i - 1]?.score ?? 0).toBeLessThanOrEqual(worst[i]?.score ?? 0);
    // Packages with equal scores are ordered by name in both directions.
    const perfect = best.filter((item) => item.score === 100).map((item) => item.package);
    expect(perfect).toEqual(['under_score']);
    expect(worst.at(-1)?.package).toBe('under_score');
    expect(worst[0]?.package).toBe('alpha');
  });

  it('pages through every sort without gaps or repeats', async () => {
    for (const sort of REGISTRY_SORTS) {
      const whole = (await json<Page<Entry>>(`/api/v1/registry?sort=${sort}&limit=100`)).items;
      for (const limit of [1, 2, 4]) {
        const { items, pages } = await walk<Entry>(`/api/v1/registry?sort=${sort}`, limit);
        expect(items.map((item) => item.scan_id), `${sort}/${limit}`).toEqual(whole.map((item) => item.scan_id));
        expect(pages).toBe(Math.ceil(whole.length / limit));
      }
    }
    // Filters still apply on later pages.
    const { items } = await walk<Entry>('/api/v1/registry?source=npm&sort=name', 1);
    expect(items.map((item) => item.package)).toEqual(['@scope/beta', 'alpha', 'underXscore', 'under_score']);
  });

  it('keeps a cursor stable while new scans arrive', async () => {
    const local = await startTestServer();
    try {
      const s = local.services;
      for (let i = 0; i < 6; i++) await seedScan(s, { kind: 'npm', name: `pkg-${i}`, version: '1.0.0', at: minute(i) });
      const first = (await (await fetch(`${local.url}/api/v1/registry?limit=3`)).json()) as Page<Entry>;
      expect(first.items.map((item) => item.package)).toEqual(['pkg-5', 'pkg-4', 'pkg-3']);
      // A new package and a rescan of one already shown both go to the front, not into the next page.
      await seedScan(s, { kind: 'npm', name: 'pkg-new', version: '1.0.0', at: minute(30) });
      await seedScan(s, { kind: 'npm', name: 'pkg-4', version: '1.0.1', at: minute(31) });
      const second = (await (await fetch(`${local.url}/api/v1/registry?limit=3&cursor=${encodeURIComponent(first.next_cursor ?? '')}`)).json()) as Page<Entry>;
      expect(second.items.map((item) => item.package)).toEqual(['pkg-2', 'pkg-1', 'pkg-0']);
      expect(second.next_cursor).toBeNull();
    } finally {
      await local.close();
    }
  });

  it('picks the latest scan deterministically when two finish in the same millisecond', async () => {
    const local = await startTestServer();
    try {
      const first = await seedScan(local.services, { kind: 'npm', name: 'tie', version: '1.0.0', at: minute(3) });
      const second = await seedScan(local.services, { kind: 'npm', name: 'tie', version: '1.0.1', rules: ['ssrf'], at: minute(3) });
      const later = [first, second].sort().at(-1);
      for (let i = 0; i < 3; i++) {
        const page = (await (await fetch(`${local.url}/api/v1/registry`)).json()) as Page<Entry>;
        expect(page.items).toHaveLength(1);
        expect(page.items[0]).toMatchObject({ scan_id: later, scans: 2 });
        const recent = (await (await fetch(`${local.url}/api/v1/scans/recent`)).json()) as Page<{ id: string }>;
        expect(recent.items.map((item) => item.id)).toEqual([first, second].sort().reverse());
      }
    } finally {
      await local.close();
    }
  });

  it('refuses malformed, altered and foreign cursors with INVALID_FIELD cursor', async () => {
    const page = await json<Page<Entry>>('/api/v1/registry?limit=2&sort=name');
    const cursor = page.next_cursor ?? '';
    expect(cursor).toMatch(/^[\w-]+\.[\w-]+$/);
    expect((await get(`/api/v1/registry?limit=2&sort=name&cursor=${cursor}`)).status).toBe(200);
    const [payload = '', signature = ''] = cursor.split('.');
    // The same position with a forged sort: well-formed JSON, but the signature no longer matches.
    const forged = Buffer.from(Buffer.from(payload, 'base64url').toString().replace('registry:name', 'registry:best')).toString('base64url');
    const flipped = `${payload.slice(0, 5)}${payload[5] === 'A' ? 'B' : 'A'}${payload.slice(6)}`;
    for (const bad of ['abc', 'abc.def', `${payload}.`, `${payload}.${signature}.x`, `${forged}.${signature}`, `${flipped}.${signature}`, '%%%', 'x'.repeat(2000)]) {
      await expectError(`/api/v1/registry?sort=name&cursor=${encodeURIComponent(bad)}`, 400, 'INVALID_FIELD', 'cursor');
    }
    const error = await expectError(`/api/v1/registry?sort=best&cursor=${cursor}`, 400, 'INVALID_FIELD', 'cursor');
    expect(error.message).toContain('registry:name');
    const recent = (await json<Page<unknown>>('/api/v1/scans/recent?limit=1')).next_cursor ?? '';
    await expectError(`/api/v1/registry?cursor=${recent}`, 400, 'INVALID_FIELD', 'cursor');
    await expectError(`/api/v1/scans/recent?cursor=${cursor}`, 400, 'INVALID_FIELD', 'cursor');
  });

  it('refuses bad query parameters naming the field', async () => {
    const cases: [string, string][] = [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=2.5', 'limit'],
      ['source=maven', 'source'],
      ['grade=E', 'grade'],
      ['sort=random', 'sort'],
      [`q=${'x'.repeat(201)}`, 'q'],
    ];
    for (const [query, field] of cases) await expectError(`/api/v1/registry?${query}`, 400, 'INVALID_FIELD', field);
  });
});

interface RecordBody extends Entry {
  versions: { version: string | null; scan_id: string; score: number; grade: string; scanned_at: string; scans: number }[];
  top_findings: { rule_id: string; title: string; category: string; severity: string; count: number }[];
}

describe('GET /api/v1/registry/{source}/{package}', () => {
  it('returns the latest summary, the versions and the top findings', async () => {
    const record = await json<RecordBody>('/api/v1/registry/npm/alpha');
    expect(record).toMatchObject({ source: 'npm', package: 'alpha', version: '1.1.0', scan_id: ids['alpha2again'], scans: 3 });
    expect(record.versions).toEqual([
      { version: '1.1.0', scan_id: ids['alpha2again'], score: record.score, grade: record.grade, scanned_at: record.scanned_at, scans: 2 },
      { version: '1.0.0', scan_id: ids['alpha1'], score: 100, grade: 'A', scanned_at: new Date(minute(0).getTime() + 60_000).toISOString(), scans: 1 },
    ]);
    expect(record.top_findings).toEqual([
      { rule_id: 'command-injection', title: expect.any(String) as string, category: 'command-injection', severity: 'critical', count: 1 },
      { rule_id: 'ssrf', title: expect.any(String) as string, category: 'ssrf', severity: 'medium', count: 1 },
    ]);
    expect(record.top_findings[0]?.title).not.toBe('command-injection');
  });

  it('accepts a scoped name URL-encoded and as two segments', async () => {
    const encoded = await json<RecordBody>('/api/v1/registry/npm/%40scope%2Fbeta');
    const raw = await json<RecordBody>('/api/v1/registry/npm/@scope/beta');
    expect(raw).toEqual(encoded);
    expect(encoded).toMatchObject({ package: '@scope/beta', version: '2.0.0', scan_id: ids['beta'] });
    expect(encoded.top_findings.map((f) => [f.rule_id, f.count])).toEqual([
      ['hardcoded-secret', 2],
      ['ssrf', 1],
    ]);
    expect((await json<RecordBody>('/api/v1/registry/git/owner%2Fdelta')).versions).toEqual([expect.objectContaining({ version: null, scan_id: ids['delta'] })]);
    expect((await json<RecordBody>('/api/v1/registry/git/owner/delta')).scan_id).toBe(ids['delta']);
  });

  it('is 404 for unknown, private-only, failed and unfinished packages, and 400 for a bad source', async () => {
    for (const path of ['npm/nope', 'npm/secret-pkg', 'npm/broken-pkg', 'npm/pending-pkg', 'pypi/alpha', 'npm/my-dir', 'npm/%40scope', 'npm/ALPHA']) {
      await expectError(`/api/v1/registry/${path}`, 404, 'NOT_FOUND');
    }
    await expectError('/api/v1/registry/directory/my-dir', 400, 'INVALID_FIELD', 'source');
    await expectError('/api/v1/registry/maven/alpha', 400, 'INVALID_FIELD', 'source');
  });
});

interface RecentItem {
  id: string;
  source: string | null;
  package: string | null;
  version: string | null;
  mode: string;
  finished_at: string;
}

describe('GET /api/v1/scans/recent', () => {
  it('lists completed public scans of every source, newest first, without who ran them', async () => {
    const page = await json<Page<RecentItem>>('/api/v1/scans/recent');
    expect(page.items.map((item) => item.id)).toEqual(
      ['dir', 'alpha2again', 'alpha2', 'underX', 'under', 'delta', 'gamma', 'beta', 'alpha1'].map((key) => ids[key]),
    );
    expect(page.items[0]).toEqual({
      id: ids['dir'],
      source: 'directory',
      package: 'my-dir',
      version: null,
      mode: 'fast',
      score: 100,
      grade: 'A',
      counts: { critical: 0, high: 0, medium: 0, low: 0, info: 0 },
      findings_count: 0,
      tools_count: 2,
      finished_at: new Date(minute(12).getTime() + 60_000).toISOString(),
    });
    for (const item of page.items) {
      expect(Object.keys(item)).not.toContain('user_id');
      expect(Object.keys(item)).not.toContain('input');
    }
  });

  it('pages without gaps or repeats and refuses bad parameters', async () => {
    const whole = (await json<Page<RecentItem>>('/api/v1/scans/recent?limit=100')).items.map((item) => item.id);
    for (const limit of [1, 2, 4]) expect((await walk<RecentItem>('/api/v1/scans/recent', limit)).items.map((item) => item.id)).toEqual(whole);
    await expectError('/api/v1/scans/recent?limit=0', 400, 'INVALID_FIELD', 'limit');
    await expectError('/api/v1/scans/recent?limit=1000', 400, 'INVALID_FIELD', 'limit');
    await expectError('/api/v1/scans/recent?cursor=nope', 400, 'INVALID_FIELD', 'cursor');
  });
});

interface CompareBody {
  requested: string[];
  items: (Entry | null)[];
  missing: string[];
}

describe('GET /api/v1/compare', () => {
  it('returns the packages side by side in the given order, null for those never scanned publicly', async () => {
    const body = await json<CompareBody>(`/api/v1/compare?packages=${encodeURIComponent('npm:@scope/beta,npm:alpha@1.0.0,npm:secret-pkg,pypi:Gamma_Pkg,npm:alpha')}`);
    expect(body.requested).toEqual(['npm:@scope/beta', 'npm:alpha@1.0.0', 'npm:secret-pkg', 'pypi:Gamma_Pkg', 'npm:alpha']);
    expect(body.items.map((item) => item?.scan_id ?? null)).toEqual([ids['beta'], ids['alpha1'], null, ids['gamma'], ids['alpha2again']]);
    expect(body.items[1]).toMatchObject({ version: '1.0.0', scans: 3, score: 100 });
    expect(body.missing).toEqual(['npm:secret-pkg']);
    const versioned = await json<CompareBody>('/api/v1/compare?packages=npm:@scope/beta@2.0.0,npm:alpha@9.9.9');
    expect(versioned.items[0]?.scan_id).toBe(ids['beta']);
    // 9.9.9 exists only as a private scan.
    expect(versioned.items[1]).toBeNull();
    expect(versioned.missing).toEqual(['npm:alpha@9.9.9']);
  });

  it('refuses a bad package list with INVALID_FIELD packages', async () => {
    for (const list of ['', 'npm:alpha', 'npm:a,npm:b,npm:c,npm:d,npm:e,npm:f', 'npm:alpha,maven:x', 'npm:alpha,alpha', 'npm:alpha,npm:', 'npm:alpha,npm:beta@', 'npm:alpha,npm:alpha', ':x,npm:a']) {
      await expectError(`/api/v1/compare?packages=${encodeURIComponent(list)}`, 400, 'INVALID_FIELD', 'packages');
    }
    await expectError('/api/v1/compare', 400, 'INVALID_FIELD', 'packages');
  });
});

describe('credentials on the public routes', () => {
  it('serves anonymous callers, checks a sent credential and counts a valid key', async () => {
    const user = await server.services.users.create({ email: `${randomUUID()}@example.com`, tier: 'dev', now: server.services.clock() });
    const { token } = await server.services.sessions.issue(user);
    const mint = async (scopes: string[]) => {
      const response = await fetch(`${server.url}/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ label: 'reader', scopes }),
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { data: { key: string } }).data.key;
    };
    const reader = await mint(['registry:read']);
    const umbrella = await mint(['scan:read']);
    const submitter = await mint(['scan:submit', 'scan:list', 'scan:get']);
    const paths = ['/api/v1/registry', '/api/v1/registry/npm/alpha', '/api/v1/scans/recent', '/api/v1/stats', '/api/v1/stats/state-of-mcp', '/api/v1/compare?packages=npm:alpha,npm:under_score'];
    for (const path of paths) {
      const anonymous = await get(path);
      expect(anonymous.status, path).toBe(200);
      // Anonymous callers count per client address, with the same cap as a credential.
      expect(anonymous.headers.get('x-ratelimit-limit')).toBe('8000');

      for (const key of [reader, umbrella]) {
        const keyed = await get(path, { authorization: `Bearer ${key}` });
        expect(keyed.status, path).toBe(200);
        expect(keyed.headers.get('x-ratelimit-limit')).toBe('8000');
        expect(Number(keyed.headers.get('x-ratelimit-remaining'))).toBeLessThan(8000);
        expect(Number(keyed.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
      }
      await expectError(path, 403, 'FORBIDDEN', undefined, { authorization: `Bearer ${submitter}` });
      await expectError(path, 401, 'UNAUTHORIZED', undefined, { authorization: `Bearer ${reader.slice(0, -1)}${reader.endsWith('a') ? 'b' : 'a'}` });
      await expectError(path, 401, 'UNAUTHORIZED', undefined, { authorization: 'Bearer not-a-token' });
      // The web UI's session is accepted like on the other web-facing routes.
      expect((await get(path, { authorization: `Bearer ${token}` })).status, path).toBe(200);
    }
    // Every request with a valid credential counted once toward the user's cap, the tightest bucket here: three
    // key creations, then per path the two readers, the refused key and the session, then this one.
    const last = await get('/api/v1/registry', { authorization: `Bearer ${reader}` });
    expect(last.headers.get('x-ratelimit-remaining')).toBe(String(8000 - 3 - paths.length * 4 - 1));
  });
});

describe('OpenAPI document', () => {
  it('documents every public route with the plain package path', async () => {
    const doc = await json<{ paths: Record<string, { get?: { description?: string; parameters?: { name: string }[] } }> }>('/api/v1/openapi.json');
    for (const path of ['/api/v1/registry', '/api/v1/registry/{source}/{package}', '/api/v1/scans/recent', '/api/v1/stats', '/api/v1/stats/state-of-mcp', '/api/v1/compare', '/versions']) {
      expect(doc.paths[path]?.get?.description, path).toEqual(expect.any(String));
    }
    expect(Object.keys(doc.paths).filter((path) => path.includes('{.+}'))).toEqual([]);
    expect(doc.paths['/api/v1/registry']?.get?.parameters?.map((p) => p.name).sort()).toEqual(['cursor', 'grade', 'limit', 'q', 'sort', 'source']);
    expect(doc.paths['/api/v1/registry/{source}/{package}']?.get?.parameters?.map((p) => p.name).sort()).toEqual(['package', 'source']);
  });
});
