import { randomUUID } from 'node:crypto';
import { bucketsFor } from '@svc/core';
import { cp, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ScanView } from '../scan-view.js';
import { call, createKey, expectError, readStream, userWithSession } from '../test/http.js';
import { seedTeam } from '../test/seed.js';
import { startTestServer, type TestServer } from '../test/server.js';

// The scan routes over a real socket and SQLite file, with scans run by the real worker pool (the built
// dist/scan-worker.js) on fixture servers copied into a scan root.

const FIXTURES = fileURLToPath(new URL('../../../../fixtures/servers/', import.meta.url));
const BEHAVE_WORKER = new URL('../jobs/test-workers/behave.mjs', import.meta.url);

let root: string;
let poisoned: string;
let clean: string;
let server: TestServer;

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'svcd-roots-')));
  poisoned = path.join(root, 'poisoned');
  clean = path.join(root, 'clean');
  await cp(path.join(FIXTURES, 'poisoned-notes-ts'), poisoned, { recursive: true });
  await cp(path.join(FIXTURES, 'clean-files-ts'), clean, { recursive: true });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});
afterEach(async () => {
  await server.close();
});

async function start(options: Parameters<typeof startTestServer>[2] = {}): Promise<TestServer> {
  server = await startTestServer(undefined, undefined, { scanRoots: [root], streamHeartbeatMs: 200, ...options });
  return server;
}

/** Moves the daemon's clock to the first second of the next minute, so a burst test never straddles two minutes. */
function toStartOfMinute(): void {
  server.advance(60_000 - (server.services.clock().getTime() % 60_000) + 1_000);
}

async function paidKey(tier: 'dev' | 'team' | 'business' = 'dev', scopes?: string[]) {
  const { user, token } = await userWithSession(server, tier);
  const { key, id } = await createKey(server, token, scopes === undefined ? {} : { scopes });
  return { user, session: token, key, keyId: id };
}

