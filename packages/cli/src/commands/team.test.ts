import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { userWithSession } from '../../../daemon/src/test/http.js';
import { startTestServer } from '../../../daemon/src/test/server.js';
import type { TestServer } from '../../../daemon/src/test/server.js';
import { ApiClient } from '../client/api-client.js';
import { runCommand } from '../client/run.js';
import { captureIo, runSvc } from '../test/io.js';
import { teamAcceptCommand, teamShowCommand, type TeamView, type UsageReport } from './team.js';

// svc team … against a real svcd (startTestServer: real socket, real SQLite file); credentials come from SVC_TOKEN.

let dir: string;
let server: TestServer;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-cli-team-'));
  server = await startTestServer();
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

function env(token: string): NodeJS.ProcessEnv {
  return { SVC_CONFIG_DIR: dir, SVC_CREDENTIAL_STORE: 'file', SVC_SERVER: server.url, SVC_TOKEN: token };
}

const svc = (token: string, ...args: string[]) => runSvc(args, captureIo(env(token)));

/** The token of the last invite mail to `to`, from the daemon's outbox (no SMTP configured). */
function mailedToken(to: string): string {
  const mail = server.db.prepare<[string], { text: string }>('SELECT text FROM outbox WHERE "to" = ? ORDER BY id DESC').get(to);
  const token = /svc team accept (\S+)/.exec(mail?.text ?? '')?.[1];
  if (token === undefined) throw new Error(`no invite mail to ${to}`);
  return token;
}

