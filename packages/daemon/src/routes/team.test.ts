import { randomUUID } from 'node:crypto';
import { INVITE_LIMITS, type AccountTier } from '@svc/core';
import { afterEach, describe, expect, it } from 'vitest';
import { SmtpMailTransport } from '../mail/smtp.js';
import type { TeamRepository } from '../store/repositories.js';
import { call, createKey, expectError, userWithSession } from '../test/http.js';
import { startTestServer, type TestServer } from '../test/server.js';
import { startTestSmtpServer, type TestSmtpServer } from '../test/smtp.js';

let server: TestServer;
let smtp: TestSmtpServer | undefined;

afterEach(async () => {
  await server.close();
  await smtp?.close();
  smtp = undefined;
});

interface TeamBody {
  org_id: string;
  name: string;
  tier: string;
  role: string;
  members: Array<{ user_id: string; email: string; role: string }>;
  pending_invites: Array<{ email: string; role: string; invited_by: string | null; expires_at: string }>;
  seats: { used: number; pending: number; limit: number | null };
}

interface InviteBody {
  email: string;
  role: string;
  invite_token: string;
  mail_sent: boolean;
  expires_at: string;
}

async function data<T>(response: Response, status = 200): Promise<T> {
  const body = (await response.json()) as { success: boolean; data: T; error?: unknown };
  expect({ status: response.status, error: body.error }).toEqual({ status, error: undefined });
  return body.data;
}

type Caller = Awaited<ReturnType<typeof userWithSession>>;

async function signUp(tier: AccountTier = 'free', email?: string): Promise<Caller> {
  return userWithSession(server, tier, email);
}

/** Session tokens last 12 hours; after moving the clock further, callers sign in again. */
async function signInAgain(...callers: Caller[]): Promise<void> {
  for (const caller of callers) caller.token = (await server.services.sessions.issue(caller.user)).token;
}

async function createTeam(owner: Caller, name = 'Acme'): Promise<TeamBody> {
  return data<TeamBody>(await call(server, 'POST', '/team', owner.token, { name }), 201);
}

async function invite(by: Caller, email: string, role: 'member' | 'admin' = 'member'): Promise<InviteBody> {
  return data<InviteBody>(await call(server, 'POST', '/team/invite', by.token, { email, role }), 201);
}

async function join(by: Caller, who: Caller, role: 'member' | 'admin' = 'member'): Promise<void> {
  const { invite_token } = await invite(by, who.user.email, role);
  await data<TeamBody>(await call(server, 'POST', '/team/invite/accept', who.token, { invite_token }));
}

/** An owner on the Team plan with an admin and a member, all joined over HTTP. */
async function teamOfThree() {
  const owner = await signUp('team');
  const team = await createTeam(owner);
  const admin = await signUp();
  const member = await signUp();
  await join(owner, admin, 'admin');
  await join(owner, member);
  return { owner, admin, member, team };
}

/** Every row a team route may write, to show that a refused request changed nothing. */
function snapshot() {
  return {
    teams: server.db.prepare('SELECT * FROM teams ORDER BY id').all(),
    members: server.db.prepare('SELECT * FROM team_members ORDER BY team_id, user_id').all(),
    invites: server.db.prepare('SELECT * FROM team_invites ORDER BY id').all(),
    inviteCounters: server.db.prepare("SELECT * FROM quota_counters WHERE bucket LIKE 'team:%' ORDER BY bucket").all(),
    users: server.db.prepare('SELECT * FROM users ORDER BY id').all(),
  };
}

async function unchanged(request: () => Promise<Response>, status: number, code: string) {
  const before = snapshot();
  const error = await expectError(await request(), status, code);
  expect(snapshot()).toEqual(before);
  return error;
}

const pendingCount = () => server.db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM team_invites WHERE accepted_at IS NULL AND revoked_at IS NULL').get()?.n;

