import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SmtpMailTransport } from '../../../daemon/src/mail/smtp.js';
import { userWithSession } from '../../../daemon/src/test/http.js';
import { startTestServer } from '../../../daemon/src/test/server.js';
import type { TestServer } from '../../../daemon/src/test/server.js';
import { codeFromMail, startTestSmtpServer } from '../../../daemon/src/test/smtp.js';
import type { TestSmtpServer } from '../../../daemon/src/test/smtp.js';
import { napiKeychain, probeKeychain } from '../credentials/store.js';
import { captureIo, runSvc } from '../test/io.js';

// CI (.ci/run) runs a Secret Service and sets SVC_EXPECT_KEYCHAIN=1: there the keychain flow must run, not skip.
const keychainMissing = (await probeKeychain(napiKeychain, process.env)) !== undefined && process.env.SVC_EXPECT_KEYCHAIN !== '1';

// svc login / logout / whoami / auth status against a real svcd (real socket, real SQLite file) that mails the code
// through a real SMTP server. Credentials go to the file store in a temp config dir: tests never touch the user's
// keychain or ~/.config.

let dir: string;
let server: TestServer;
let smtp: TestSmtpServer;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-cli-login-'));
  smtp = await startTestSmtpServer();
  const url = smtp.url;
  server = await startTestServer(() => ({ mail: new SmtpMailTransport({ url, from: 'svc <svc@example.org>' }) }));
});
afterEach(async () => {
  await server.close();
  await smtp.close();
  await rm(dir, { recursive: true, force: true });
});

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { SVC_CONFIG_DIR: dir, SVC_CREDENTIAL_STORE: 'file', ...extra };
}

/** Types the mailed code on stdin once the mail has arrived, as a user would. */
function typeCodeWhenMailed(stdin: PassThrough): void {
  const timer = setInterval(() => {
    if (smtp.received.length === 0) return;
    clearInterval(timer);
    stdin.write(`${codeFromMail(smtp.received[0])}\n`);
  }, 10);
}

