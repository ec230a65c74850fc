import { generateKeyPair, SignJWT } from 'jose';
import { API_KEY_PREFIX, generateApiKey, ruleCatalog, SVC_VERSION } from '@svc/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from './app.js';
import { startTestServer, TEST_JWT_SECRET, type TestServer } from './test/server.js';
import { expectError } from './test/http.js';

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await server.close();
});

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function getMe(token: string) {
  return fetch(`${server.url}/me`, { headers: { authorization: `Bearer ${token}` } });
}

/** The code of the last sign-in mail to an address, read from the outbox table as an operator would. */
function codeFromOutbox(email: string): string {
  const row = server.db.prepare<[string], { subject: string; text: string }>('SELECT subject, text FROM outbox WHERE "to" = ? ORDER BY id DESC').get(email);
  const code = /\b(\d{6})\b/.exec(row?.text ?? '')?.[1];
  if (code === undefined) throw new Error(`no code mailed to ${email}`);
  return code;
}

async function signIn(email: string): Promise<{ token: string; user_id: string }> {
  // past the one-code-a-minute limit of an address
  server.advance(61_000);
  expect((await post('/auth/login', { email })).status).toBe(200);
  const response = await post('/auth/verify', { email, code: codeFromOutbox(email) });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data: { token: string; user: { user_id: string } } };
  return { token: body.data.token, user_id: body.data.user.user_id };
}

