import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { userWithSession } from '../../../daemon/src/test/http.js';
import { startTestServer } from '../../../daemon/src/test/server.js';
import type { TestServer } from '../../../daemon/src/test/server.js';
import { ApiClient } from '../client/api-client.js';
import { captureIo, runSvc } from '../test/io.js';
import { meCommand, type Profile } from './me.js';

let dir: string;
let server: TestServer;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-cli-me-'));
  server = await startTestServer();
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const svc = (token: string, ...args: string[]) =>
  runSvc(args, captureIo({ SVC_CONFIG_DIR: dir, SVC_CREDENTIAL_STORE: 'file', SVC_SERVER: server.url, SVC_TOKEN: token }));

describe('svc me', () => {
  it('reads the profile, and changes only what the options name', async () => {
    const { user, token } = await userWithSession(server, 'dev', 'ada@example.com');
    expect(await svc(token, 'me')).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        'email:         ada@example.com',
        `user id:       ${user.id}`,
        'plan:          Developer (dev)',
        'team:          none',
        'display name:  (not set)',
        'notifications: scan completed on, new location on, invites on',
        '',
      ].join('\n'),
    });

    const changed = await svc(token, 'me', '--display-name', 'Ada Lovelace', '--notify-new-location', 'off', '--json');
    expect(changed.code).toBe(0);
    expect(JSON.parse(changed.stdout)).toEqual({
      email: 'ada@example.com',
      user_id: user.id,
      tier: 'dev',
      display_name: 'Ada Lovelace',
      notifications: { scan_completed: true, new_location: false, invites: true },
    });
    expect((await svc(token, 'me')).stdout).toMatch(/display name: {2}Ada Lovelace\nnotifications: scan completed on, new location off, invites on\n$/);

    const cleared = await svc(token, 'me', '--display-name', '', '--notify-invites', 'no');
    expect(cleared.stdout).toMatch(/display name: {2}\(not set\)\nnotifications: scan completed on, new location off, invites off\n$/);
  });

  it('shows the team once the user is in one', async () => {
    const { token } = await userWithSession(server, 'team');
    const created = await svc(token, 'team', 'create', 'Acme', '--json');
    const orgId = (JSON.parse(created.stdout) as { org_id: string }).org_id;
    const io = captureIo({});
    expect(await meCommand(io, new ApiClient(server.url, token), { json: true })).toBe(0);
    expect((JSON.parse(io.out()) as Profile).org_id).toBe(orgId);
  });

  it('refuses a switch that is not on or off before any request, and prints the server’s refusal as one line', async () => {
    const { token } = await userWithSession(server, 'free');
    const bad = await svc(token, 'me', '--notify-invites', 'maybe');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/option '--notify-invites <on\|off>' argument 'maybe' is invalid. must be on or off./);

    const long = await svc(token, 'me', '--display-name', 'x'.repeat(101));
    expect(long).toEqual({ code: 2, stdout: '', stderr: 'svc: display_name may have at most 100 characters (INVALID_FIELD)\n' });
  });
});