async function waitForStatus(id: string, statuses: string[], timeoutMs = 20_000): Promise<ScanView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const scan = await server.services.scans.findById(id);
    if (scan !== undefined && statuses.includes(scan.status)) {
      const response = await call(server, 'GET', `/scan/${id}`);
      if (response.status === 200) return ((await response.json()) as { data: ScanView }).data;
      return { id, status: scan.status } as ScanView;
    }
    if (Date.now() > deadline) throw new Error(`scan ${id} still ${scan?.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function scanCount(): Promise<number> {
  return server.db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM scans').get()!.n;
}

describe('POST /api/v1/scan', () => {
  it('queues a scan (202, Location, X-RateLimit-*), runs it on the pool and serves the result', async () => {
    await start();
    const { key, user } = await paidKey();
    const response = await call(server, 'POST', '/api/v1/scan', key, { input: poisoned, mode: 'fast' });
    expect(response.status).toBe(202);
    const queued = (await response.json()) as ScanView;
    expect(queued).toMatchObject({ status: 'queued', input: poisoned, mode: 'fast', visibility: 'private', user_id: user.id, org_id: null, summary: null });
    expect(response.headers.get('location')).toBe(`/api/v1/scan/${queued.id}`);
    // The tightest bucket is the dev tier's 10 scans a minute, not the 8000-request edge rule.
    expect(response.headers.get('x-ratelimit-limit')).toBe('10');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('9');
    // The end of the minute of the burst bucket, the tightest one.
    expect(response.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2026-11-18T10:01:00Z') / 1000));

    await waitForStatus(queued.id, ['completed', 'failed']);
    const read = await call(server, 'GET', `/api/v1/scan/${queued.id}`, key);
    expect(read.status).toBe(200);
    expect(read.headers.get('x-ratelimit-limit')).toBe('8000');
    const body = (await read.json()) as ScanView & { result: { reports: Array<{ findings: Array<{ ruleId: string }> }> } };
    expect({ status: body.status, error: body.error }).toEqual({ status: 'completed', error: null });
    expect(body.summary!.findings).toBeGreaterThan(0);
    expect(body.summary!.counts.critical).toBeGreaterThan(0);
    expect(body.result.reports[0]!.findings.length).toBe(body.summary!.findings);
    expect(body.target.source).toBe('directory');
  });

  it('refuses paths outside SVC_SCAN_ROOTS, relative paths and bad bodies with 400 naming the field, writing nothing', async () => {
    await start();
    const { key } = await paidKey();
    const outside = await call(server, 'POST', '/api/v1/scan', key, { input: tmpdir(), mode: 'fast' });
    expect((await expectError(outside, 400, 'INVALID_FIELD')).details).toEqual({ field: 'input' });
    await expectError(await call(server, 'POST', '/api/v1/scan', key, { input: './poisoned', mode: 'fast' }), 400, 'INVALID_FIELD');
    await expectError(await call(server, 'POST', '/api/v1/scan', key, { input: `git+file://${tmpdir()}/x`, mode: 'fast' }), 400, 'INVALID_FIELD');
    const mode = await call(server, 'POST', '/api/v1/scan', key, { input: poisoned, mode: 'slow' });
    expect((await expectError(mode, 400, 'INVALID_FIELD')).details).toEqual({ field: 'mode' });
    const unknown = await call(server, 'POST', '/api/v1/scan', key, { input: poisoned, mode: 'fast', priority: 'high' });
    await expectError(unknown, 400, 'INVALID_FIELD');
    const notJson = await fetch(`${server.url}/api/v1/scan`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{"input":' });
    await expectError(notJson, 400, 'INVALID_FIELD');
    await expectError(await call(server, 'POST', '/api/v1/scan', key, { input: 42, mode: 'fast' }), 400, 'INVALID_FIELD');
    expect(await scanCount()).toBe(0);
    // The refused requests used no scan budget: the next one still sees 9 of 10 left.
    const accepted = await call(server, 'POST', '/api/v1/scan', key, { input: clean, mode: 'fast' });
    expect(accepted.headers.get('x-ratelimit-remaining')).toBe('9');
  });

  it('refuses every local input when no scan roots are configured', async () => {
    await start({ scanRoots: [] });
    const { key } = await paidKey();
    const error = await expectError(await call(server, 'POST', '/api/v1/scan', key, { input: poisoned }), 400, 'INVALID_FIELD');
    expect(error.message).toMatch(/SVC_SCAN_ROOTS/);
  });

  it('needs scan:submit (403, same body as an IP refusal), and a key, not a session', async () => {
    await start();
    const { key, session } = await paidKey('dev', ['scan:list']);
    const forbidden = await expectError(await call(server, 'POST', '/api/v1/scan', key, { input: clean }), 403, 'FORBIDDEN');
    expect(forbidden.details).toBeUndefined();
    const withSession = await expectError(await call(server, 'POST', '/api/v1/scan', session, { input: clean }), 401, 'UNAUTHORIZED');
    expect(withSession.details).toEqual({ credential: 'api_key' });
    await expectError(await call(server, 'POST', '/api/v1/scan', undefined, { input: clean }), 401, 'UNAUTHORIZED');
    expect(await scanCount()).toBe(0);
  });

  it('gives at most the burst of the tier to concurrent submissions, never more (10 a minute on dev)', async () => {
    await start();
    toStartOfMinute();
    const { key } = await paidKey('dev');
    const responses = await Promise.all(
      Array.from({ length: 16 }, () => call(server, 'POST', '/api/v1/scan', key, { input: clean, mode: 'fast', visibility: 'private' })),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 202)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(6);
    expect(await scanCount()).toBe(10);
    const limited = responses.find((response) => response.status === 429)!;
    const error = await expectError(limited, 429, 'RATE_LIMITED');
    expect(error.details).toMatchObject({ window: 'minute', tier: 'dev', current: 10, limit: 10 });
    expect(Number(limited.headers.get('retry-after'))).toBe(error.details!['retry_after_seconds']);
    expect(error.message).toMatch(/\d+ seconds?/);
  });

  it("shares one user budget across the user's keys: more keys never raise the quota (spec 8.3 rule 2)", async () => {
    await start();
    toStartOfMinute();
    const { session, key } = await paidKey('dev');
    const second = await createKey(server, session, { label: 'second' });
    for (let i = 0; i < 5; i++) expect((await call(server, 'POST', '/api/v1/scan', key, { input: clean })).status).toBe(202);
    for (let i = 0; i < 5; i++) expect((await call(server, 'POST', '/api/v1/scan', second.key, { input: clean })).status).toBe(202);
    // The second key has used 5 of its own 10, but the user has used all 10.
    const limited = await call(server, 'POST', '/api/v1/scan', second.key, { input: clean });
    expect((await expectError(limited, 429, 'RATE_LIMITED')).details).toMatchObject({ window: 'minute', tier: 'dev', current: 10, limit: 10 });
    // The web UI counts toward the same user budget.
    await expectError(await call(server, 'POST', '/scan', session, { input: clean }), 429, 'RATE_LIMITED');
    // A minute later the burst is back.
    server.advance(60_000);
    expect((await call(server, 'POST', '/api/v1/scan', second.key, { input: clean })).status).toBe(202);
  });

  it('counts deep scans toward the deep month and private scans toward the private budget', async () => {
    await start();
    const { user, key } = await paidKey('dev');
    // Fill the dev deep month (20) directly, as if earlier this month.
    const now = server.services.clock();
    const month = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    server.db
      .prepare("INSERT INTO quota_counters (bucket, count, reset_at) VALUES (?, 20, '2999-01-01T00:00:00.000Z')")
      .run(`user:${user.id}/deep/month:${month}`);
    const deep = await call(server, 'POST', '/api/v1/scan', key, { input: clean, mode: 'deep', visibility: 'public' });
    expect((await expectError(deep, 429, 'RATE_LIMITED')).details).toMatchObject({ window: 'deep_month', tier: 'dev', limit: 20 });
    const fast = await call(server, 'POST', '/api/v1/scan', key, { input: clean, mode: 'fast', visibility: 'public' });
    expect(fast.status).toBe(202);
  });

  it('runs the umbrella scopes of spec 5.2 on the real routes: scan:read reads and lists, scan:write also submits', async () => {
    await start();
    const reader = await paidKey('dev', ['scan:read']);
    const writer = await createKey(server, reader.session, { label: 'writer', scopes: ['scan:write'] });
    await expectError(await call(server, 'POST', '/api/v1/scan', reader.key, { input: clean }), 403, 'FORBIDDEN');
    const submitted = await call(server, 'POST', '/api/v1/scan', writer.key, { input: clean, visibility: 'public' });
    expect(submitted.status).toBe(202);
    const { id } = (await submitted.json()) as ScanView;
    expect((await call(server, 'GET', `/api/v1/scan/${id}`, reader.key)).status).toBe(200);
    expect((await call(server, 'GET', '/api/v1/scans', reader.key)).status).toBe(200);
    const getOnly = await createKey(server, reader.session, { label: 'get', scopes: ['scan:get'] });
    await expectError(await call(server, 'GET', '/api/v1/scans', getOnly.key), 403, 'FORBIDDEN');
  });

  it('gives the free tier 6 deep scans a week and dev 70 private scans a month (spec 8.1, 8.2)', async () => {
    await start();
    const { token } = await userWithSession(server, 'free');
    for (let i = 0; i < 6; i++) {
      // Free has a burst of 5 a minute, so the clock moves on between submissions.
      server.advance(61_000);
      expect((await call(server, 'POST', '/scan', token, { input: clean, mode: 'deep', visibility: 'public' })).status).toBe(202);
    }
    server.advance(61_000);
    const deep = await call(server, 'POST', '/scan', token, { input: clean, mode: 'deep', visibility: 'public' });
    expect((await expectError(deep, 429, 'RATE_LIMITED')).details).toMatchObject({ window: 'deep_week', tier: 'free', current: 6, limit: 6 });
    expect((await call(server, 'POST', '/scan', token, { input: clean, mode: 'fast', visibility: 'public' })).status).toBe(202);

    const dev = await paidKey('dev');
    const now = server.services.clock();
    const month = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    server.db
      .prepare("INSERT INTO quota_counters (bucket, count, reset_at) VALUES (?, 70, '2999-01-01T00:00:00.000Z')")
      .run(`user:${dev.user.id}/private/month:${month}`);
    const privateScan = await call(server, 'POST', '/api/v1/scan', dev.key, { input: clean, visibility: 'private' });
    expect((await expectError(privateScan, 429, 'RATE_LIMITED')).details).toMatchObject({ window: 'private_month', tier: 'dev', limit: 70 });
    expect(privateScan.headers.get('x-ratelimit-limit')).toBe('70');
    expect(privateScan.headers.get('x-ratelimit-remaining')).toBe('0');
    // Public scans have their own budget.
    expect((await call(server, 'POST', '/api/v1/scan', dev.key, { input: clean, visibility: 'public' })).status).toBe(202);
  });

  it('answers 402 for a private scan on the free tier and 401 for an anonymous deep scan', async () => {
    await start();
    const { token } = await userWithSession(server, 'free');
    const privateScan = await call(server, 'POST', '/scan', token, { input: clean, mode: 'fast', visibility: 'private' });
    await expectError(privateScan, 402, 'SUBSCRIPTION_REQUIRED');
    // A path defaults to private, so a free user scanning one without saying public is refused the same way.
    await expectError(await call(server, 'POST', '/scan', token, { input: clean }), 402, 'SUBSCRIPTION_REQUIRED');
    await expectError(await call(server, 'POST', '/scan', undefined, { input: clean, mode: 'deep', visibility: 'public' }), 401, 'UNAUTHORIZED');
    expect(await scanCount()).toBe(0);
  });
});