describe('public routes', () => {
  it('answers /healthz with the envelope and a request id', async () => {
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ success: true, data: { status: 'ok', version: SVC_VERSION } });
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keeps a sane incoming request id and replaces a hostile one', async () => {
    const kept = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'edge-42_abc' } });
    expect(kept.headers.get('x-request-id')).toBe('edge-42_abc');
    const replaced = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'a b<script>' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const tooLong = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'x'.repeat(200) } });
    expect(tooLong.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.logs.some((log) => log.fields['request_id'] === 'edge-42_abc')).toBe(true);
  });

  it('logs the client address, believing X-Forwarded-For only from a trusted proxy', async () => {
    const lastIp = () => server.logs.filter((log) => log.message === 'request').at(-1)?.fields['client_ip'];
    await fetch(`${server.url}/healthz`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(lastIp()).toBe('127.0.0.1');
    await server.close();
    server = await startTestServer(() => ({ trustedProxies: ['127.0.0.0/8'] }));
    await fetch(`${server.url}/healthz`, { headers: { 'x-forwarded-for': '198.51.100.1, 203.0.113.9' } });
    expect(lastIp()).toBe('203.0.113.9');
  });

  it('serves the rule catalog as bare data under /api/v1', async () => {
    const response = await fetch(`${server.url}/api/v1/rules/catalog`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as unknown[];
    expect(Array.isArray(body)).toBe(true);
    expect(body).toEqual(JSON.parse(JSON.stringify(ruleCatalog())));
  });

  it('serves an OpenAPI 3.1 document of every route, generated from the validating schemas', async () => {
    const response = await fetch(`${server.url}/api/v1/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as {
      openapi: string;
      info: { version: string };
      paths: Record<string, Record<string, { security?: unknown; requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown>; required: string[] } }> }; responses: Record<string, unknown> }>>;
      components: { securitySchemes: Record<string, { scheme: string }> };
    };
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe(SVC_VERSION);
    expect(Object.keys(document.paths).sort()).toEqual([
      '/api/v1/compare',
      '/api/v1/keys/self',
      '/api/v1/registry',
      '/api/v1/registry/{source}/{package}',
      '/api/v1/rules/catalog',
      '/api/v1/scan',
      '/api/v1/scan/{id}',
      '/api/v1/scans',
      '/api/v1/scans/recent',
      '/api/v1/stats',
      '/api/v1/stats/state-of-mcp',
      '/auth/login',
      '/auth/verify',
      '/billing/cancel',
      '/billing/invoices',
      '/billing/portal',
      '/billing/reactivate',
      '/billing/return',
      '/billing/upgrade',
      '/checkout/session',
      '/healthz',
      '/keys',
      '/keys/{id}',
      '/me',
      '/scan',
      '/scan/{id}',
      '/scan/{id}/consensus',
      '/scan/{id}/stream',
      '/scans',
      '/subscription',
      '/team',
      '/team/invite',
      '/team/invite-preview',
      '/team/invite/accept',
      '/team/invites/{email}',
      '/team/members/{user_id}',
      '/team/usage',
      '/user/scans',
      '/versions',
      '/webhooks/stripe',
    ]);
    const verify = document.paths['/auth/verify']?.['post'];
    expect(verify?.requestBody?.content['application/json']?.schema.required).toEqual(['email', 'code']);
    expect(Object.keys(verify?.responses ?? {}).sort()).toEqual(['200', '400', '401', '413', '415', '429', '500']);
    expect(document.paths['/me']?.['get']?.security).toEqual([{ session: [] }]);
    expect(document.components.securitySchemes['session']?.scheme).toBe('bearer');
    expect(document.paths['/api/v1/keys/self']?.['get']?.security).toEqual([{ apiKey: [] }]);
    expect(document.components.securitySchemes['apiKey']?.scheme).toBe('bearer');
    expect(Object.keys(document.paths['/keys']?.['post']?.responses ?? {}).sort()).toEqual(['201', '400', '401', '402', '409', '413', '415', '500']);
  });
});

describe('errors', () => {
  it('answers an unknown route with the NOT_FOUND envelope and a request id', async () => {
    const response = await fetch(`${server.url}/no/such/route`);
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    await expectError(response, 404, 'NOT_FOUND');
  });

  it('answers a wrong method on a known route with 405 and Allow', async () => {
    const response = await fetch(`${server.url}/auth/login`, { method: 'GET' });
    expect(response.headers.get('allow')).toBe('POST');
    await expectError(response, 405, 'METHOD_NOT_ALLOWED');
    const deleteHealth = await fetch(`${server.url}/healthz`, { method: 'DELETE' });
    expect(deleteHealth.headers.get('allow')).toBe('GET, HEAD');
    await expectError(deleteHealth, 405, 'METHOD_NOT_ALLOWED');
  });

  it('refuses malformed JSON with INVALID_FIELD on (body)', async () => {
    const error = await expectError(await post('/auth/login', '{"email": '), 400, 'INVALID_FIELD');
    expect(error.details).toEqual({ field: '(body)' });
  });

  it('names the invalid field', async () => {
    const missing = await expectError(await post('/auth/login', {}), 400, 'INVALID_FIELD');
    expect(missing.details).toEqual({ field: 'email' });
    const bad = await expectError(await post('/auth/login', { email: 'not-an-email' }), 400, 'INVALID_FIELD');
    expect(bad.details).toEqual({ field: 'email' });
    const array = await expectError(await post('/auth/login', [1, 2]), 400, 'INVALID_FIELD');
    expect(array.details).toEqual({ field: '(body)' });
    const code = await expectError(await post('/auth/verify', { email: 'a@example.com', code: '12ab56' }), 400, 'INVALID_FIELD');
    expect(code.details).toEqual({ field: 'code' });
  });

  it('refuses a body that is not JSON with 415', async () => {
    const response = await fetch(`${server.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'email=a@example.com' });
    await expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('refuses an oversized body with 413, with and without Content-Length', async () => {
    const big = JSON.stringify({ email: 'a@example.com', pad: 'x'.repeat(MAX_BODY_BYTES) });
    const response = await post('/auth/login', big);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    await expectError(response, 413, 'PAYLOAD_TOO_LARGE');
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const streamed = await fetch(`${server.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: chunks,
      duplex: 'half',
    } as RequestInit);
    await expectError(streamed, 413, 'PAYLOAD_TOO_LARGE');
    expect(await server.services.outbox.list()).toEqual([]);
  });

  it('hides an internal failure behind a generic 500 and logs it with the request id', async () => {
    await server.close();
    server = await startTestServer((base) => ({
      loginCodes: {
        ...base.loginCodes,
        put: async () => {
          throw new Error('SQLITE_IOERR: disk I/O error at /var/lib/svc/svc.db INSERT INTO login_codes');
        },
        check: base.loginCodes.check.bind(base.loginCodes),
      },
    }));
    const response = await post('/auth/login', { email: 'a@example.com' });
    const text = await response.clone().text();
    const error = await expectError(response, 500, 'INTERNAL_ERROR');
    expect(error).toEqual({ code: 'INTERNAL_ERROR', message: 'Internal error.' });
    expect(text).not.toMatch(/SQLITE|INSERT|\/var\/lib|at .*\.ts/);
    const requestId = response.headers.get('x-request-id');
    const logged = server.logs.find((log) => log.level === 'error');
    expect(logged?.fields['request_id']).toBe(requestId);
    expect(String(logged?.fields['error'])).toMatch(/SQLITE_IOERR/);
  });
});

describe('sign-in', () => {
  it('runs login → code from the outbox → verify → GET /me', async () => {
    const login = await post('/auth/login', { email: 'Ada@Example.com' });
    expect(login.status).toBe(200);
    expect(await login.json()).toEqual({ success: true, data: { sent: true } });
    // mail goes to the address as typed; the account uses its normalised form
    const code = codeFromOutbox('Ada@Example.com');

    const verify = await post('/auth/verify', { email: 'ada@example.com', code });
    expect(verify.status).toBe(200);
    const { data } = (await verify.json()) as { data: { token: string; expires_at: string; user: { user_id: string; email: string; tier: string } } };
    expect(data.user).toMatchObject({ email: 'ada@example.com', tier: 'free' });
    expect(Date.parse(data.expires_at) - server.services.clock().getTime()).toBe(12 * 3600_000);

    const me = await getMe(data.token);
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({
      success: true,
      data: {
        email: 'ada@example.com',
        user_id: data.user.user_id,
        tier: 'free',
        display_name: null,
        notifications: { scan_completed: true, new_location: true, invites: true },
      },
    });

    // single use
    await expectError(await post('/auth/verify', { email: 'ada@example.com', code }), 401, 'UNAUTHORIZED');
    // the second sign-in finds the same account
    expect((await signIn('ada@example.com')).user_id).toBe(data.user.user_id);
  });

  it('answers login the same for known and unknown addresses and creates no account before verification', async () => {
    await signIn('known@example.com');
    server.advance(61_000);
    const known = await post('/auth/login', { email: 'known@example.com' });
    const unknown = await post('/auth/login', { email: 'unknown@example.com' });
    expect(known.status).toBe(unknown.status);
    expect(await known.json()).toEqual(await unknown.json());
    expect(await server.services.users.findByEmail('unknown@example.com')).toBeUndefined();
  });

  it('sends an address at most one code a minute and ten a day, with Retry-After', async () => {
    expect((await post('/auth/login', { email: 'r@example.com' })).status).toBe(200);
    const second = await post('/auth/login', { email: 'R@example.com' });
    const retryAfter = Number(second.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const error = await expectError(second, 429, 'RATE_LIMITED');
    expect(error.details).toEqual({ window: 'login_minute', tier: 'anonymous', current: 1, limit: 1, retry_after_seconds: retryAfter });
    // another address is not affected
    expect((await post('/auth/login', { email: 'other@example.com' })).status).toBe(200);
    // the first code is still the valid one
    expect((await post('/auth/verify', { email: 'r@example.com', code: codeFromOutbox('r@example.com') })).status).toBe(200);

    let sent = 1;
    for (let i = 0; i < 12; i++) {
      server.advance(61_000);
      if ((await post('/auth/login', { email: 'r@example.com' })).status === 200) sent++;
    }
    expect(sent).toBe(10);
    const rows = server.db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM outbox WHERE lower("to") = ?').get('r@example.com');
    expect(rows?.n).toBe(sent);
  });

  it('burns a code after 5 wrong guesses', async () => {
    await post('/auth/login', { email: 'g@example.com' });
    const code = codeFromOutbox('g@example.com');
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) await expectError(await post('/auth/verify', { email: 'g@example.com', code: wrong }), 401, 'UNAUTHORIZED');
    await expectError(await post('/auth/verify', { email: 'g@example.com', code }), 401, 'UNAUTHORIZED');
  });

  it('refuses an expired code', async () => {
    await post('/auth/login', { email: 'late@example.com' });
    server.advance(10 * 60_000 + 1);
    await expectError(await post('/auth/verify', { email: 'late@example.com', code: codeFromOutbox('late@example.com') }), 401, 'UNAUTHORIZED');
  });

  it('does not accept one address’s code for another', async () => {
    await post('/auth/login', { email: 'a@example.com' });
    const code = codeFromOutbox('a@example.com');
    await post('/auth/login', { email: 'b@example.com' });
    await expectError(await post('/auth/verify', { email: 'b@example.com', code: codeFromOutbox('b@example.com') === code ? '999999' : code }), 401, 'UNAUTHORIZED');
  });

  it('stores no code in plain text', async () => {
    await post('/auth/login', { email: 'p@example.com' });
    const code = codeFromOutbox('p@example.com');
    const row = server.db.prepare<[], { code_hash: string }>('SELECT code_hash FROM login_codes').get();
    expect(row?.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row?.code_hash).not.toContain(code);
  });
});

describe('session tokens on /me', () => {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

  async function attacks(userId: string, genuine: string): Promise<Record<string, string>> {
    const now = Math.floor(server.services.clock().getTime() / 1000);
    const claims = { sub: userId, email: 'ada@example.com', iss: 'svcd', iat: now, exp: now + 3600 };
    const [header, payload, signature] = genuine.split('.') as [string, string, string];
    const flipped = signature.slice(0, -2) + (signature.endsWith('AA') ? 'BB' : 'AA');
    const { privateKey } = await generateKeyPair('RS256');
    const secretKey = new TextEncoder().encode(TEST_JWT_SECRET);
    return {
      'tampered signature': `${header}.${payload}.${flipped}`,
      'tampered payload': `${header}.${encode({ ...claims, sub: 'someone-else' })}.${signature}`,
      'alg none': `${encode({ alg: 'none', typ: 'JWT' })}.${encode(claims)}.`,
      'RS256 signed': await new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).sign(privateKey),
      expired: await new SignJWT({ ...claims, iat: now - 7200, exp: now - 3600 }).setProtectedHeader({ alg: 'HS256' }).sign(secretKey),
      'other secret': await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('another-secret-of-enough-length-000000')),
      'other issuer': await new SignJWT({ ...claims, iss: 'evil' }).setProtectedHeader({ alg: 'HS256' }).sign(secretKey),
      HS512: await new SignJWT(claims).setProtectedHeader({ alg: 'HS512' }).sign(secretKey),
      garbage: 'not.a.jwt',
    };
  }

  it('refuses every forged, expired or foreign token with one generic 401', async () => {
    const { token, user_id } = await signIn('ada@example.com');
    expect((await getMe(token)).status).toBe(200);
    for (const [name, forged] of Object.entries(await attacks(user_id, token))) {
      const error = await expectError(await getMe(forged), 401, 'UNAUTHORIZED');
      expect(error, name).toEqual({ code: 'UNAUTHORIZED', message: 'Missing or invalid credential.' });
    }
  });

  it('refuses a missing or malformed Authorization header', async () => {
    await expectError(await fetch(`${server.url}/me`), 401, 'UNAUTHORIZED');
    const { token } = await signIn('ada@example.com');
    await expectError(await fetch(`${server.url}/me`, { headers: { authorization: token } }), 401, 'UNAUTHORIZED');
    await expectError(await fetch(`${server.url}/me`, { headers: { authorization: `Basic ${token}` } }), 401, 'UNAUTHORIZED');
  });

  it('refuses an API key on a session route and names the credential to use', async () => {
    const key = generateApiKey().key;
    expect(key.startsWith(API_KEY_PREFIX)).toBe(true);
    const error = await expectError(await getMe(key), 401, 'UNAUTHORIZED');
    expect(error.message).toMatch(/session token/);
    expect(error.details).toEqual({ credential: 'session' });
    const legacy = await expectError(await getMe(`mcp_${'a'.repeat(40)}`), 401, 'UNAUTHORIZED');
    expect(legacy.message).toMatch(/session token/);
  });

  it('refuses the token of a deleted account', async () => {
    const { token, user_id } = await signIn('gone@example.com');
    server.db.prepare('DELETE FROM users WHERE id = ?').run(user_id);
    await expectError(await getMe(token), 401, 'UNAUTHORIZED');
  });
});