/** Moves the clock to the start of the next UTC hour (plus a second), so a test's invites share one hour window. */
function toNextHour() {
  const now = server.services.clock().getTime();
  server.advance(3_600_000 - (now % 3_600_000) + 1_000);
}

describe('creating and reading a team', () => {
  it('makes the caller the owner with the owner’s plan, and shows members, invites and seats', async () => {
    server = await startTestServer();
    const owner = await signUp('team');
    const created = await createTeam(owner, '  Acme Security ');
    expect(created).toMatchObject({ name: 'Acme Security', tier: 'team', plan: 'Team', role: 'owner', seats: { used: 1, pending: 0, limit: null } });
    expect(created.members).toEqual([expect.objectContaining({ user_id: owner.user.id, email: owner.user.email, role: 'owner' })]);

    await invite(owner, 'Pending@Example.com', 'admin');
    const team = await data<TeamBody>(await call(server, 'GET', '/team', owner.token));
    expect(team.pending_invites).toEqual([
      { email: 'pending@example.com', role: 'admin', invited_by: owner.user.email, created_at: expect.any(String), expires_at: expect.any(String) },
    ]);
    expect(JSON.stringify(team)).not.toMatch(/token/);
    expect(team.seats).toEqual({ used: 1, pending: 1, limit: null });

    const me = await data<{ org_id?: string }>(await call(server, 'GET', '/me', owner.token));
    expect(me.org_id).toBe(created.org_id);
  });

  it('refuses a plan without teams (402), a second team (409), an API key (401) and a bad name (400), writing nothing', async () => {
    server = await startTestServer();
    const free = await signUp('dev');
    await unchanged(() => call(server, 'POST', '/team', free.token, { name: 'Nope' }), 402, 'SUBSCRIPTION_REQUIRED');

    const owner = await signUp('business');
    await createTeam(owner);
    const again = await unchanged(() => call(server, 'POST', '/team', owner.token, { name: 'Second' }), 409, 'ALREADY_IN_TEAM');
    expect(again.message).toMatch(/already in a team/);

    const { key } = await createKey(server, owner.token);
    const byKey = await unchanged(() => call(server, 'POST', '/team', key, { name: 'Keyed' }), 401, 'UNAUTHORIZED');
    expect(byKey.details).toEqual({ credential: 'session' });

    const other = await signUp('team');
    const empty = await unchanged(() => call(server, 'POST', '/team', other.token, { name: '  ' }), 400, 'INVALID_FIELD');
    expect(empty.details).toEqual({ field: 'name' });
    // A line break in a team name would forge a header line in the invite mail's subject.
    const forged = await unchanged(() => call(server, 'POST', '/team', other.token, { name: 'Acme"\r\nBcc: attacker@example.com' }), 400, 'INVALID_FIELD');
    expect(forged.details).toEqual({ field: 'name' });
    await unchanged(() => call(server, 'POST', '/team', other.token, { name: 'x', extra: 1 }), 400, 'INVALID_FIELD');
  });

  it('answers 404 NOT_FOUND for a caller in no team', async () => {
    server = await startTestServer();
    const loner = await signUp();
    await expectError(await call(server, 'GET', '/team', loner.token), 404, 'NOT_FOUND');
    await expectError(await call(server, 'GET', '/team/usage', loner.token), 404, 'NOT_FOUND');
    await unchanged(() => call(server, 'POST', '/team/invite', loner.token, { email: 'a@example.com', role: 'member' }), 404, 'NOT_FOUND');
    const me = await data<Record<string, unknown>>(await call(server, 'GET', '/me', loner.token));
    expect(me).not.toHaveProperty('org_id');
  });
});