describe('POST /scan (web)', () => {
  it('lets anonymous callers run 3 a minute and 10 a day per IP, with the spec 7.3 body', async () => {
    await start({ trustedProxies: ['127.0.0.1/32'] });
    toStartOfMinute();
    const submit = (ip: string) => call(server, 'POST', '/scan', undefined, { input: clean, visibility: 'public' }, { 'x-forwarded-for': ip });
    for (let i = 0; i < 3; i++) expect((await submit('203.0.113.7')).status).toBe(202);
    const limited = await submit('203.0.113.7');
    const error = await expectError(limited, 429, 'RATE_LIMITED');
    expect(error.details).toMatchObject({ window: 'minute', tier: 'anonymous', current: 3, limit: 3 });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address has its own budget.
    expect((await submit('198.51.100.1')).status).toBe(202);

    const daily = async () => {
      for (let i = 0; i < 7; i++) {
        server.advance(61_000);
        expect((await submit('203.0.113.7')).status).toBe(202);
      }
    };
    await daily();
    server.advance(61_000);
    expect((await expectError(await submit('203.0.113.7'), 429, 'RATE_LIMITED')).details).toMatchObject({ window: 'day', limit: 10 });
  });

  it('answers the envelope, records who ran it, and refuses an API key', async () => {
    await start();
    const { user, token } = await userWithSession(server, 'dev');
    const response = await call(server, 'POST', '/scan', token, { input: clean, visibility: 'public' });
    expect(response.status).toBe(202);
    const body = (await response.json()) as { success: true; data: ScanView };
    expect(body.success).toBe(true);
    expect(body.data.user_id).toBe(user.id);
    const { key } = await createKey(server, token);
    expect((await expectError(await call(server, 'POST', '/scan', key, { input: clean }), 401, 'UNAUTHORIZED')).details).toEqual({ credential: 'session' });
  });
});

