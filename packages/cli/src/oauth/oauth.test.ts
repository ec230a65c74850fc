import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { napiKeychain, openCredentialStore, probeKeychain } from '../credentials/store.js';
import { captureIo, runSvc, type CapturedIo } from '../test/io.js';
import { POISONED_DESCRIPTION, startOAuthServer, testBrowser as browser, type OAuthTestServer, type TestBrowser as Browser } from '../test/oauth-server.js';
import { startTestProxy } from '../../../core/src/scan/remote/testing.js';
import { loadTokens } from './flow.js';

// `svc scan <url>` against a real OAuth-protected MCP endpoint (test/oauth-server.ts: the SDK's authorization server
// and bearer middleware on 127.0.0.1). The browser is a function on the command's io (testBrowser) that follows the
// authorization redirect to the loopback listener, as a browser would.

const T0 = new Date('2026-03-01T10:00:00Z');
const hours = (n: number) => new Date(T0.getTime() + n * 3_600_000);

let dir: string;
let server: OAuthTestServer;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-oauth-'));
  server = await startOAuthServer();
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

function io(clock: Date, open: Browser, env: NodeJS.ProcessEnv = { SVC_CONFIG_DIR: dir, SVC_CREDENTIAL_STORE: 'file' }): CapturedIo {
  return { ...captureIo(env, { clock: () => clock }), openBrowser: open };
}

/** The io of a session on a terminal: stdin and stderr are TTYs. */
function terminal(commandIo: CapturedIo): CapturedIo {
  Object.assign(commandIo.stderr, { isTTY: true });
  return { ...commandIo, stdin: Object.assign(new PassThrough(), { isTTY: true }) };
}

async function scan(args: string[], commandIo: CapturedIo) {
  const result = await runSvc(['scan', ...args, '--format', 'json', '--quiet'], commandIo);
  return { ...result, run: result.stdout ? JSON.parse(result.stdout) : undefined };
}

const storeOf = (env: NodeJS.ProcessEnv) => openCredentialStore(captureIo(env));

