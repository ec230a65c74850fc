// Issue 12: credentials refused before one is identified (a malformed or unknown API key, a bad or expired session
// token) count against a per-client-address budget; once it is spent, that address gets 429 with Retry-After before
// any credential is checked. A real server on 127.0.0.1 with a SQLite file; the client address comes from
// X-Forwarded-For (the loopback peer is a trusted proxy), and the services' clock is moved by hand.
import { generateApiKey } from '@svc/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createKey, expectError, userWithSession } from '../test/http.js';
import { startTestServer, type TestServer } from '../test/server.js';
import { REFUSED_CREDENTIAL_LIMITS } from './refused-credentials.js';

let server: TestServer;

beforeEach(async () => {
  server = await startTestServer(() => ({ trustedProxies: ['127.0.0.0/8'] }));
});

afterEach(async () => {
  await server.close();
});

const PER_MINUTE = REFUSED_CREDENTIAL_LIMITS.find((limit) => limit.window === 'minute')!.limit;
const from = (ip: string) => ({ 'x-forwarded-for': ip });

/** A well-formed key nobody was given: passes the format check, fails the lookup. */
const unknownKey = () => generateApiKey().key;

describe('refused credentials per client address', () => {
  it('counts unknown, malformed and expired credentials of every kind, then answers 429 with Retry-After', async () => {
    const { token: session } = await userWithSession(server, 'dev');
    const refusals = [
      () => call(server, 'GET', '/api/v1/keys/self', unknownKey(), undefined, from('203.0.113.7')),
      () => call(server, 'GET', '/api/v1/keys/self', 'svc_not-a-real-key', undefined, from('203.0.113.7')),
      () => call(server, 'GET', '/me', `${session.slice(0, -4)}AAAA`, undefined, from('203.0.113.7')),
      // optionalCredential routes (public with a credential) count too.
      () => call(server, 'GET', '/api/v1/scans/recent', unknownKey(), undefined, from('203.0.113.7')),
    ];
    for (let sent = 0; sent < PER_MINUTE; sent++) await expectError(await refusals[sent % refusals.length]!(), 401, 'UNAUTHORIZED');

    const limited = await call(server, 'GET', '/api/v1/keys/self', unknownKey(), undefined, from('203.0.113.7'));
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const error = await expectError(limited, 429, 'RATE_LIMITED');
    expect(error.details).toMatchObject({ window: 'refused_credentials_minute', tier: 'anonymous', limit: PER_MINUTE, current: PER_MINUTE });
    expect(error.details?.['retry_after_seconds']).toBe(Number(limited.headers.get('retry-after')));
    // Spent: nothing is checked for that address, a valid session included, until the window ends.
    await expectError(await call(server, 'GET', '/me', session, undefined, from('203.0.113.7')), 429, 'RATE_LIMITED');

    // Another address is not affected; the same one may try again in the next minute.
    expect((await call(server, 'GET', '/me', session, undefined, from('198.51.100.4'))).status).toBe(200);
    server.advance(60_000);
    expect((await call(server, 'GET', '/me', session, undefined, from('203.0.113.7'))).status).toBe(200);
  });

  it('does not count good credentials, requests without one, or a credential of the wrong kind', async () => {
    const { token: session } = await userWithSession(server, 'dev');
    const { key } = await createKey(server, session);
    for (let sent = 0; sent <= PER_MINUTE; sent++) {
      expect((await call(server, 'GET', '/api/v1/keys/self', key, undefined, from('203.0.113.8'))).status).toBe(200);
      await expectError(await call(server, 'GET', '/api/v1/keys/self', undefined, undefined, from('203.0.113.8')), 401, 'UNAUTHORIZED');
      await expectError(await call(server, 'GET', '/me', key, undefined, from('203.0.113.8')), 401, 'UNAUTHORIZED');
    }
    await expectError(await call(server, 'GET', '/api/v1/keys/self', unknownKey(), undefined, from('203.0.113.8')), 401, 'UNAUTHORIZED');
  });
});
