import { randomUUID } from 'node:crypto';
import { bucketsFor, hashApiKey, LEGACY_KEYS_RETIRED_AT, successEnvelope, type AccountTier } from '@svc/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requireApiKey } from '../middleware/api-key.js';
import type { ApiKeyRepository } from '../store/repositories.js';
import { seedTeam } from '../test/seed.js';
import { startTestServer, type TestServer } from '../test/server.js';
import { expectError, type ErrorBody } from '../test/http.js';

let server: TestServer;
/** Key lookups (findByHashWithOwner calls), to show which refusals happen before any. */
let lookups = 0;

/** Counts key lookups; the real repository does the work. */
function countingKeys(keys: ApiKeyRepository): ApiKeyRepository {
  return new Proxy(keys, {
    get(target, property, receiver) {
      if (property === 'findByHashWithOwner') lookups++;
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

async function start(trustedProxies: readonly string[] = ['127.0.0.1/32']): Promise<TestServer> {
  lookups = 0;
  return startTestServer(
    (base) => ({ trustedProxies, apiKeys: countingKeys(base.apiKeys) }),
    // No real route needs a scope yet; this one stands in for POST /api/v1/scan.
    (app) => app.get('/api/v1/test/submit', requireApiKey('scan:submit'), (c) => c.json(successEnvelope({ ok: true }))),
  );
}

beforeEach(async () => {
  server = await start();
});
afterEach(async () => {
  await server.close();
});

async function userWithSession(tier: AccountTier, email = `${randomUUID()}@example.com`) {
  const user = await server.services.users.create({ email, tier, now: server.services.clock() });
  const { token } = await server.services.sessions.issue(user);
  return { user, token };
}

function call(method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}) {
  return fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

interface CreatedKey {
  id: string;
  key: string;
  prefix: string;
  label: string;
  scopes: string[];
  expires_at: string;
  ip_allowlist: string[];
}

async function createKey(token: string, body: Record<string, unknown> = {}): Promise<CreatedKey> {
  const response = await call('POST', '/keys', token, { label: 'ci', ...body });
  expect(response.status).toBe(201);
  return ((await response.json()) as { data: CreatedKey }).data;
}

const keyCount = () => server.db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM api_keys').get()?.n;
const self = (key: string, from?: string) => call('GET', '/api/v1/keys/self', key, undefined, from === undefined ? {} : { 'x-forwarded-for': from });
const outbox = () => server.db.prepare<[], { to: string; subject: string; text: string }>('SELECT "to", subject, text FROM outbox ORDER BY id').all();

describe('key management routes', () => {
  it('creates a key shown once, lists it without the secret, and revokes it', async () => {
    const { user, token } = await userWithSession('dev');
    const created = await createKey(token, { label: 'deploy bot', scopes: ['scan:read'], expires_in_days: 30, ip_allowlist: ['203.0.113.0/24', '198.51.100.7'] });
    expect(created.key).toMatch(/^svc_[0-9A-Za-z]{38}$/);
    expect(created).toMatchObject({ label: 'deploy bot', scopes: ['scan:read'], prefix: created.key.slice(0, 8), ip_allowlist: ['203.0.113.0/24', '198.51.100.7/32'] });
    expect(Date.parse(created.expires_at) - server.services.clock().getTime()).toBeGreaterThan(29.9 * 86_400_000);
    const stored = server.db.prepare<[string], { hash: string }>('SELECT hash FROM api_keys WHERE id = ?').get(created.id);
    expect(stored?.hash).toBe(hashApiKey(created.key));
    expect(JSON.stringify(server.db.prepare('SELECT * FROM api_keys').all())).not.toContain(created.key);

    const defaults = await createKey(token);
    expect(defaults.scopes).toEqual(['scan:submit', 'scan:list', 'scan:get']);
    expect(Date.parse(defaults.expires_at) - server.services.clock().getTime()).toBeGreaterThan(89.9 * 86_400_000);

    const listed = (await (await call('GET', '/keys', token)).json()) as { data: Record<string, unknown>[] };
    expect(listed.data.map((key) => key['id'])).toEqual([created.id, defaults.id]);
    expect(listed.data[0]).toEqual({
      id: created.id,
      prefix: created.prefix,
      last4: created.key.slice(-4),
      label: 'deploy bot',
      scopes: ['scan:read'],
      expires_at: created.expires_at,
      ip_allowlist: created.ip_allowlist,
      last_used_at: null,
      created_at: expect.any(String) as string,
      revoked_at: null,
    });
    expect(JSON.stringify(listed)).not.toContain(created.key);

    // Another user cannot revoke it, and an unknown id is the same 404.
    const other = await userWithSession('team');
    await expectError(await call('DELETE', `/keys/${created.id}`, other.token), 404, 'NOT_FOUND');
    await expectError(await call('DELETE', `/keys/${randomUUID()}`, token), 404, 'NOT_FOUND');

    const revoked = await call('DELETE', `/keys/${created.id}`, token);
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toEqual({ success: true, data: { id: created.id, revoked: true } });
    await expectError(await call('DELETE', `/keys/${created.id}`, token), 404, 'NOT_FOUND');

    const active = (await (await call('GET', '/keys', token)).json()) as { data: { id: string }[] };
    expect(active.data.map((key) => key.id)).toEqual([defaults.id]);
    const all = (await (await call('GET', '/keys?all=true', token)).json()) as { data: { id: string; revoked_at: string | null }[] };
    expect(all.data.find((key) => key.id === created.id)?.revoked_at).toEqual(expect.any(String));
    expect(user.id).toBeTruthy();
  });

  it('refuses a free account with 402 and writes nothing', async () => {
    const { token } = await userWithSession('free');
    await expectError(await call('POST', '/keys', token, { label: 'x' }), 402, 'SUBSCRIPTION_REQUIRED');
    expect(keyCount()).toBe(0);
  });

  it('lets a free member of a paid team mint a key, like the scans the team pays for', async () => {
    const owner = await userWithSession('team');
    const member = await userWithSession('free');
    seedTeam(server.db, { id: 'team-keys', ownerId: owner.user.id, memberIds: [member.user.id], now: server.services.clock() });
    const created = await createKey(member.token);
    expect(created.key).toMatch(/^svc_/);
  });

  it('allows at most 10 active keys, also under 15 concurrent creates', async () => {
    const { token } = await userWithSession('business');
    const responses = await Promise.all(Array.from({ length: 15 }, (_, i) => call('POST', '/keys', token, { label: `k${i}` })));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([...Array<number>(10).fill(201), ...Array<number>(5).fill(409)]);
    const refused = responses.find((response) => response.status === 409);
    if (refused === undefined) throw new Error('no refusal');
    await expectError(refused, 409, 'KEY_LIMIT_REACHED');
    expect(keyCount()).toBe(10);
    // Revoked keys do not count.
    const [first] = ((await (await call('GET', '/keys', token)).json()) as { data: { id: string }[] }).data;
    expect((await call('DELETE', `/keys/${first?.id}`, token)).status).toBe(200);
    await createKey(token);
    await expectError(await call('POST', '/keys', token, { label: 'eleventh' }), 409, 'KEY_LIMIT_REACHED');
  });

  it('refuses bad scopes, expiry and CIDRs with INVALID_FIELD naming the field, writing nothing', async () => {
    const { token } = await userWithSession('dev');
    const cases: [Record<string, unknown>, string][] = [
      [{ scopes: ['scan:delete'] }, 'scopes'],
      [{ scopes: [] }, 'scopes'],
      [{ expires_in_days: 0 }, 'expires_in_days'],
      [{ expires_in_days: 366 }, 'expires_in_days'],
      [{ expires_in_days: 1.5 }, 'expires_in_days'],
      [{ ip_allowlist: ['10.0.0.1/24'] }, 'ip_allowlist'],
      [{ ip_allowlist: ['not-an-ip'] }, 'ip_allowlist'],
      [{ ip_allowlist: Array.from({ length: 21 }, (_, i) => `10.0.0.${i}`) }, 'ip_allowlist'],
      [{ label: '' }, 'label'],
      [{ label: 'deploy\r\nBcc: attacker@example.com' }, 'label'],
      [{ label: '\u202Egnp.yek' }, 'label'],
    ];
    for (const [body, field] of cases) {
      const error = await expectError(await call('POST', '/keys', token, { label: 'x', ...body }), 400, 'INVALID_FIELD');
      expect(error.details?.['field'], JSON.stringify(body)).toBe(field);
    }
    expect(keyCount()).toBe(0);
  });

  it('takes a session token only', async () => {
    const { token } = await userWithSession('dev');
    const { key } = await createKey(token);
    const error = await expectError(await call('GET', '/keys', key), 401, 'UNAUTHORIZED');
    expect(error.details).toEqual({ credential: 'session' });
  });
});

describe('API-key authentication', () => {
  it('answers GET /api/v1/keys/self for a valid key, with rate-limit headers', async () => {
    const { token } = await userWithSession('dev');
    const created = await createKey(token, { label: 'ci' });
    const response = await self(created.key);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      success: true,
      data: { id: created.id, prefix: created.prefix, label: 'ci', scopes: created.scopes, expires_at: created.expires_at },
    });
    expect(response.headers.get('x-ratelimit-limit')).toBe('8000');
    // The user's cap counts the session's POST /keys too: one user, one 8000-per-5-minutes budget (DESIGN.md).
    expect(response.headers.get('x-ratelimit-remaining')).toBe('7998');
    // The end of the 5-minute window the request fell in.
    expect(response.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2026-11-18T10:05:00Z') / 1000));
  });

  it('refuses a session token, naming the API key as the credential to use', async () => {
    const { token } = await userWithSession('dev');
    const error = await expectError(await self(token), 401, 'UNAUTHORIZED');
    expect(error.details).toEqual({ credential: 'api_key' });
    await expectError(await fetch(`${server.url}/api/v1/keys/self`), 401, 'UNAUTHORIZED');
  });

  it('refuses a bad checksum or a malformed key without looking it up', async () => {
    const { token } = await userWithSession('dev');
    const { key } = await createKey(token);
    const last = key.at(-1) === 'a' ? 'b' : 'a';
    lookups = 0;
    for (const bad of [key.slice(0, -1) + last, `${key}x`, 'svc_short', 'mcp_tooShort']) {
      const response = await self(bad);
      await expectError(response, 401, 'UNAUTHORIZED');
      expect(response.headers.get('x-ratelimit-limit')).toBeNull();
    }
    expect(lookups).toBe(0);
    expect((await self(key)).status).toBe(200);
    expect(lookups).toBe(1);
  });

  it('refuses a revoked key and an expired one', async () => {
    const { token } = await userWithSession('dev');
    const revoked = await createKey(token);
    expect((await self(revoked.key)).status).toBe(200);
    expect((await call('DELETE', `/keys/${revoked.id}`, token)).status).toBe(200);
    await expectError(await self(revoked.key), 401, 'UNAUTHORIZED');

    const shortLived = await createKey(token, { expires_in_days: 1 });
    server.advance(86_400_000 - 60_000);
    expect((await self(shortLived.key)).status).toBe(200);
    server.advance(60_000);
    await expectError(await self(shortLived.key), 401, 'UNAUTHORIZED');
  });

  it('accepts a legacy mcp_ key until 2027-04-29 and refuses it from then on without a lookup', async () => {
    const { user } = await userWithSession('dev');
    const legacy = `mcp_${'Ab3'.repeat(12)}`;
    await server.services.apiKeys.create({
      id: randomUUID(),
      userId: user.id,
      hash: hashApiKey(legacy),
      prefix: legacy.slice(0, 8),
      last4: legacy.slice(-4),
      label: 'old',
      scopes: ['scan:submit'],
      ipAllowlist: [],
      expiresAt: '2027-12-31T00:00:00.000Z',
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    expect((await self(legacy)).status).toBe(200);
    server.advance(LEGACY_KEYS_RETIRED_AT.getTime() - server.services.clock().getTime() - 1000);
    expect((await self(legacy)).status).toBe(200);
    server.advance(1000);
    lookups = 0;
    await expectError(await self(legacy), 401, 'UNAUTHORIZED');
    expect(lookups).toBe(0);
  });

  it('gives scope and IP rejections byte-identical 403 bodies', async () => {
    const { token } = await userWithSession('dev');
    const readOnly = await createKey(token, { scopes: ['scan:list'] });
    const fenced = await createKey(token, { ip_allowlist: ['203.0.113.0/24'] });

    const byScope = await call('GET', '/api/v1/test/submit', readOnly.key);
    const byIp = await call('GET', '/api/v1/test/submit', fenced.key, undefined, { 'x-forwarded-for': '198.51.100.7' });
    expect(byScope.status).toBe(403);
    expect(byIp.status).toBe(403);
    const scopeBody = await byScope.text();
    expect(await byIp.text()).toBe(scopeBody);
    expect((JSON.parse(scopeBody) as ErrorBody).error.code).toBe('FORBIDDEN');
    // Rejections after authentication still carry the rate-limit headers.
    expect(byScope.headers.get('x-ratelimit-limit')).toBe('8000');
    expect(byIp.headers.get('x-ratelimit-remaining')).toEqual(expect.any(String));

    expect((await call('GET', '/api/v1/test/submit', fenced.key, undefined, { 'x-forwarded-for': '203.0.113.77' })).status).toBe(200);
    // Umbrella scopes expand: scan:write holds scan:submit.
    const writer = await createKey(token, { scopes: ['scan:write'] });
    expect((await call('GET', '/api/v1/test/submit', writer.key)).status).toBe(200);
  });

  it('refuses IPv6 callers of a key with an allowlist, and only those', async () => {
    const { token } = await userWithSession('dev');
    const fenced = await createKey(token, { ip_allowlist: ['203.0.113.0/24', '2001:db8::/32'] });
    const open = await createKey(token);
    await expectError(await self(fenced.key, '2001:db8::1'), 403, 'FORBIDDEN');
    expect((await self(open.key, '2001:db8::1')).status).toBe(200);
    // An IPv4-mapped address is the IPv4 client.
    expect((await self(fenced.key, '::ffff:203.0.113.5')).status).toBe(200);
  });

  it('believes X-Forwarded-For only from a trusted proxy', async () => {
    await server.close();
    server = await start([]);
    const { token } = await userWithSession('dev');
    const fenced = await createKey(token, { ip_allowlist: ['203.0.113.0/24'] });
    await expectError(await self(fenced.key, '203.0.113.9'), 403, 'FORBIDDEN');
    const local = await createKey(token, { ip_allowlist: ['127.0.0.0/8'] });
    expect((await self(local.key, '203.0.113.9')).status).toBe(200);
  });

  it('writes last_used_at at most once a minute', async () => {
    const { token } = await userWithSession('dev');
    const { key, id } = await createKey(token);
    const lastUsed = () => server.db.prepare<[string], { last_used_at: string | null }>('SELECT last_used_at FROM api_keys WHERE id = ?').get(id)?.last_used_at;
    expect(lastUsed()).toBeNull();
    expect((await self(key)).status).toBe(200);
    const first = lastUsed();
    expect(first).toEqual(expect.any(String));
    server.advance(30_000);
    expect((await self(key)).status).toBe(200);
    expect(lastUsed()).toBe(first);
    server.advance(30_000);
    expect((await self(key)).status).toBe(200);
    const second = lastUsed();
    expect(Date.parse(second ?? '') - Date.parse(first ?? '')).toBeGreaterThanOrEqual(60_000);
  });

  it('mails the owner once per new /24 a key is used from', async () => {
    const email = `owner-${randomUUID()}@example.com`;
    const { token } = await userWithSession('dev', email);
    const { key } = await createKey(token, { label: 'release pipeline' });
    const before = outbox().length;
    expect((await self(key, '198.51.100.7')).status).toBe(200);
    expect((await self(key, '198.51.100.7')).status).toBe(200);
    expect((await self(key, '198.51.100.200')).status).toBe(200);
    expect(outbox().slice(before)).toHaveLength(1);
    expect((await self(key, '198.51.101.1')).status).toBe(200);
    const mails = outbox().slice(before);
    expect(mails).toHaveLength(2);
    for (const [mail, ip] of [[mails[0], '198.51.100.7'], [mails[1], '198.51.101.1']] as const) {
      expect(mail?.to).toBe(email);
      expect(mail?.subject).toContain('release pipeline');
      expect(mail?.subject).toContain(ip);
      expect(mail?.text).toContain('release pipeline');
      expect(mail?.text).toContain(ip);
    }
    // A refused request is not a use: no mail for its network.
    const fenced = await createKey(token, { label: 'fenced', ip_allowlist: ['203.0.113.0/24'] });
    const count = outbox().length;
    await expectError(await self(fenced.key, '192.0.2.1'), 403, 'FORBIDDEN');
    expect(outbox()).toHaveLength(count);
  });

  it('answers 429 with Retry-After and the details once the edge rule is full', async () => {
    const { user, token } = await userWithSession('team');
    const { key } = await createKey(token);
    expect((await self(key)).status).toBe(200);
    let now = server.services.clock();
    let plan = bucketsFor({ kind: 'request', authorization: `Bearer ${key}`, userId: user.id, tier: 'team' }, now);
    if (!plan.ok) throw new Error('no buckets');
    const [edge] = plan.buckets;
    if (edge === undefined) throw new Error('no edge bucket');
    if (edge.resetAt.getTime() - now.getTime() < 10_000) {
      // Too close to the window's end for the request to land in it; move into the next window.
      server.advance(edge.resetAt.getTime() - now.getTime() + 1000);
      now = server.services.clock();
      plan = bucketsFor({ kind: 'request', authorization: `Bearer ${key}`, userId: user.id, tier: 'team' }, now);
      if (!plan.ok) throw new Error('no buckets');
    }
    const [bucket] = plan.buckets;
    if (bucket === undefined) throw new Error('no edge bucket');
    // The request counters live in the daemon's memory: fill the edge bucket as 8000 earlier requests would have.
    for (let i = 0; i < 8000; i++) await server.services.requestQuota.consume([bucket], now);

    const response = await self(key);
    const error = await expectError(response, 429, 'RATE_LIMITED');
    const retryAfter = Number(response.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(300);
    expect(error.details).toEqual({ window: 'edge', tier: 'team', current: 8000, limit: 8000, retry_after_seconds: retryAfter });
    expect(response.headers.get('x-ratelimit-limit')).toBe('8000');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(response.headers.get('x-ratelimit-reset')).toBe(String(bucket.resetAt.getTime() / 1000));
  });
});