describe('OAuth sign-in to a remote MCP endpoint', () => {
  it('signs in, finds the poisoned tool; the next scan uses the stored token; an expired one is refreshed', async () => {
    const first = browser();
    const signIn = await scan([server.url, '--oauth'], io(T0, first));
    expect(signIn.code, signIn.stderr).toBe(1);
    const report = signIn.run.reports[0];
    expect(report.coverage.status).toBe('scanned');
    expect(report.tools.find((tool: { name: string }) => tool.name === 'add').description).toBe(POISONED_DESCRIPTION);
    expect(report.findings.some((finding: { ruleId: string; severity: string }) => finding.severity === 'critical' || finding.severity === 'high')).toBe(true);
    expect(first.visits).toHaveLength(1);
    const authorize = new URL(first.visits[0]!);
    expect(authorize.origin + authorize.pathname).toBe(`${server.issuer}authorize`);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(authorize.searchParams.get('resource')).toBe(server.url);
    expect(signIn.stderr).toContain(`svc: ${server.url} asks you to sign in; opening your browser at\n  ${first.visits[0]}\n`);
    expect(signIn.stderr).toContain(`svc: signed in to ${server.url} (tokens kept in the credentials file); scanning it again\n`);
    expect(server.provider.grants).toEqual(['authorization_code']);

    // Stored in the 0600 file under the endpoint's own key, with the expiry judged by the command's clock.
    const stored = await loadTokens(await storeOf({ SVC_CONFIG_DIR: dir, SVC_CREDENTIAL_STORE: 'file' }), new URL(server.url));
    expect(stored).toMatchObject({ expiresAt: hours(1).toISOString(), tokens: { token_type: 'Bearer', refresh_token: expect.stringMatching(/^rt-/) } });
    const file = JSON.parse(await readFile(join(dir, 'credentials.json'), 'utf8'));
    expect(Object.keys(file.servers)).toEqual([server.url]);
    expect(Object.keys(file.servers[server.url])).toEqual(['oauth']);
    // The token never shows in the report.
    expect(signIn.stdout).not.toContain(stored!.tokens.access_token);

    // Half an hour later, without a terminal and without --oauth: the stored token, no browser, no new grant.
    const none = browser();
    const again = await scan([server.url], io(hours(0.5), none));
    expect(again.code, again.stderr).toBe(1);
    expect(again.run.reports[0].coverage.status).toBe('scanned');
    expect(none.visits).toEqual([]);
    expect(server.provider.grants).toEqual(['authorization_code']);
    expect(server.authorizations.at(-1)).toBe(`Bearer ${stored!.tokens.access_token}`);

    // Two hours on the token has expired: refreshed (the server drops the old one), still no browser.
    const later = await scan([server.url], io(hours(2), none));
    expect(later.code, later.stderr).toBe(1);
    expect(later.run.reports[0].coverage.status).toBe('scanned');
    expect(none.visits).toEqual([]);
    expect(server.provider.grants).toEqual(['authorization_code', 'refresh_token']);
    const refreshed = await loadTokens(await storeOf({ SVC_CONFIG_DIR: dir, SVC_CREDENTIAL_STORE: 'file' }), new URL(server.url));
    expect(refreshed!.tokens.access_token).not.toBe(stored!.tokens.access_token);
    expect(refreshed!.expiresAt).toBe(hours(3).toISOString());
    expect(server.authorizations.at(-1)).toBe(`Bearer ${refreshed!.tokens.access_token}`);
  });

  it('signs in and scans through the user\'s HTTP proxy: discovery, registration, token and listing all go through it', async () => {
    const proxy = await startTestProxy();
    try {
      const env = { SVC_CONFIG_DIR: dir, SVC_CREDENTIAL_STORE: 'file', HTTP_PROXY: proxy.url };
      const signIn = await scan([server.url, '--oauth'], io(T0, browser(), env));
      expect(signIn.code, signIn.stderr).toBe(1);
      expect(signIn.run.reports[0].coverage.status).toBe('scanned');
      expect(new Set(proxy.tunnels)).toEqual(new Set([new URL(server.url).host, new URL(server.issuer).host]));
      const requests = proxy.requests.map((request) => request.replace(/\?.*$/, ''));
      expect(requests).toEqual(
        expect.arrayContaining([
          `GET /.well-known/oauth-protected-resource${new URL(server.url).pathname}`,
          'POST /register',
          'POST /token',
          `POST ${new URL(server.url).pathname}`,
        ]),
      );
    } finally {
      await proxy.close();
    }
  });

  it('signs in to a config\'s url server, keeps its config origin, and uses the stored token in later scans of the config', async () => {
    const config = join(dir, 'mcp.json');
    await writeFile(config, JSON.stringify({ mcpServers: { notes: { url: server.url }, pinned: { url: server.url, headers: { Authorization: 'Bearer ${env:NOTES_TOKEN}' } } } }));
    const env = { SVC_CONFIG_DIR: dir, SVC_CREDENTIAL_STORE: 'file', NOTES_TOKEN: 'not-a-valid-token' };
    const first = browser();
    const signIn = await scan([config, '--oauth'], io(T0, first, env));
    expect(signIn.code, signIn.stderr).toBe(2);
    // One sign-in for the server without credentials of its own; the one sending its own header is left to them.
    expect(first.visits).toHaveLength(1);
    const [notes, pinned] = signIn.run.reports;
    expect(notes.target.origin).toMatchObject({ configPath: config, serverName: 'notes' });
    expect(notes.coverage.status).toBe('scanned');
    expect(notes.tools.some((tool: { name: string }) => tool.name === 'add')).toBe(true);
    expect(pinned.target.origin).toMatchObject({ serverName: 'pinned' });
    expect(pinned.coverage.status).toBe('not-scanned');
    expect(pinned.coverage.reasons[0]).toMatch(/refused the credentials/);
    const stored = await loadTokens(await storeOf(env), new URL(server.url));
    expect(server.authorizations).toContain(`Bearer ${stored!.tokens.access_token}`);

    // A later scan of the config, not on a terminal: the stored token goes to that server, no browser.
    const withToken = () => server.authorizations.filter((header) => header === `Bearer ${stored!.tokens.access_token}`).length;
    const before = withToken();
    const none = browser();
    const again = await scan([config], io(hours(0.5), none, env));
    expect(none.visits).toEqual([]);
    expect(again.run.reports[0].coverage.status).toBe('scanned');
    expect(withToken()).toBeGreaterThan(before);
    expect(server.provider.grants).toEqual(['authorization_code']);
  });

  it('signs in anew when the server revoked the sign-in and the refresh fails; without a terminal it only says so', async () => {
    await scan([server.url, '--oauth'], io(T0, browser()));
    server.provider.revokeAll();

    // Not interactive: the honest not-scanned report (exit 2), no browser.
    const none = browser();
    const refused = await scan([server.url], io(hours(2), none));
    expect(refused.code).toBe(2);
    expect(refused.run.reports[0].coverage).toEqual({ status: 'not-scanned', reasons: [expect.stringMatching(/^the server requires OAuth sign-in, so it was not scanned; .*--oauth/)] });
    expect(none.visits).toEqual([]);

    // With --oauth the refresh fails too, and a new sign-in in the browser follows.
    const second = browser();
    const signedIn = await scan([server.url, '--oauth'], io(hours(2), second));
    expect(signedIn.code, signedIn.stderr).toBe(1);
    expect(signedIn.run.reports[0].coverage.status).toBe('scanned');
    expect(second.visits).toHaveLength(1);
    expect(server.provider.grants).toEqual(['authorization_code', 'authorization_code']);
  });

  it('a stored token the server no longer accepts (not yet expired) leads to a new sign-in', async () => {
    await scan([server.url, '--oauth'], io(T0, browser()));
    server.provider.accessTokens.clear();
    const second = browser();
    const result = await scan([server.url, '--oauth'], io(hours(0.5), second));
    expect(result.code, result.stderr).toBe(1);
    expect(second.visits).toHaveLength(1);
    expect(result.run.reports[0].coverage.status).toBe('scanned');
  });

  it('a state mismatch is a clear error, exit 2, nothing stored', async () => {
    const forged = browser((redirect) => redirect.searchParams.set('state', 'forged'));
    const result = await scan([server.url, '--oauth'], io(T0, forged));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `svc: OAuth sign-in to ${server.url} failed: the answer does not carry the state this sign-in sent (a stale or forged redirect); nothing was stored\n`,
    );
    expect(result.run.reports[0].coverage.status).toBe('not-scanned');
    expect(server.provider.grants).toEqual([]);
    expect(await loadTokens(await storeOf({ SVC_CONFIG_DIR: dir, SVC_CREDENTIAL_STORE: 'file' }), new URL(server.url))).toBeUndefined();
  });

  it('an authorization server error is a clear error, exit 2, nothing stored', async () => {
    server.provider.deny = true;
    const result = await scan([server.url, '--oauth'], io(T0, browser()));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`svc: OAuth sign-in to ${server.url} failed: the authorization server answered access_denied: the user declined; nothing was stored\n`);
    expect(await loadTokens(await storeOf({ SVC_CONFIG_DIR: dir, SVC_CREDENTIAL_STORE: 'file' }), new URL(server.url))).toBeUndefined();
  });

  it('signs in on a terminal without --oauth; never without a terminal, nor with --no-oauth, nor when credentials are given', async () => {
    const none = browser();
    const quiet = await scan([server.url], io(T0, none));
    expect(quiet.code).toBe(2);
    expect(quiet.run.reports[0].coverage.reasons[0]).toMatch(/requires OAuth sign-in/);
    const off = await scan([server.url, '--no-oauth'], terminal(io(T0, none)));
    expect(off.code).toBe(2);
    expect(none.visits).toEqual([]);

    const both = await runSvc(['scan', server.url, '--oauth', '-H', 'Authorization: Bearer x'], io(T0, none));
    expect(both.code).toBe(2);
    expect(both.stderr).toBe('svc: --oauth cannot be combined with credentials given by --header or --bearer-token-env\n');

    const onTerminal = browser();
    const signedIn = await scan([server.url], terminal(io(T0, onTerminal)));
    expect(signedIn.code, signedIn.stderr).toBe(1);
    expect(onTerminal.visits).toHaveLength(1);
  });

  it('svc auth forget removes the stored tokens; the next scan needs a sign-in again', async () => {
    await scan([server.url, '--oauth'], io(T0, browser()));
    const forget = await runSvc(['auth', 'forget', server.url], io(T0, browser()));
    expect(forget).toMatchObject({ code: 0, stdout: `forgot the OAuth tokens for ${server.url}\n` });
    expect((await runSvc(['auth', 'forget', server.url, '--json'], io(T0, browser()))).stdout).toBe(`${JSON.stringify({ endpoint: server.url, removed: false }, null, 2)}\n`);
    expect((await scan([server.url], io(T0, browser()))).code).toBe(2);
    expect((await runSvc(['auth', 'forget', 'ftp://x'], io(T0, browser()))).stderr).toBe('svc: not an http(s) URL: "ftp://x"\n');
  });
});