describe('invites', () => {
  it('mails the token over SMTP; the invitee previews and accepts it, case-insensitively, and the token works once', async () => {
    smtp = await startTestSmtpServer();
    const transport = new SmtpMailTransport({ url: smtp.url, from: 'svc <svc@example.com>' });
    server = await startTestServer(() => ({ mail: transport }));
    const owner = await signUp('team', 'owner@example.com');
    const team = await createTeam(owner, 'Blue Team');

    const sent = await invite(owner, 'Bob.Builder@EXAMPLE.com', 'admin');
    expect(sent).toMatchObject({ email: 'bob.builder@example.com', role: 'admin', mail_sent: true });
    expect(smtp.received).toHaveLength(1);
    const mail = smtp.received[0]!;
    expect(mail.to).toEqual(['bob.builder@example.com']);
    expect(mail.raw).toMatch(/owner@example\.com invited you to join the team "Blue Team" on svc as admin\./);
    expect(mail.raw).toMatch(/^Subject: .*owner=40example=2Ecom_invited_you/m);
    const token = /svc team accept (\S+)/.exec(mail.raw)?.[1];
    expect(token).toBe(sent.invite_token);
    // Only the hash is stored.
    const stored = server.db.prepare<[], { token_hash: string }>('SELECT token_hash FROM team_invites').get();
    expect(stored?.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(snapshot())).not.toContain(sent.invite_token);

    const bob = await signUp('free', 'bob.builder@example.com');
    const preview = await data<Record<string, unknown>>(await call(server, 'GET', `/team/invite-preview?token=${token}`, bob.token));
    expect(preview).toEqual({ org_id: team.org_id, team_name: 'Blue Team', role: 'admin', invited_by: 'owner@example.com', expires_at: sent.expires_at, email_matches: true });
    const stranger = await signUp();
    const strangerView = await data<{ email_matches: boolean }>(await call(server, 'GET', `/team/invite-preview?token=${token}`, stranger.token));
    expect(strangerView.email_matches).toBe(false);

    // The session's email differs only in case from the invited address as typed.
    const joined = await data<TeamBody>(await call(server, 'POST', '/team/invite/accept', bob.token, { invite_token: token }));
    expect(joined.role).toBe('admin');
    expect(joined.members.map((m) => [m.email, m.role])).toEqual([
      ['owner@example.com', 'owner'],
      ['bob.builder@example.com', 'admin'],
    ]);
    expect(joined.pending_invites).toEqual([]);

    // Replayed token, a second accept: 404, nothing changes.
    await unchanged(() => call(server, 'POST', '/team/invite/accept', bob.token, { invite_token: token }), 404, 'INVITE_NOT_FOUND');
    await unchanged(() => call(server, 'GET', `/team/invite-preview?token=${token}`, bob.token), 404, 'INVITE_NOT_FOUND');
  });

  it('refuses a session of another address with 403 EMAIL_MISMATCH and keeps the invite pending', async () => {
    server = await startTestServer();
    const owner = await signUp('team');
    await createTeam(owner);
    const { invite_token } = await invite(owner, 'carol@example.com');
    const mallory = await signUp('free', 'mallory@example.com');
    await unchanged(() => call(server, 'POST', '/team/invite/accept', mallory.token, { invite_token }), 403, 'EMAIL_MISMATCH');
    expect(pendingCount()).toBe(1);
    const carol = await signUp('free', 'carol@example.com');
    await data<TeamBody>(await call(server, 'POST', '/team/invite/accept', carol.token, { invite_token }));
  });

  it('answers 404 for an unknown token and 410 for an expired one, for preview and accept alike', async () => {
    server = await startTestServer();
    const owner = await signUp('team');
    await createTeam(owner);
    const dave = await signUp('free', 'dave@example.com');
    await unchanged(() => call(server, 'GET', '/team/invite-preview?token=nope', dave.token), 404, 'INVITE_NOT_FOUND');
    await unchanged(() => call(server, 'POST', '/team/invite/accept', dave.token, { invite_token: 'nope' }), 404, 'INVITE_NOT_FOUND');
    await unchanged(() => call(server, 'GET', '/team/invite-preview', dave.token), 400, 'INVALID_FIELD');

    const { invite_token } = await invite(owner, 'dave@example.com');
    server.advance(7 * 86_400_000 + 1_000);
    await signInAgain(owner, dave);
    await unchanged(() => call(server, 'GET', `/team/invite-preview?token=${invite_token}`, dave.token), 410, 'INVITE_EXPIRED');
    await unchanged(() => call(server, 'POST', '/team/invite/accept', dave.token, { invite_token }), 410, 'INVITE_EXPIRED');
    // An expired invite is no longer pending, and a new one to the address replaces it.
    expect((await data<TeamBody>(await call(server, 'GET', '/team', owner.token))).pending_invites).toEqual([]);
    const fresh = await invite(owner, 'dave@example.com');
    await unchanged(() => call(server, 'POST', '/team/invite/accept', dave.token, { invite_token }), 404, 'INVITE_NOT_FOUND');
    await data<TeamBody>(await call(server, 'POST', '/team/invite/accept', dave.token, { invite_token: fresh.invite_token }));
  });

  it('lets an address in another team be invited, but accepting fails with 409 ALREADY_IN_TEAM', async () => {
    server = await startTestServer();
    const first = await signUp('team');
    await createTeam(first, 'First');
    const second = await signUp('business');
    await createTeam(second, 'Second');
    const erin = await signUp();
    await join(first, erin);
    const { invite_token } = await invite(second, erin.user.email);
    const error = await unchanged(() => call(server, 'POST', '/team/invite/accept', erin.token, { invite_token }), 409, 'ALREADY_IN_TEAM');
    expect(error.message).toMatch(/leave it/);
    // After leaving the first team the same invite works.
    await data(await call(server, 'DELETE', `/team/members/${erin.user.id}`, erin.token));
    const joined = await data<TeamBody>(await call(server, 'POST', '/team/invite/accept', erin.token, { invite_token }));
    expect(joined.name).toBe('Second');
  });

  it('refuses members (403), members’ addresses (409 ALREADY_IN_TEAM), open invites (409 INVITE_ALREADY_PENDING) and bad bodies (400)', async () => {
    server = await startTestServer();
    const { owner, admin, member } = await teamOfThree();
    await unchanged(() => call(server, 'POST', '/team/invite', member.token, { email: 'x@example.com', role: 'member' }), 403, 'FORBIDDEN');
    await unchanged(() => call(server, 'POST', '/team/invite', owner.token, { email: member.user.email.toUpperCase(), role: 'member' }), 409, 'ALREADY_IN_TEAM');
    await invite(admin, 'frank@example.com');
    await unchanged(() => call(server, 'POST', '/team/invite', owner.token, { email: 'FRANK@example.com', role: 'admin' }), 409, 'INVITE_ALREADY_PENDING');
    const role = await unchanged(() => call(server, 'POST', '/team/invite', owner.token, { email: 'g@example.com', role: 'owner' }), 400, 'INVALID_FIELD');
    expect(role.details).toEqual({ field: 'role' });
    const email = await unchanged(() => call(server, 'POST', '/team/invite', owner.token, { email: 'not-an-address', role: 'member' }), 400, 'INVALID_FIELD');
    expect(email.details).toEqual({ field: 'email' });
  });

  it('skips the mail when the invitee turned invite mail off, and hands the inviter the token', async () => {
    server = await startTestServer();
    const owner = await signUp('team');
    await createTeam(owner);
    const quiet = await signUp('free', 'quiet@example.com');
    await data(await call(server, 'PUT', '/me', quiet.token, { notifications: { invites: false } }));
    const sent = await invite(owner, 'quiet@example.com');
    expect(sent.mail_sent).toBe(false);
    const outbox = () => server.db.prepare<[], { to: string }>('SELECT "to" FROM outbox').all();
    expect(outbox()).toEqual([]);
    await invite(owner, 'newcomer@example.com');
    expect(outbox()).toEqual([{ to: 'newcomer@example.com' }]);
    await data(await call(server, 'POST', '/team/invite/accept', quiet.token, { invite_token: sent.invite_token }));
  });

  it('keeps the invite and answers mail_sent false when the mail server refuses the message', async () => {
    smtp = await startTestSmtpServer({ refuseRecipient: () => ({ message: 'mailbox unavailable', responseCode: 550 }) });
    server = await startTestServer(() => ({ mail: new SmtpMailTransport({ url: smtp!.url, from: 'svc@example.com' }) }));
    const owner = await signUp('team');
    await createTeam(owner);
    const sent = await invite(owner, 'bounce@example.com');
    expect(sent.mail_sent).toBe(false);
    expect(pendingCount()).toBe(1);
    expect(server.logs.some((log) => log.message === 'invite mail not sent')).toBe(true);
  });

  it('lets owners and admins revoke; the token then stops working', async () => {
    server = await startTestServer();
    const { owner, admin, member } = await teamOfThree();
    const { invite_token } = await invite(owner, 'gina@example.com');
    await unchanged(() => call(server, 'DELETE', '/team/invites/gina@example.com', member.token), 403, 'FORBIDDEN');
    await unchanged(() => call(server, 'DELETE', '/team/invites/nobody@example.com', admin.token), 404, 'INVITE_NOT_FOUND');
    const revoked = await data(await call(server, 'DELETE', `/team/invites/${encodeURIComponent('Gina@Example.com')}`, admin.token));
    expect(revoked).toEqual({ email: 'gina@example.com', revoked: true });
    const gina = await signUp('free', 'gina@example.com');
    await unchanged(() => call(server, 'POST', '/team/invite/accept', gina.token, { invite_token }), 404, 'INVITE_NOT_FOUND');
    await unchanged(() => call(server, 'DELETE', '/team/invites/gina@example.com', owner.token), 404, 'INVITE_NOT_FOUND');
  });
});