describe('svc team', () => {
  // About twenty requests through the whole program; a loaded CI box needs more than the default 5 s.
  it('create, invite, accept, show, usage, transfer and leave, with tables by default and the data with --json', { timeout: 20_000 }, async () => {
    const owner = await userWithSession(server, 'team', 'owner@example.com');
    const bob = await userWithSession(server, 'business', 'bob@example.com');

    const created = await svc(owner.token, 'team', 'create', 'Acme Security');
    expect(created).toEqual({ code: 0, stdout: expect.stringMatching(/^created team Acme Security \(\S+\) on the Team plan; you are its owner\n$/), stderr: '' });

    const invited = await svc(owner.token, 'team', 'invite', 'Bob@Example.com', '--role', 'admin');
    expect(invited.code).toBe(0);
    expect(invited.stdout).toMatch(/^invited bob@example\.com as admin; the invite expires on \d{4}-\d\d-\d\d\nthe invite mail with the token is on its way\n$/);

    const pending = await svc(owner.token, 'team', 'show');
    expect(pending.stdout).toMatch(/^PENDING INVITE\s+ROLE\s+EXPIRES\s+INVITED BY\nbob@example\.com\s+admin\s+\d{4}-\d\d-\d\d\s+owner@example\.com$/m);
    expect(pending.stdout).toMatch(/^seats: 1 used, 1 pending, no limit$/m);

    const accepted = await svc(bob.token, 'team', 'accept', mailedToken('bob@example.com'));
    expect(accepted).toEqual({ code: 0, stdout: 'joined Acme Security as admin; your scans are now paid by the Team plan of the team\n', stderr: '' });

    const shown = await svc(owner.token, 'team', 'show');
    const lines = shown.stdout.split('\n');
    expect(lines[0]).toMatch(/^Acme Security \(\S+\), Team plan; you are owner$/);
    expect(lines[1]).toBe('seats: 2 used, 0 pending, no limit');
    expect(lines[3]).toMatch(/^MEMBER\s+ROLE\s+JOINED\s+USER ID$/);
    expect(lines[4]).toMatch(new RegExp(`^owner@example\\.com\\s+owner\\s+\\d{4}-\\d\\d-\\d\\d\\s+${owner.user.id}$`));
    expect(lines[5]).toMatch(new RegExp(`^bob@example\\.com\\s+admin\\s+\\d{4}-\\d\\d-\\d\\d\\s+${bob.user.id}$`));
    expect(shown.stdout).not.toContain('PENDING INVITE');

    const json = JSON.parse((await svc(bob.token, 'team', 'show', '--json')).stdout) as TeamView;
    expect(json).toMatchObject({ name: 'Acme Security', role: 'admin', tier: 'team', seats: { used: 2, pending: 0, limit: null } });

    const usage = await svc(owner.token, 'team', 'usage');
    expect(usage.code).toBe(0);
    expect(usage.stdout).toMatch(/^Acme Security, Team plan: scans paid by the team from \d{4}-\d\d-01 to \d{4}-\d\d-\d\d \(UTC\)\n\nMEMBER\s+ROLE\s+SCANS\s+LAST SCAN\n/);
    expect(usage.stdout).toMatch(/^bob@example\.com\s+admin\s+0\s+never$/m);
    expect(usage.stdout).toMatch(/\n0 scans this month, 2 members\n$/);
    const report = JSON.parse((await svc(owner.token, 'team', 'usage', '--json')).stdout) as UsageReport;
    expect(report.totals).toEqual({ scans_used: 0, members_count: 2 });

    const transferred = await svc(owner.token, 'team', 'transfer', 'BOB@example.com');
    expect(transferred).toEqual({ code: 0, stdout: "bob@example.com now owns Acme Security; you are admin. The team is on the new owner's plan: Business\n", stderr: '' });

    const left = await svc(owner.token, 'team', 'leave');
    expect(left).toEqual({ code: 0, stdout: 'you left the team; your scans are paid by your own plan again\n', stderr: '' });
    const gone = await svc(owner.token, 'team', 'show');
    expect(gone).toEqual({ code: 2, stdout: '', stderr: 'svc: You are not in a team. (NOT_FOUND)\n' });
  });

  it('prints one line with the code and exits 2 when the server refuses: EMAIL_MISMATCH leaves the invite pending', async () => {
    const owner = await userWithSession(server, 'team');
    await svc(owner.token, 'team', 'create', 'Acme');
    await svc(owner.token, 'team', 'invite', 'carol@example.com');
    const mallory = await userWithSession(server, 'free', 'mallory@example.com');
    const refused = await svc(mallory.token, 'team', 'accept', mailedToken('carol@example.com'));
    expect(refused).toEqual({ code: 2, stdout: '', stderr: 'svc: This invite was sent to a different email address. (EMAIL_MISMATCH)\n' });
    const team = JSON.parse((await svc(owner.token, 'team', 'show', '--json')).stdout) as TeamView;
    expect(team.pending_invites.map((invite) => invite.email)).toEqual(['carol@example.com']);

    const owner2 = await userWithSession(server, 'dev');
    expect(await svc(owner2.token, 'team', 'create', 'Nope')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'svc: Creating a team needs the Team or Business plan; yours is Developer. (SUBSCRIPTION_REQUIRED)\n',
    });
    const selfLeave = await svc(owner.token, 'team', 'leave');
    expect(selfLeave).toEqual({ code: 2, stdout: '', stderr: 'svc: The owner cannot leave the team; transfer ownership first. (OWNER_CANNOT_LEAVE)\n' });
  });

  it('prints the accept command when no mail was sent; revoke-invite, remove by email and rename', async () => {
    const owner = await userWithSession(server, 'business');
    await svc(owner.token, 'team', 'create', 'Acme');
    const quiet = await userWithSession(server, 'free', 'quiet@example.com');
    expect((await svc(quiet.token, 'me', '--notify-invites', 'off')).code).toBe(0);
    const invited = await svc(owner.token, 'team', 'invite', 'quiet@example.com');
    const token = /svc team accept (\S+)\n$/.exec(invited.stdout)?.[1];
    expect(invited.stdout).toMatch(/\nno mail was sent; give quiet@example\.com this command to accept:\n {2}svc team accept \S+\n$/);
    expect(token).toBeDefined();
    const accepted = await svc(quiet.token, 'team', 'accept', token!);
    expect(accepted.code).toBe(0);

    await svc(owner.token, 'team', 'invite', 'dan@example.com');
    expect(await svc(owner.token, 'team', 'revoke-invite', 'dan@example.com')).toEqual({
      code: 0,
      stdout: 'revoked the invite of dan@example.com; its token no longer works\n',
      stderr: '',
    });
    expect((await svc(owner.token, 'team', 'revoke-invite', 'dan@example.com')).stderr).toBe('svc: There is no open invite for that address. (INVITE_NOT_FOUND)\n');

    expect(await svc(owner.token, 'team', 'remove', 'nobody@example.com')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'svc: That user is not a member of the team. (NOT_A_MEMBER)\n',
    });
    expect(await svc(owner.token, 'team', 'remove', 'quiet@example.com')).toEqual({ code: 0, stdout: 'removed quiet@example.com from the team\n', stderr: '' });
    expect(await svc(owner.token, 'team', 'rename', 'Acme AppSec')).toEqual({ code: 0, stdout: 'renamed the team to Acme AppSec\n', stderr: '' });
  });

  it('command functions take the ApiClient they are given', async () => {
    const owner = await userWithSession(server, 'team');
    const client = new ApiClient(server.url, owner.token);
    const io = captureIo({});
    expect(await runCommand(io, () => teamShowCommand(io, client, {}))).toBe(2);
    expect(io.err()).toBe('svc: You are not in a team. (NOT_FOUND)\n');
    const stranger = captureIo({});
    expect(await runCommand(stranger, () => teamAcceptCommand(stranger, client, 'no-such-token', { json: true }))).toBe(2);
    expect(stranger.err()).toBe('svc: This invite does not exist or was revoked. (INVITE_NOT_FOUND)\n');
  });

  it('has --help with examples for every subcommand, and refuses an unknown role before any request', async () => {
    for (const sub of ['show', 'create', 'rename', 'invite', 'accept', 'revoke-invite', 'remove', 'leave', 'transfer', 'usage']) {
      const help = await runSvc(['team', sub, '--help'], captureIo({}));
      expect({ sub, code: help.code }).toEqual({ sub, code: 0 });
      expect(help.stdout).toContain('--server <url>');
      expect(help.stdout).toContain('--json');
      expect(help.stdout).toContain(`$ svc team ${sub}`);
    }
    const bad = await runSvc(['team', 'invite', 'x@example.com', '--role', 'owner'], captureIo({ SVC_SERVER: server.url }));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/argument 'owner' is invalid. Allowed choices are member, admin/);
  });
});