// CI runs a Secret Service and sets SVC_EXPECT_KEYCHAIN=1 (see credentials/store.test.ts).
const keychainProblem = await probeKeychain(napiKeychain, process.env);
describe.skipIf(keychainProblem !== undefined && process.env.SVC_EXPECT_KEYCHAIN !== '1')('OAuth tokens in the OS keychain', () => {
  it('keeps them under the account "<endpoint>:oauth" of the svc service, and forgets them', async () => {
    const env = { SVC_CONFIG_DIR: dir, DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR };
    // The server's random port makes the account its own, so parallel runs never share a keychain entry.
    const endpoint = server.url;
    try {
      const signIn = await scan([endpoint, '--oauth'], io(T0, browser(), env));
      expect(signIn.code, signIn.stderr).toBe(1);
      expect(signIn.stderr).toContain('(tokens kept in the OS keychain)');
      const stored = await napiKeychain.get(`${new URL(endpoint).href}:oauth`);
      expect(JSON.parse(stored!).tokens.access_token).toMatch(/^at-/);
      const again = browser();
      expect((await scan([endpoint], io(hours(0.5), again, env))).code).toBe(1);
      expect(again.visits).toEqual([]);
    } finally {
      expect((await runSvc(['auth', 'forget', endpoint], io(T0, browser(), env))).code).toBe(0);
    }
    expect(await napiKeychain.get(`${new URL(endpoint).href}:oauth`)).toBeUndefined();
  });
});
