import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, userWithSession } from '../../../daemon/src/test/http.js';
import { startTestServer } from '../../../daemon/src/test/server.js';
import type { TestServer } from '../../../daemon/src/test/server.js';
import { captureIo, runSvc } from '../test/io.js';

// svc keys create|list|revoke against a real svcd; the saved key lands in the file store of a temp config dir.

let dir: string;
let server: TestServer;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-cli-keys-'));
  server = await startTestServer();
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

function env(token: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { SVC_CONFIG_DIR: dir, SVC_CREDENTIAL_STORE: 'file', SVC_SERVER: server.url, SVC_TOKEN: token, ...extra };
}

describe('svc keys', () => {
  it('create prints the key once on stdout, --save stores it for the server; list shows prefix…last4; revoke stops it', async () => {
    const { token } = await userWithSession(server, 'dev');
    const created = await runSvc(['keys', 'create', '--label', 'laptop', '--save', '--expires-in-days', '30'], captureIo(env(token)));
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^svc_[0-9A-Za-z]{38}$/);
    expect(created.stderr).toMatch(/^svc: created key \S+ "laptop" \(scan:submit, scan:list, scan:get; expires \S+\)\nsvc: saved in the credentials file for http:\/\/127\.0\.0\.1:\d+; `svc scan --remote` uses it\n$/);
    const stored = JSON.parse(await readFile(join(dir, 'credentials.json'), 'utf8')) as { servers: Record<string, Record<string, string>> };
    expect(stored.servers[server.url]?.['api-key']).toBe(key);
    // The key works against the daemon.
    expect((await call(server, 'GET', '/api/v1/keys/self', key)).status).toBe(200);

    const scoped = await runSvc(['keys', 'create', '--label', 'ci', '--scope', 'scan:submit,scan:get', '--ip', '203.0.113.0/24', '--json'], captureIo(env(token)));
    const ci = JSON.parse(scoped.stdout) as { id: string; key: string; scopes: string[]; ip_allowlist: string[]; saved: null };
    expect(ci).toMatchObject({ scopes: ['scan:submit', 'scan:get'], ip_allowlist: ['203.0.113.0/24'], saved: null });

    const list = await runSvc(['keys', 'list'], captureIo(env(token)));
    const lines = list.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+LABEL\s+KEY\s+SCOPES\s+EXPIRES\s+LAST USED$/);
    expect(lines[1]).toContain(`${key.slice(0, 8)}…${key.slice(-4)}`);
    expect(lines[1]).toMatch(/laptop .* scan:submit,scan:list,scan:get .* \d{4}-\d\d-\d\d\s+\d{4}-\d\d-\d\d \d\d:\d\d$/);
    expect(lines[2]).toMatch(/ci .* never$/);
    expect(lines.at(-1)).toBe('2 keys');
    expect(list.stdout).not.toContain(key);

    const revoked = await runSvc(['keys', 'revoke', ci.id], captureIo(env(token)));
    expect(revoked).toEqual({ code: 0, stdout: `revoked key ${ci.id}\n`, stderr: '' });
    expect((await call(server, 'GET', '/api/v1/keys/self', ci.key)).status).toBe(401);
    const json = JSON.parse((await runSvc(['keys', 'list', '--all', '--json'], captureIo(env(token)))).stdout) as { id: string; revoked_at: string | null }[];
    expect(json.map((k) => k.revoked_at !== null)).toEqual([false, true]);

    const again = await runSvc(['keys', 'revoke', ci.id], captureIo(env(token)));
    expect(again).toMatchObject({ code: 2, stderr: expect.stringMatching(/^svc: .* \(NOT_FOUND\)\n$/) });
  });

  it('daemon refusals are the message and code on one line: free plan, bad scope; --label is required', async () => {
    const free = await userWithSession(server, 'free');
    const refused = await runSvc(['keys', 'create', '--label', 'x', '--save'], captureIo(env(free.token)));
    expect(refused).toEqual({ code: 2, stdout: '', stderr: 'svc: API keys need a paid plan (Developer, Team or Business), your own or your team\'s. (SUBSCRIPTION_REQUIRED)\n' });
    // Nothing was saved for a key that was never made.
    await expect(readFile(join(dir, 'credentials.json'), 'utf8')).rejects.toThrow(/ENOENT/);

    const dev = await userWithSession(server, 'dev');
    const badScope = await runSvc(['keys', 'create', '--label', 'x', '--scope', 'root'], captureIo(env(dev.token)));
    expect(badScope.code).toBe(2);
    expect(badScope.stderr).toMatch(/^svc: .*root.* \(INVALID_FIELD\)\n$/);

    const noLabel = await runSvc(['keys', 'create'], captureIo(env(dev.token)));
    expect(noLabel.code).toBe(2);
    expect(noLabel.stderr).toContain("required option '--label <label>' not specified");

    // An API key is not a session: key management needs `svc login`.
    const noSession = await runSvc(['keys', 'list'], captureIo({ SVC_CONFIG_DIR: dir, SVC_CREDENTIAL_STORE: 'file', SVC_SERVER: server.url }));
    expect(noSession.stderr).toBe(`svc: not signed in to ${server.url}: run \`svc login\`\n`);
  });
});