describe('reading scans', () => {
  it('shows private scans only to their owner and the team that paid, and public ones to everyone', async () => {
    await start();
    const owner = await paidKey('team');
    const stranger = await paidKey('dev');
    const teammate = await paidKey('dev');
    // A team owned by `owner` with `teammate` as a member (the team routes come with issue 4).
    seedTeam(server.db, { id: 'team-1', ownerId: owner.user.id, memberIds: [teammate.user.id], now: server.services.clock() });

    const submitted = (await (await call(server, 'POST', '/api/v1/scan', owner.key, { input: clean, mode: 'fast' })).json()) as ScanView;
    expect(submitted).toMatchObject({ visibility: 'private', org_id: 'team-1' });
    await waitForStatus(submitted.id, ['completed']);

    expect((await call(server, 'GET', `/api/v1/scan/${submitted.id}`, owner.key)).status).toBe(200);
    expect((await call(server, 'GET', `/api/v1/scan/${submitted.id}`, teammate.key)).status).toBe(200);
    await expectError(await call(server, 'GET', `/api/v1/scan/${submitted.id}`, stranger.key), 404, 'NOT_FOUND');
    await expectError(await call(server, 'GET', `/scan/${submitted.id}`), 404, 'NOT_FOUND');
    await expectError(await call(server, 'GET', `/scan/${submitted.id}/stream`), 404, 'NOT_FOUND');
    expect((await call(server, 'GET', `/scan/${submitted.id}/stream`, teammate.session)).status).toBe(200);

    const teammateHistory = (await (await call(server, 'GET', '/user/scans', teammate.session)).json()) as { data: { items: ScanView[] } };
    expect(teammateHistory.data.items.map((scan) => scan.id)).toEqual([submitted.id]);
    const strangerHistory = (await (await call(server, 'GET', '/user/scans', stranger.session)).json()) as { data: { items: ScanView[] } };
    expect(strangerHistory.data.items).toEqual([]);
    // Private scans never show up in the public history.
    const publicHistory = (await (await call(server, 'GET', '/api/v1/scans', owner.key)).json()) as { items: ScanView[] };
    expect(publicHistory.items).toEqual([]);
  });

  it('shows who ran a public scan only to its owner', async () => {
    await start();
    const owner = await paidKey('dev');
    const other = await paidKey('dev');
    const { id } = (await (await call(server, 'POST', '/api/v1/scan', owner.key, { input: clean, visibility: 'public' })).json()) as ScanView;
    await waitForStatus(id, ['completed']);
    const mine = (await (await call(server, 'GET', `/api/v1/scan/${id}`, owner.key)).json()) as ScanView;
    expect(mine.user_id).toBe(owner.user.id);
    const theirs = (await (await call(server, 'GET', `/api/v1/scan/${id}`, other.key)).json()) as ScanView;
    expect(theirs).toMatchObject({ id, status: 'completed', user_id: null, org_id: null });
    const anonymous = ((await (await call(server, 'GET', `/scan/${id}`)).json()) as { data: ScanView }).data;
    expect(anonymous.user_id).toBeNull();
    const { events } = await readStream(await call(server, 'GET', `/scan/${id}/stream`));
    expect(events.map((event) => (JSON.parse(event.data) as { scan: ScanView }).scan.user_id)).toEqual([null, null]);
  });

  it('answers 404 for unknown and malformed ids', async () => {
    await start();
    const { key } = await paidKey();
    const unknown = await call(server, 'GET', `/api/v1/scan/${randomUUID()}`, key);
    // Every answer after the key is known carries the rate-limit headers (spec 8.3 rule 5), errors included.
    expect(unknown.headers.get('x-ratelimit-limit')).toBe('8000');
    await expectError(unknown, 404, 'NOT_FOUND');
    await expectError(await call(server, 'GET', '/api/v1/scan/%27%20OR%201=1--', key), 404, 'NOT_FOUND');
    await expectError(await call(server, 'GET', `/scan/${randomUUID()}`), 404, 'NOT_FOUND');
    await expectError(await call(server, 'GET', `/scan/${randomUUID()}/consensus`), 404, 'NOT_FOUND');
  });

  it('pages public history newest first with an opaque cursor, without gaps or repeats', async () => {
    await start();
    const { user, key, session } = await paidKey('business');
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      // Seeded through the repository: the burst allows 30 a minute, but the clock would need to move for more.
      const { scan } = await server.services.scans.submit({
        scan: { id: randomUUID(), userId: user.id, orgId: null, keyId: null, input: clean, mode: 'fast', visibility: 'public', source: 'directory', package: null, version: null, bearerTokenGiven: false },
        buckets: [],
        now: new Date(Date.UTC(2026, 10, 1, 0, 0, i)),
      });
      ids.unshift(scan!.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '?limit=3' : `?limit=3&cursor=${cursor}`;
      const page = (await (await call(server, 'GET', `/api/v1/scans${query}`, key)).json()) as { items: ScanView[]; next_cursor: string | null };
      seen.push(...page.items.map((scan) => scan.id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual(ids);
    const web = (await (await call(server, 'GET', '/scans?limit=100', session)).json()) as { success: true; data: { items: ScanView[] } };
    expect(web.data.items.map((scan) => scan.id)).toEqual(ids);

    expect((await expectError(await call(server, 'GET', '/api/v1/scans?cursor=bm90LWEtY3Vyc29y', key), 400, 'INVALID_FIELD')).details).toEqual({ field: 'cursor' });
    // A real cursor of the public history does not continue the private one.
    const publicCursor = ((await (await call(server, 'GET', '/api/v1/scans?limit=1', key)).json()) as { next_cursor: string }).next_cursor;
    await expectError(await call(server, 'GET', `/user/scans?cursor=${publicCursor}`, session), 400, 'INVALID_FIELD');
    expect((await expectError(await call(server, 'GET', '/api/v1/scans?limit=0', key), 400, 'INVALID_FIELD')).details).toEqual({ field: 'limit' });
    await expectError(await call(server, 'GET', '/api/v1/scans?limit=abc', key), 400, 'INVALID_FIELD');
    await expectError(await call(server, 'GET', '/scans', key), 401, 'UNAUTHORIZED');
  });
});

describe('GET /scan/{id}/stream', () => {
  it('streams snapshot, progress, findings and completed to a client that connects while the scan is queued', async () => {
    await start();
    const { key } = await paidKey();
    const scan = (await (await call(server, 'POST', '/api/v1/scan', key, { input: poisoned, visibility: 'public' })).json()) as ScanView;
    const response = await call(server, 'GET', `/scan/${scan.id}/stream`);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const { events } = await readStream(response);
    expect(events[0]!.event).toBe('snapshot');
    const kinds = events.map((event) => event.event);
    expect(kinds.at(-1)).toBe('completed');
    expect(kinds).toContain('progress');
    expect(kinds).toContain('finding');
    const ids = events.slice(1).map((event) => Number(event.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    const completed = JSON.parse(events.at(-1)!.data) as { scan: ScanView };
    expect(completed.scan.status).toBe('completed');
    expect(events.filter((event) => event.event === 'finding').length + JSON.parse(events[0]!.data).findings.length).toBe(completed.scan.summary!.findings);
  });

  it('gives a late client the snapshot with every finding and the final event, and resumes from Last-Event-ID', async () => {
    await start();
    const { key } = await paidKey();
    const scan = (await (await call(server, 'POST', '/api/v1/scan', key, { input: poisoned, visibility: 'public' })).json()) as ScanView;
    const done = await waitForStatus(scan.id, ['completed']);

    const late = await readStream(await call(server, 'GET', `/scan/${scan.id}/stream`));
    expect(late.events.map((event) => event.event)).toEqual(['snapshot', 'completed']);
    const snapshot = JSON.parse(late.events[0]!.data) as { scan: ScanView; findings: unknown[]; progress: unknown };
    expect(snapshot.scan.status).toBe('completed');
    expect(snapshot.findings).toHaveLength(done.summary!.findings);

    const all = await server.services.scans.eventsAfter(scan.id, 0);
    const resumed = await readStream(await call(server, 'GET', `/scan/${scan.id}/stream`, undefined, undefined, { 'last-event-id': '2' }));
    expect(resumed.events.map((event) => Number(event.id))).toEqual(all.filter((event) => event.seq > 2).map((event) => event.seq));
    expect(resumed.events.at(-1)!.event).toBe('completed');

    // Resuming after the final event ends at once instead of hanging.
    const after = await readStream(await call(server, 'GET', `/scan/${scan.id}/stream`, undefined, undefined, { 'last-event-id': String(all.at(-1)!.seq) }));
    expect(after.events).toEqual([]);
  });

  it('sends heartbeat comments while nothing happens', async () => {
    // Every scan sleeps for 2 s in this stand-in worker, so the stream stays quiet meanwhile.
    await start({ pool: { workerUrl: BEHAVE_WORKER } });
    const { token } = await userWithSession(server, 'dev');
    const scan = ((await (await call(server, 'POST', '/scan', token, { input: 'npm:sleep-2000', visibility: 'public' })).json()) as { data: ScanView }).data;
    const started = Date.now();
    const { comments } = await readStream(await call(server, 'GET', `/scan/${scan.id}/stream`), () => Date.now() - started > 700);
    expect(comments).toBeGreaterThanOrEqual(2);
  });
});

describe('open stream cap', () => {
  it('lets one client address hold 20 open streams, answers 429 to the 21st, and frees the slot on disconnect', async () => {
    await start({ pool: { workerUrl: BEHAVE_WORKER } });
    const { token } = await userWithSession(server, 'dev');
    const scan = ((await (await call(server, 'POST', '/scan', token, { input: 'npm:sleep-5000', visibility: 'public' })).json()) as { data: ScanView }).data;
    const controllers = Array.from({ length: 20 }, () => new AbortController());
    const open = await Promise.all(controllers.map((controller) => fetch(`${server.url}/scan/${scan.id}/stream`, { signal: controller.signal })));
    expect(open.map((response) => response.status)).toEqual(Array(20).fill(200));
    const refused = await call(server, 'GET', `/scan/${scan.id}/stream`);
    expect((await expectError(refused, 429, 'RATE_LIMITED')).details).toMatchObject({ window: 'open_streams', limit: 20, current: 20 });
    expect(refused.headers.get('retry-after')).toBe('5');
    controllers[0]!.abort();
    await open[0]!.body?.cancel().catch(() => {});
    const deadline = Date.now() + 5_000;
    let again = await call(server, 'GET', `/scan/${scan.id}/stream`);
    while (again.status === 429 && Date.now() < deadline) {
      await again.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await call(server, 'GET', `/scan/${scan.id}/stream`);
    }
    expect(again.status).toBe(200);
    await again.body?.cancel();
    for (const controller of controllers) controller.abort();
  });
});

describe('isolation', () => {
  it('fails a scan whose worker crashes or runs out of time, and keeps serving', async () => {
    await start({ pool: { workerUrl: BEHAVE_WORKER, timeoutMs: 500 } });
    const { key } = await paidKey();
    const crash = (await (await call(server, 'POST', '/api/v1/scan', key, { input: 'npm:exit', visibility: 'public' })).json()) as ScanView;
    const loop = (await (await call(server, 'POST', '/api/v1/scan', key, { input: 'npm:loop', visibility: 'public' })).json()) as ScanView;
    const crashed = await waitForStatus(crash.id, ['failed']);
    const timedOut = await waitForStatus(loop.id, ['failed']);
    expect(crashed.error).toMatch(/crash|exit|stopped/i);
    expect(crashed.error).not.toMatch(/secret|at .*\.mjs/);
    expect(timedOut.error).toMatch(/time limit|timed out|\d+ ?s/i);
    expect((await call(server, 'GET', '/healthz')).status).toBe(200);
    const stream = await readStream(await call(server, 'GET', `/scan/${crash.id}/stream`));
    expect(stream.events.map((event) => event.event)).toEqual(['snapshot', 'failed']);
  });
});

describe('GET /scan/{id}/consensus', () => {
  it("returns the judge panel's votes of a deep scan, 404 for a fast one", async () => {
    await start();
    const { key } = await paidKey();
    const deep = (await (await call(server, 'POST', '/api/v1/scan', key, { input: poisoned, mode: 'deep', visibility: 'public' })).json()) as ScanView;
    const fast = (await (await call(server, 'POST', '/api/v1/scan', key, { input: poisoned, mode: 'fast', visibility: 'public' })).json()) as ScanView;
    await waitForStatus(deep.id, ['completed']);
    await waitForStatus(fast.id, ['completed']);
    const response = await call(server, 'GET', `/scan/${deep.id}/consensus`);
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: { judges: string[]; findings: Array<{ votes: unknown[]; consensus: string | null }> } };
    expect(data.judges.length).toBeGreaterThanOrEqual(3);
    expect(data.findings.length).toBeGreaterThan(0);
    for (const finding of data.findings) expect(finding.votes.length).toBe(data.judges.length);
    await expectError(await call(server, 'GET', `/scan/${fast.id}/consensus`), 404, 'NOT_FOUND');
  });
});

describe('anonymous reads', () => {
  it('count per client address on the open routes and stop at 8000 per 5 minutes (window ip_requests)', async () => {
    await start({ trustedProxies: ['127.0.0.1/32'] });
    const { token } = await userWithSession(server, 'dev');
    const { id } = ((await (await call(server, 'POST', '/scan', token, { input: clean, visibility: 'public' })).json()) as { data: ScanView }).data;
    const read = (ip: string) => call(server, 'GET', `/scan/${id}`, undefined, undefined, { 'x-forwarded-for': ip });
    const first = await read('203.0.113.9');
    expect(first.headers.get('x-ratelimit-limit')).toBe('8000');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('7999');
    // Fill the address's bucket (in the daemon's memory) as if 7999 more requests had come; the next one is refused.
    const plan = bucketsFor({ kind: 'request', ip: '203.0.113.9' }, server.services.clock());
    if (!plan.ok) throw new Error('no buckets');
    for (let i = 0; i < 7999; i++) await server.services.requestQuota.consume(plan.buckets, server.services.clock());
    const limited = await read('203.0.113.9');
    expect((await expectError(limited, 429, 'RATE_LIMITED')).details).toMatchObject({ window: 'ip_requests', current: 8000, limit: 8000 });
    expect((await call(server, 'GET', '/api/v1/stats', undefined, undefined, { 'x-forwarded-for': '203.0.113.9' })).status).toBe(429);
    // Another address, and a caller with a credential, are not held back by it.
    expect((await read('198.51.100.2')).status).toBe(200);
    expect((await call(server, 'GET', '/api/v1/stats', token, undefined, { 'x-forwarded-for': '203.0.113.9' })).status).toBe(200);
  });
});