describe('the invite limit', () => {
  it(`allows exactly ${INVITE_LIMITS.hour} invites per team and UTC hour, across owners and admins`, async () => {
    server = await startTestServer();
    const owner = await signUp('team');
    await createTeam(owner);
    const admin = await signUp();
    toNextHour();
    await join(owner, admin, 'admin');
    for (let i = 1; i < INVITE_LIMITS.hour; i++) await invite(i % 2 === 0 ? owner : admin, `hour-${i}@example.com`);
    const response = await call(server, 'POST', '/team/invite', admin.token, { email: 'one-too-many@example.com', role: 'member' });
    const before = snapshot();
    const error = await expectError(response, 429, 'RATE_LIMITED');
    expect(error.details).toMatchObject({ window: 'hour', tier: 'team', current: 20, limit: 20 });
    const retryAfter = Number(response.headers.get('retry-after'));
    expect(retryAfter).toBe(error.details?.['retry_after_seconds']);
    expect(retryAfter).toBeGreaterThan(3000);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(error.message).toMatch(/retry in \d+ seconds/);
    await unchanged(() => call(server, 'POST', '/team/invite', owner.token, { email: 'another@example.com', role: 'member' }), 429, 'RATE_LIMITED');
    expect(snapshot()).toEqual(before);
    expect(pendingCount()).toBe(INVITE_LIMITS.hour - 1);

    // Refused invites (already pending) do not use up the limit; the next hour has room again.
    server.advance(3_600_000);
    await invite(owner, 'next-hour@example.com');
  });

  // Over a hundred requests: more than the default 5 s on a loaded machine.
  it(`stops at ${INVITE_LIMITS.day} invites per UTC day with window day`, { timeout: 30_000 }, async () => {
    server = await startTestServer();
    const owner = await signUp('business');
    await createTeam(owner);
    // Start of a UTC day, so five hours of 20 stay inside it.
    const now = server.services.clock().getTime();
    server.advance(86_400_000 - (now % 86_400_000) + 1_000);
    await signInAgain(owner);
    let sent = 0;
    for (let hour = 0; hour < 5; hour++) {
      for (let i = 0; i < INVITE_LIMITS.hour; i++) await invite(owner, `day-${sent++}@example.com`);
      server.advance(3_600_000);
    }
    const error = await unchanged(() => call(server, 'POST', '/team/invite', owner.token, { email: 'day-over@example.com', role: 'member' }), 429, 'RATE_LIMITED');
    expect(error.details).toMatchObject({ window: 'day', tier: 'business', current: 100, limit: 100 });
  });
});