async function login(email: string) {
  const stdin = new PassThrough();
  typeCodeWhenMailed(stdin);
  return runSvc(['login', '--server', `${server.url}/`, '--email', email], captureIo(env(), { stdin }));
}

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('svc login', () => {
  it('signs in with the mailed code, stores the session (0600), makes the server the default; whoami, auth status and logout follow', async () => {
    const result = await login('ada@example.com');
    expect(result.stderr).toBe('svc: a sign-in code was mailed to ada@example.com\n');
    expect(result.stdout).toMatch(new RegExp(`^signed in to ${server.url} as ada@example\\.com \\(free\\); the session is valid until \\S+Z, kept in the credentials file\\n$`));
    expect(result.code).toBe(0);
    expect(smtp.received[0]?.to).toEqual(['ada@example.com']);

    const credentials = JSON.parse(await readFile(join(dir, 'credentials.json'), 'utf8')) as { servers: Record<string, { session?: string }> };
    const token = credentials.servers[server.url]?.session;
    expect(token).toMatch(/^ey/);
    expect((await stat(join(dir, 'credentials.json'))).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'))).toEqual({ default_server: server.url, servers: [server.url] });

    // No --server: the default profile.
    const whoami = await runSvc(['whoami'], captureIo(env()));
    expect(whoami).toMatchObject({ code: 0, stdout: `ada@example.com (free) on ${server.url}\n`, stderr: '' });
    const whoamiJson = await runSvc(['whoami', '--json'], captureIo(env()));
    expect(JSON.parse(whoamiJson.stdout)).toMatchObject({ server: server.url, email: 'ada@example.com', tier: 'free' });

    const status = await runSvc(['auth', 'status', '--json'], captureIo(env()));
    expect(status.code).toBe(0);
    expect(status.stdout).not.toContain(token!);
    expect(JSON.parse(status.stdout)).toMatchObject({
      server: server.url,
      server_source: 'config',
      store: { kind: 'file', description: expect.stringContaining('because SVC_CREDENTIAL_STORE=file') },
      session: { present: true, source: 'file', email: 'ada@example.com', expired: false },
      api_key: { present: false },
    });
    const text = await runSvc(['auth', 'status'], captureIo(env()));
    expect(text.stdout).toContain(`server:   ${server.url} (the default server in the config)`);
    expect(text.stdout).toMatch(/session: {2}ada@example\.com in the credentials file, valid until \S+Z/);

    const logout = await runSvc(['logout'], captureIo(env()));
    expect(logout).toMatchObject({ code: 0, stdout: `signed out of ${server.url}: removed the session\n` });
    const after = await runSvc(['whoami'], captureIo(env()));
    expect(after).toEqual({ code: 2, stdout: '', stderr: `svc: not signed in to ${server.url}: run \`svc login\`\n` });
  });

  it('a wrong --code and a missing --email are one line each, exit 2, nothing stored', async () => {
    // A wrong code: the server's message and code, one line, nothing stored.
    const wrong = await runSvc(['login', '--server', server.url, '--email', 'bob@example.com', '--code', '000000'], captureIo(env()));
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe('svc: The code is wrong, expired or already used; ask for a new one. (UNAUTHORIZED)\n');
    await expect(readFile(join(dir, 'credentials.json'), 'utf8')).rejects.toThrow(/ENOENT/);

    const noStdin = await runSvc(['login', '--server', server.url], captureIo(env()));
    expect(noStdin).toMatchObject({ code: 2, stderr: 'svc: give the address with --email (there is no terminal to ask on)\n' });
  });

  it('with SVC_CREDENTIAL_STORE=keychain and no keychain: one line, exit 2, and no code is mailed', async () => {
    const result = await runSvc(['login', '--server', server.url, '--email', 'ada@example.com'], captureIo({ SVC_CONFIG_DIR: dir, SVC_CREDENTIAL_STORE: 'keychain' }));
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(result.stderr).toMatch(/^svc: no OS keychain answered \(.+\); SVC_CREDENTIAL_STORE=keychain asks for one/);
    expect(smtp.received).toHaveLength(0);
  });
});

describe('sessions and servers that fail', () => {
  it('an expired session is one line and exit 2, whether the server or the token says so', async () => {
    const { token } = await userWithSession(server, 'free');
    expect((await runSvc(['whoami', '--server', server.url], captureIo(env({ SVC_TOKEN: token })))).code).toBe(0);
    // The daemon's clock passes the 12-hour lifetime: the server answers 401.
    server.advance(13 * 3600_000);
    const byServer = await runSvc(['whoami', '--server', server.url], captureIo(env({ SVC_TOKEN: token })));
    expect(byServer).toEqual({ code: 2, stdout: '', stderr: 'svc: the session token in SVC_TOKEN has expired or was refused: unset SVC_TOKEN (then `svc login`) or renew it\n' });

    // A token whose exp has passed is refused before any request.
    const claims = Buffer.from(JSON.stringify({ sub: 'u', email: 'a@example.com', iat: 1, exp: 2 })).toString('base64url');
    const stale = `eyJhbGciOiJIUzI1NiJ9.${claims}.sig`;
    const byToken = await runSvc(['keys', 'list', '--server', 'http://127.0.0.1:9'], captureIo(env({ SVC_TOKEN: stale })));
    expect(byToken).toEqual({ code: 2, stdout: '', stderr: 'svc: the session token in SVC_TOKEN has expired or was refused: unset SVC_TOKEN (then `svc login`) or renew it\n' });
    // With --json the failure is a JSON object on stdout, printed once, and the exit code stays 2.
    const asJson = await runSvc(['keys', 'list', '--json', '--server', 'http://127.0.0.1:9'], captureIo(env({ SVC_TOKEN: stale })));
    expect(asJson.code).toBe(2);
    expect(asJson.stderr).toBe('');
    expect(JSON.parse(asJson.stdout)).toEqual({ error: { code: 'SESSION_EXPIRED', message: expect.stringContaining('unset SVC_TOKEN') } });
    const status = await runSvc(['auth', 'status', '--json', '--server', server.url], captureIo(env({ SVC_TOKEN: stale })));
    expect(JSON.parse(status.stdout).session).toEqual({ present: true, source: 'SVC_TOKEN', email: 'a@example.com', expires_at: '1970-01-01T00:00:02.000Z', expired: true });
  });

  it('an unreachable server is one line and exit 2 (with --json: a JSON error on stdout)', async () => {
    const port = await closedPort();
    const { token } = await userWithSession(server, 'free');
    const result = await runSvc(['whoami', '--server', `http://127.0.0.1:${port}`], captureIo(env({ SVC_TOKEN: token })));
    expect(result).toEqual({ code: 2, stdout: '', stderr: `svc: cannot reach http://127.0.0.1:${port}: ECONNREFUSED\n` });
    const asJson = await runSvc(['whoami', '--json', '--server', `http://127.0.0.1:${port}`], captureIo(env({ SVC_TOKEN: token })));
    expect(asJson).toEqual({
      code: 2,
      stdout: `${JSON.stringify({ error: { code: 'SERVER_UNREACHABLE', message: `cannot reach http://127.0.0.1:${port}: ECONNREFUSED` } })}\n`,
      stderr: '',
    });
  });

  it('SVC_TOKEN wins over the stored session, SVC_SERVER over the default, --server over both', async () => {
    await login('ada@example.com');
    const other = await userWithSession(server, 'dev', 'grace@example.com');
    const viaEnv = await runSvc(['whoami'], captureIo(env({ SVC_TOKEN: other.token })));
    expect(viaEnv.stdout).toBe(`grace@example.com (dev) on ${server.url}\n`);

    const port = await closedPort();
    const viaServerEnv = await runSvc(['whoami'], captureIo(env({ SVC_SERVER: `http://127.0.0.1:${port}` })));
    // That server has no stored session.
    expect(viaServerEnv.stderr).toBe(`svc: not signed in to http://127.0.0.1:${port}: run \`svc login\`\n`);
    const viaFlag = await runSvc(['whoami', '--server', server.url], captureIo(env({ SVC_SERVER: `http://127.0.0.1:${port}` })));
    expect(viaFlag.stdout).toBe(`ada@example.com (free) on ${server.url}\n`);
  });
});

describe('svc config', () => {
  it('set-server makes the default that commands use; show lists it', async () => {
    const set = await runSvc(['config', 'set-server', 'https://SVC.example.com/'], captureIo(env()));
    expect(set).toMatchObject({ code: 0, stdout: 'default server: https://svc.example.com\n' });
    const show = await runSvc(['config', 'show', '--json'], captureIo(env()));
    expect(JSON.parse(show.stdout)).toEqual({ config_dir: dir, default_server: 'https://svc.example.com', servers: ['https://svc.example.com'] });
    const whoami = await runSvc(['whoami'], captureIo(env()));
    expect(whoami.stderr).toBe('svc: not signed in to https://svc.example.com: run `svc login`\n');
    const bad = await runSvc(['config', 'set-server', 'ftp://x'], captureIo(env()));
    expect(bad).toMatchObject({ code: 2, stderr: 'svc: not a server URL: ftp://x (expected http(s)://host[:port])\n' });
  });
});

describe.skipIf(keychainMissing)('with the OS keychain (a real Secret Service)', () => {
  it('login stores the session in the keychain, not on disk; whoami reads it; logout removes it', async () => {
    const keychainEnv = { SVC_CONFIG_DIR: dir, DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR };
    const stdin = new PassThrough();
    typeCodeWhenMailed(stdin);
    try {
      const result = await runSvc(['login', '--server', server.url, '--email', 'kim@example.com'], captureIo(keychainEnv, { stdin }));
      expect(result.stdout).toMatch(/kept in the OS keychain\n$/);
      expect(result.code).toBe(0);
      await expect(readFile(join(dir, 'credentials.json'), 'utf8')).rejects.toThrow(/ENOENT/);
      const whoami = await runSvc(['whoami'], captureIo(keychainEnv));
      expect(whoami.stdout).toBe(`kim@example.com (free) on ${server.url}\n`);
      const status = JSON.parse((await runSvc(['auth', 'status', '--json'], captureIo(keychainEnv))).stdout) as { store: { kind: string }; session: { source: string } };
      expect(status).toMatchObject({ store: { kind: 'keychain' }, session: { source: 'keychain' } });
    } finally {
      const logout = await runSvc(['logout', '--all'], captureIo(keychainEnv));
      expect(logout.stdout).toBe(`signed out of ${server.url}: removed the session\n`);
    }
    expect((await runSvc(['whoami'], captureIo(keychainEnv))).code).toBe(2);
  });
});
