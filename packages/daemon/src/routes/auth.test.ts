import { afterEach, describe, expect, it } from 'vitest';
import { LOGIN_IP_LIMITS, VERIFY_IP_LIMITS } from '../auth/login-codes.js';
import { MailDeliveryError, SmtpMailTransport } from '../mail/smtp.js';
import type { MailMessage, MailTransport } from '../mail/transport.js';
import { startTestServer, type TestServer } from '../test/server.js';
import { codeFromMail, startTestSmtpServer, type TestSmtpServer } from '../test/smtp.js';
import { expectError } from '../test/http.js';

let server: TestServer | undefined;
let smtp: TestSmtpServer | undefined;

afterEach(async () => {
  await server?.close();
  await smtp?.close();
  server = undefined;
  smtp = undefined;
});

function live(): TestServer {
  if (server === undefined) throw new Error('no server started');
  return server;
}

function post(path: string, body: unknown, from?: string) {
  return fetch(`${live().url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(from === undefined ? {} : { 'x-forwarded-for': from }) },
    body: JSON.stringify(body),
  });
}

async function expectRateLimited(response: Response, window: string, limit: number): Promise<void> {
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  const error = await expectError(response, 429, 'RATE_LIMITED');
  expect(error.details).toEqual({ window, tier: 'anonymous', current: limit, limit, retry_after_seconds: retryAfter });
}

/** The test clock at 00:00:30 UTC of the next day, so a run of requests stays inside one minute and one day. */
function toStartOfNextDay(target: TestServer): void {
  const now = target.services.clock().getTime();
  target.advance(Math.ceil((now + 1) / 86_400_000) * 86_400_000 + 30_000 - now);
}

const loginPerMinute = LOGIN_IP_LIMITS[0].limit;
const loginPerDay = LOGIN_IP_LIMITS[1].limit;
const verifyPerMinute = VERIFY_IP_LIMITS[0].limit;
const verifyPerDay = VERIFY_IP_LIMITS[1].limit;

describe('sign-in mail over SMTP', () => {
  it('mails the code through a real SMTP server and the code signs in', async () => {
    smtp = await startTestSmtpServer();
    const url = smtp.url;
    server = await startTestServer(() => ({ mail: new SmtpMailTransport({ url, from: 'svc <svc@example.org>' }) }));

    const login = await post('/auth/login', { email: 'Ada@Example.com' });
    expect(login.status).toBe(200);
    expect(await login.json()).toEqual({ success: true, data: { sent: true } });
    expect(smtp.received).toHaveLength(1);
    const [mail] = smtp.received;
    expect(mail?.from).toBe('svc@example.org');
    // Sent as typed: the local part of an address may be case-sensitive at the receiving server.
    expect(mail?.to).toEqual(['Ada@example.com']);
    // Nothing goes to the outbox when SMTP is configured.
    expect(live().db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM outbox').get()?.n).toBe(0);

    const verify = await post('/auth/verify', { email: 'ada@example.com', code: codeFromMail(mail) });
    expect(verify.status).toBe(200);
    const body = (await verify.json()) as { data: { token: string; user: { email: string; tier: string } } };
    expect(body.data.user).toMatchObject({ email: 'ada@example.com', tier: 'free' });
    const me = await fetch(`${live().url}/me`, { headers: { authorization: `Bearer ${body.data.token}` } });
    expect(me.status).toBe(200);
  });

  it('answers 503 without SMTP details when the server refuses, logs why, and keeps the earlier code', async () => {
    let refuse = false;
    smtp = await startTestSmtpServer({
      refuseRecipient: () => (refuse ? { message: 'mailbox unavailable at relay-7.corp.internal', responseCode: 550 } : undefined),
    });
    const url = smtp.url;
    server = await startTestServer(() => ({ mail: new SmtpMailTransport({ url, from: 'svc@example.org' }) }));

    expect((await post('/auth/login', { email: 'ada@example.com' })).status).toBe(200);
    const delivered = codeFromMail(smtp.received[0]);

    refuse = true;
    live().advance(61_000);
    const response = await post('/auth/login', { email: 'ada@example.com' });
    const text = await response.clone().text();
    const error = await expectError(response, 503, 'SERVICE_UNAVAILABLE');
    expect(error).toEqual({ code: 'SERVICE_UNAVAILABLE', message: 'The sign-in code could not be mailed; try again in a minute.' });
    for (const secret of ['relay-7', 'corp.internal', '550', 'RCPT', '127.0.0.1', String(smtp.port)]) expect(text).not.toContain(secret);

    const requestId = response.headers.get('x-request-id');
    const logged = live().logs.find((entry) => entry.message === 'sign-in mail not sent');
    expect(logged?.level).toBe('error');
    expect(logged?.fields['request_id']).toBe(requestId);
    expect(String(logged?.fields['reason'])).toMatch(/relay-7\.corp\.internal.*reply 550/);

    // The undelivered code did not replace the delivered one.
    expect((await post('/auth/verify', { email: 'ada@example.com', code: delivered })).status).toBe(200);
  });

  it('answers 503 when the SMTP server is down', async () => {
    smtp = await startTestSmtpServer();
    const url = smtp.url;
    await smtp.close();
    smtp = undefined;
    server = await startTestServer(() => ({ mail: new SmtpMailTransport({ url, from: 'svc@example.org' }) }));
    await expectError(await post('/auth/login', { email: 'ada@example.com' }), 503, 'SERVICE_UNAVAILABLE');
    expect(String(live().logs.find((entry) => entry.message === 'sign-in mail not sent')?.fields['reason'])).toMatch(/ECONNREFUSED|ECONNECTION/);
  });

  it('still answers 500 for a failure that is not a delivery failure', async () => {
    const broken: MailTransport = {
      send: (_message: MailMessage) => Promise.reject(new Error('disk full at /var/lib/svc')),
    };
    server = await startTestServer(() => ({ mail: broken }));
    const response = await post('/auth/login', { email: 'ada@example.com' });
    expect(await response.clone().text()).not.toContain('/var/lib');
    await expectError(response, 500, 'INTERNAL_ERROR');
    // Sanity: the class the route turns into 503 is the transport's own error, not any Error.
    expect(new MailDeliveryError('x')).toBeInstanceOf(Error);
  });
});

describe('per-client-address sign-in limits', () => {
  const start = () => startTestServer(() => ({ trustedProxies: ['127.0.0.1/32'] }));

  it(`lets one address ask for ${loginPerMinute} codes a minute, for any addresses, and not a different client`, async () => {
    server = await start();
    toStartOfNextDay(server);
    for (let i = 0; i < loginPerMinute; i++) expect((await post('/auth/login', { email: `user${i}@example.com` }, '198.51.100.7')).status).toBe(200);
    await expectRateLimited(await post('/auth/login', { email: 'one-more@example.com' }, '198.51.100.7'), 'login_ip_minute', loginPerMinute);

    // Another client is not affected, and the refused address was not counted for itself.
    expect((await post('/auth/login', { email: 'one-more@example.com' }, '203.0.113.9')).status).toBe(200);

    // The next minute opens the budget again.
    server.advance(60_000);
    expect((await post('/auth/login', { email: 'next-minute@example.com' }, '198.51.100.7')).status).toBe(200);
  });

  it(`stops one address at ${loginPerDay} codes a day`, async () => {
    server = await start();
    toStartOfNextDay(server);
    let sent = 0;
    for (let minute = 0; sent < loginPerDay; minute++) {
      for (let i = 0; i < loginPerMinute; i++) {
        expect((await post('/auth/login', { email: `m${minute}-${i}@example.com` }, '198.51.100.7')).status).toBe(200);
        sent++;
      }
      server.advance(60_000);
    }
    const refused = await post('/auth/login', { email: 'late@example.com' }, '198.51.100.7');
    const retryAfter = Number(refused.headers.get('retry-after'));
    // Until the end of the UTC day, not the end of the minute.
    expect(retryAfter).toBeGreaterThan(23 * 3600);
    await expectRateLimited(refused, 'login_ip_day', loginPerDay);
    expect((await post('/auth/login', { email: 'late@example.com' }, '203.0.113.9')).status).toBe(200);
  });

  it('consumes the address and client buckets together: a request refused by one counts for neither', async () => {
    server = await start();
    toStartOfNextDay(server);
    expect((await post('/auth/login', { email: 'busy@example.com' }, '198.51.100.7')).status).toBe(200);
    // Refused by the address's minute bucket, so the client's budget is untouched by these.
    for (let i = 0; i < 5; i++) {
      const error = await expectError(await post('/auth/login', { email: 'busy@example.com' }, '198.51.100.7'), 429, 'RATE_LIMITED');
      expect(error.details?.['window']).toBe('login_minute');
    }
    for (let i = 1; i < loginPerMinute; i++) expect((await post('/auth/login', { email: `user${i}@example.com` }, '198.51.100.7')).status).toBe(200);
    await expectRateLimited(await post('/auth/login', { email: 'fresh@example.com' }, '198.51.100.7'), 'login_ip_minute', loginPerMinute);
    // Refused by the client bucket, so fresh@ still has its own minute.
    expect((await post('/auth/login', { email: 'fresh@example.com' }, '203.0.113.9')).status).toBe(200);
  });

  it('counts an IPv6 client by its /64', async () => {
    server = await start();
    toStartOfNextDay(server);
    for (let i = 0; i < loginPerMinute; i++) expect((await post('/auth/login', { email: `v6-${i}@example.com` }, `2001:db8::${i + 1}`)).status).toBe(200);
    await expectRateLimited(await post('/auth/login', { email: 'v6-more@example.com' }, '2001:db8::ffff:1'), 'login_ip_minute', loginPerMinute);
    expect((await post('/auth/login', { email: 'v6-more@example.com' }, '2001:db8:0:1::1')).status).toBe(200);
  });

  it(`allows ${verifyPerMinute} verification attempts a minute per client, right or wrong`, async () => {
    server = await start();
    toStartOfNextDay(server);
    for (let i = 0; i < verifyPerMinute; i++) {
      await expectError(await post('/auth/verify', { email: `guess${i}@example.com`, code: '123456' }, '198.51.100.7'), 401, 'UNAUTHORIZED');
    }
    await expectRateLimited(await post('/auth/verify', { email: 'guess@example.com', code: '123456' }, '198.51.100.7'), 'verify_ip_minute', verifyPerMinute);

    // A real code from another client still works.
    expect((await post('/auth/login', { email: 'ada@example.com' }, '203.0.113.9')).status).toBe(200);
    const row = live().db.prepare<[], { text: string }>('SELECT text FROM outbox ORDER BY id DESC').get();
    const code = /\b(\d{6})\b/.exec(row?.text ?? '')?.[1];
    expect((await post('/auth/verify', { email: 'ada@example.com', code }, '203.0.113.9')).status).toBe(200);
  });

  it(`stops verification at ${verifyPerDay} attempts a day per client`, async () => {
    server = await start();
    toStartOfNextDay(server);
    let attempts = 0;
    while (attempts < verifyPerDay) {
      for (let i = 0; i < verifyPerMinute && attempts < verifyPerDay; i++, attempts++) {
        expect((await post('/auth/verify', { email: `d${attempts}@example.com`, code: '123456' }, '198.51.100.7')).status).toBe(401);
      }
      server.advance(60_000);
    }
    await expectRateLimited(await post('/auth/verify', { email: 'x@example.com', code: '123456' }, '198.51.100.7'), 'verify_ip_day', verifyPerDay);
    expect((await post('/auth/verify', { email: 'x@example.com', code: '123456' }, '203.0.113.9')).status).toBe(401);
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    server = await startTestServer();
    toStartOfNextDay(server);
    for (let i = 0; i < loginPerMinute; i++) expect((await post('/auth/login', { email: `s${i}@example.com` }, `203.0.113.${i + 1}`)).status).toBe(200);
    await expectRateLimited(await post('/auth/login', { email: 'spoof@example.com' }, '203.0.113.200'), 'login_ip_minute', loginPerMinute);
  });

  it('states the limits in the OpenAPI description', async () => {
    server = await start();
    const document = (await (await fetch(`${live().url}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { description: string; responses: Record<string, unknown> }>>;
    };
    const login = document.paths['/auth/login']?.['post'];
    const verify = document.paths['/auth/verify']?.['post'];
    expect(login?.description).toContain(`at most ${loginPerMinute} a minute and ${loginPerDay} a day, whatever the addresses`);
    expect(login?.description).toContain('login_ip_minute');
    expect(Object.keys(login?.responses ?? {})).toEqual(expect.arrayContaining(['429', '503']));
    expect(verify?.description).toContain(`${verifyPerMinute} a minute and ${verifyPerDay} a day`);
    expect(verify?.description).toContain('verify_ip_day');
    expect(Object.keys(verify?.responses ?? {})).toContain('429');
  });
});