describe('membership', () => {
  it('lets the owner remove others and members leave; refuses the rest with the spec’s codes and writes nothing', async () => {
    server = await startTestServer();
    const { owner, admin, member } = await teamOfThree();
    const outsider = await signUp();
    await unchanged(() => call(server, 'DELETE', `/team/members/${owner.user.id}`, owner.token), 409, 'OWNER_CANNOT_LEAVE');
    await unchanged(() => call(server, 'DELETE', `/team/members/${owner.user.id}`, admin.token), 403, 'CANNOT_REMOVE_OWNER');
    await unchanged(() => call(server, 'DELETE', `/team/members/${member.user.id}`, admin.token), 403, 'FORBIDDEN');
    await unchanged(() => call(server, 'DELETE', `/team/members/${admin.user.id}`, member.token), 403, 'FORBIDDEN');
    await unchanged(() => call(server, 'DELETE', `/team/members/${outsider.user.id}`, owner.token), 404, 'NOT_A_MEMBER');
    await unchanged(() => call(server, 'DELETE', `/team/members/${randomUUID()}`, owner.token), 404, 'NOT_A_MEMBER');

    expect(await data(await call(server, 'DELETE', `/team/members/${member.user.id}`, owner.token))).toEqual({ user_id: member.user.id, removed: true, left: false });
    await expectError(await call(server, 'GET', '/team', member.token), 404, 'NOT_FOUND');
    expect(await data(await call(server, 'DELETE', `/team/members/${admin.user.id}`, admin.token))).toEqual({ user_id: admin.user.id, removed: true, left: true });
    const team = await data<TeamBody>(await call(server, 'GET', '/team', owner.token));
    expect(team.members.map((m) => m.user_id)).toEqual([owner.user.id]);
  });
});

describe('PATCH /team', () => {
  it('renames (owner only) and refuses ambiguous bodies', async () => {
    server = await startTestServer();
    const { owner, admin } = await teamOfThree();
    await unchanged(() => call(server, 'PATCH', '/team', admin.token, { name: 'Mine now' }), 403, 'FORBIDDEN');
    const both = await unchanged(() => call(server, 'PATCH', '/team', owner.token, { name: 'X', new_owner_user_id: admin.user.id }), 400, 'INVALID_FIELD');
    expect(both.details).toEqual({ field: '(body)' });
    await unchanged(() => call(server, 'PATCH', '/team', owner.token, {}), 400, 'INVALID_FIELD');
    const renamed = await data<TeamBody>(await call(server, 'PATCH', '/team', owner.token, { name: 'Renamed' }));
    expect(renamed.name).toBe('Renamed');
  });

  it('transfers ownership to a member: the old owner becomes admin and the team takes the new owner’s plan', async () => {
    server = await startTestServer();
    const { owner, admin, member, team } = await teamOfThree();
    const outsider = await signUp();
    await unchanged(() => call(server, 'PATCH', '/team', admin.token, { new_owner_user_id: member.user.id }), 403, 'FORBIDDEN');
    const self = await unchanged(() => call(server, 'PATCH', '/team', owner.token, { new_owner_user_id: owner.user.id }), 400, 'INVALID_FIELD');
    expect(self.details).toEqual({ field: 'new_owner_user_id' });
    await unchanged(() => call(server, 'PATCH', '/team', owner.token, { new_owner_user_id: outsider.user.id }), 404, 'NOT_A_MEMBER');

    await server.services.users.setTier(member.user.email, 'business');
    const after = await data<TeamBody>(await call(server, 'PATCH', '/team', owner.token, { new_owner_user_id: member.user.id }));
    expect(after.tier).toBe('business');
    expect(after.role).toBe('admin');
    expect(Object.fromEntries(after.members.map((m) => [m.user_id, m.role]))).toEqual({
      [member.user.id]: 'owner',
      [owner.user.id]: 'admin',
      [admin.user.id]: 'admin',
    });
    expect(server.db.prepare<[string], { owner_user_id: string }>('SELECT owner_user_id FROM teams WHERE id = ?').get(team.org_id)?.owner_user_id).toBe(member.user.id);
    // The previous owner can now leave; the new one cannot.
    await unchanged(() => call(server, 'DELETE', `/team/members/${member.user.id}`, member.token), 409, 'OWNER_CANNOT_LEAVE');
    await data(await call(server, 'DELETE', `/team/members/${owner.user.id}`, owner.token));
  });
});

describe('GET /team/usage', () => {
  it('counts the scans the team paid for in the current UTC month, per member, for the owner only', async () => {
    server = await startTestServer();
    const { owner, admin, member, team } = await teamOfThree();
    const other = await signUp('team');
    const otherTeam = await createTeam(other, 'Other');
    const now = server.services.clock();
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const insert = server.db.prepare(
      "INSERT INTO scans (id, user_id, org_id, input, mode, visibility, status, created_at) VALUES (?, ?, ?, 'npm:x', 'fast', 'private', 'completed', ?)",
    );
    const at = (ms: number) => new Date(monthStart.getTime() + ms).toISOString();
    insert.run(randomUUID(), admin.user.id, team.org_id, at(1_000));
    insert.run(randomUUID(), admin.user.id, team.org_id, at(2_000));
    insert.run(randomUUID(), admin.user.id, null, at(3_000)); // paid by the admin's own plan
    insert.run(randomUUID(), member.user.id, team.org_id, at(-1_000)); // last month
    insert.run(randomUUID(), other.user.id, otherTeam.org_id, at(4_000));

    await unchanged(() => call(server, 'GET', '/team/usage', admin.token), 403, 'FORBIDDEN');
    const report = await data<{
      period_start: string;
      period_end: string;
      org: unknown;
      totals: unknown;
      members: Array<{ user_id: string; scans_used: number; last_scan_at: string | null }>;
    }>(await call(server, 'GET', '/team/usage', owner.token));
    expect(report.period_start).toBe(monthStart.toISOString());
    expect(Date.parse(report.period_end) + 1).toBe(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    expect(report.org).toEqual({ org_id: team.org_id, name: 'Acme', tier: 'team' });
    expect(report.totals).toEqual({ scans_used: 2, members_count: 3 });
    expect(Object.fromEntries(report.members.map((m) => [m.user_id, [m.scans_used, m.last_scan_at]]))).toEqual({
      [owner.user.id]: [0, null],
      [admin.user.id]: [2, at(2_000)],
      [member.user.id]: [0, at(-1_000)],
    });
  });
});

describe('concurrent writes', () => {
  it('two simultaneous invites for one address: exactly one is stored', async () => {
    server = await startTestServer();
    const { owner, admin } = await teamOfThree();
    const responses = await Promise.all([
      call(server, 'POST', '/team/invite', owner.token, { email: 'race@example.com', role: 'member' }),
      call(server, 'POST', '/team/invite', admin.token, { email: 'RACE@example.com', role: 'admin' }),
    ]);
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses[0]).toBe(201);
    expect([409, 503]).toContain(statuses[1]);
    const loser = responses.find((r) => r.status !== 201)!;
    const body = (await loser.json()) as { error: { code: string } };
    expect(['INVITE_ALREADY_PENDING', 'RETRY']).toContain(body.error.code);
    expect(server.db.prepare("SELECT COUNT(*) AS n FROM team_invites WHERE email = 'race@example.com'").get()).toEqual({ n: 1 });
  });

  /** While armed, the first two team reads wait for each other, so both requests write against the version they share. */
  let barrier: Array<() => void> | undefined;

  function slowReads(teams: TeamRepository): TeamRepository {
    return new Proxy(teams, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        const method = (value as (...args: unknown[]) => Promise<unknown>).bind(target);
        if (property !== 'findTeam') return method;
        return async (...args: unknown[]) => {
          const result = await method(...args);
          const waiting = barrier;
          if (waiting === undefined) return result;
          await new Promise<void>((resolve) => {
            waiting.push(resolve);
            if (waiting.length === 2) {
              barrier = undefined;
              for (const release of waiting) release();
            }
          });
          return result;
        };
      },
    });
  }

  it('two simultaneous renames that read the same version: one wins, the other gets 503 RETRY and changes nothing', async () => {
    server = await startTestServer((base) => ({ teams: slowReads(base.teams) }));
    const owner = await signUp('team');
    const team = await createTeam(owner, 'Start');
    const version = () => server.db.prepare<[string], { version: number }>('SELECT version FROM teams WHERE id = ?').get(team.org_id)?.version;
    const before = version();
    barrier = [];
    const responses = await Promise.all([
      call(server, 'PATCH', '/team', owner.token, { name: 'Alpha' }),
      call(server, 'PATCH', '/team', owner.token, { name: 'Beta' }),
    ]);
    const winner = responses.find((r) => r.status === 200);
    const loser = responses.find((r) => r.status !== 200);
    expect(winner && loser).toBeTruthy();
    await expectError(loser!, 503, 'RETRY');
    const name = ((await winner!.json()) as { data: TeamBody }).data.name;
    expect(server.db.prepare<[string], { name: string }>('SELECT name FROM teams WHERE id = ?').get(team.org_id)?.name).toBe(name);
    expect(version()).toBe((before ?? 0) + 1);
  });

  it('two invites for one address that read the same version: one is stored, the other is 503 RETRY and uses no invite slot', async () => {
    server = await startTestServer((base) => ({ teams: slowReads(base.teams) }));
    const { owner, admin } = await teamOfThree();
    const counters = () => server.db.prepare("SELECT bucket, count FROM quota_counters WHERE bucket LIKE 'team:%' ORDER BY bucket").all();
    const before = counters() as Array<{ bucket: string; count: number }>;
    barrier = [];
    const responses = await Promise.all([
      call(server, 'POST', '/team/invite', owner.token, { email: 'twice@example.com', role: 'member' }),
      call(server, 'POST', '/team/invite', admin.token, { email: 'Twice@example.com', role: 'admin' }),
    ]);
    expect(responses.map((r) => r.status).sort()).toEqual([201, 503]);
    await expectError(responses.find((r) => r.status === 503)!, 503, 'RETRY');
    expect(server.db.prepare("SELECT COUNT(*) AS n FROM team_invites WHERE email = 'twice@example.com'").get()).toEqual({ n: 1 });
    // Only the stored invite was counted toward the hour and the day.
    expect(counters()).toEqual(before.map((row) => ({ ...row, count: row.count + 1 })));
    expect(server.db.prepare('SELECT COUNT(*) AS n FROM outbox WHERE "to" = \'twice@example.com\'').get()).toEqual({ n: 1 });
  });

  it('a transfer racing a removal of the same member: one wins, the other is 503 RETRY', async () => {
    server = await startTestServer((base) => ({ teams: slowReads(base.teams) }));
    const { owner, member, team } = await teamOfThree();
    barrier = [];
    const [transfer, removal] = await Promise.all([
      call(server, 'PATCH', '/team', owner.token, { new_owner_user_id: member.user.id }),
      call(server, 'DELETE', `/team/members/${member.user.id}`, owner.token),
    ]);
    expect([transfer.status, removal.status].sort()).toEqual([200, 503]);
    const owners = server.db.prepare<[string], { user_id: string }>("SELECT user_id FROM team_members WHERE team_id = ? AND role = 'owner'").all(team.org_id);
    expect(owners).toHaveLength(1);
    if (transfer.status === 200) expect(owners[0]?.user_id).toBe(member.user.id);
    else expect(owners[0]?.user_id).toBe(owner.user.id);
  });
});
