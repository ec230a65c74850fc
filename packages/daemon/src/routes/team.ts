import { randomUUID } from 'node:crypto';
import {
  ACCOUNT_TIERS,
  canCreateTeam,
  canManageTeam,
  canRemove,
  canRevokeInvite,
  canTransfer,
  checkAcceptInvite,
  checkInvite,
  generateInviteToken,
  hashSecret,
  INVITE_LIMITS,
  INVITE_ROLES,
  unsafeNameCharacter,
  INVITE_TTL_DAYS,
  inviteExpiresAt,
  invalidField,
  normalizeEmail,
  rateLimited,
  ROLES_AFTER_TRANSFER,
  ServiceError,
  successEnvelope,
  TEAM_ROLES,
  TIER_DISPLAY_NAMES,
  windowKey,
  windowReset,
  windowStart,
  type BucketRequest,
  type Tier,
} from '@svc/core';
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { emailAddress } from '../auth/email.js';
import type { AppEnv } from '../env.js';
import { requireSession } from '../middleware/session.js';
import { createRouter, envelope, errorResponses, jsonContent, SESSION_SECURITY } from '../openapi.js';
import type { Membership, Team, TeamInvite, TeamMember } from '../store/repositories.js';

// Spec 4.1 with the rules of section 3 and 4.6; the decisions themselves are core's team-rules.ts, this module
// supplies the facts and maps the answers. Every write names the team version it read (optimistic
// concurrency): a lost race is 503 RETRY with nothing written.

const BODY_ERRORS = ['INVALID_FIELD', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'INTERNAL_ERROR'] as const;

const teamName = z
  .string({ error: 'name is required' })
  .trim()
  .min(1, { error: 'name must not be empty' })
  .max(100, { error: 'name may have at most 100 characters' })
  .refine((name) => unsafeNameCharacter(name) === undefined, { error: 'name must not contain control, line-break or bidi characters' });

const memberView = z.object({
  user_id: z.string(),
  email: z.string(),
  display_name: z.string().nullable(),
  role: z.enum(TEAM_ROLES),
  joined_at: z.string(),
});

const pendingInviteView = z.object({
  email: z.string(),
  role: z.enum(INVITE_ROLES),
  invited_by: z.string().nullable().openapi({ description: 'The inviter’s email; null when that account is gone' }),
  created_at: z.string(),
  expires_at: z.string(),
});

const teamView = z
  .object({
    org_id: z.string(),
    name: z.string(),
    tier: z.enum(ACCOUNT_TIERS).openapi({ description: 'The owner’s plan: a team’s tier is its owner’s plan' }),
    plan: z.string().openapi({ description: 'The tier’s display name' }),
    created_at: z.string(),
    role: z.enum(TEAM_ROLES).openapi({ description: 'The caller’s role' }),
    members: z.array(memberView),
    pending_invites: z.array(pendingInviteView),
    seats: z.object({
      used: z.number().int().openapi({ description: 'Members, owner included' }),
      pending: z.number().int().openapi({ description: 'Open invites; they take no seat until accepted' }),
      limit: z.number().int().nullable().openapi({ description: 'null: no seat limit' }),
    }),
  })
  .openapi('Team');

function memberOut(member: TeamMember): z.infer<typeof memberView> {
  return { user_id: member.userId, email: member.email, display_name: member.displayName, role: member.role, joined_at: member.joinedAt };
}

function inviteOut(invite: TeamInvite): z.infer<typeof pendingInviteView> {
  return { email: invite.email, role: invite.role, invited_by: invite.invitedByEmail, created_at: invite.createdAt, expires_at: invite.expiresAt };
}

async function viewOf(c: Context<AppEnv>, teamId: string, callerId: string): Promise<z.infer<typeof teamView>> {
  const { teams, clock } = c.get('services');
  const team = await teams.findTeam(teamId);
  if (team === undefined) throw notInTeam();
  const members = await teams.members(teamId);
  const invites = await teams.pendingInvites(teamId, clock());
  const role = members.find((member) => member.userId === callerId)?.role;
  if (role === undefined) throw notInTeam();
  return {
    org_id: team.id,
    name: team.name,
    tier: team.tier,
    plan: TIER_DISPLAY_NAMES[team.tier],
    created_at: team.createdAt,
    role,
    members: members.map(memberOut),
    pending_invites: invites.map(inviteOut),
    // DESIGN.md: no seat limit unless an operator sets one (none can yet); pending invites take no seat.
    seats: { used: members.length, pending: invites.length, limit: null },
  };
}

function notInTeam(): ServiceError {
  return new ServiceError('NOT_FOUND', 'You are not in a team.');
}

/** The caller's membership and the team as read now; its version is what the caller's write must still find. */
async function callerTeam(c: Context<AppEnv>): Promise<{ membership: Membership; team: Team }> {
  const { teams } = c.get('services');
  const membership = await teams.membershipOf(c.get('session').userId);
  if (membership === undefined) throw notInTeam();
  const team = await teams.findTeam(membership.teamId);
  if (team === undefined) throw notInTeam();
  return { membership, team };
}

function retry(): ServiceError {
  return new ServiceError('RETRY');
}

/** Spec 8.4: per team, across all owners and admins, in UTC calendar hours and days. */
function inviteBuckets(teamId: string, tier: Tier, now: Date): BucketRequest[] {
  return (Object.entries(INVITE_LIMITS) as Array<[keyof typeof INVITE_LIMITS, number]>).map(([window, limit]) => ({
    id: `team:${encodeURIComponent(teamId)}/invites/${windowKey(window, now)}`,
    limit,
    window,
    resetAt: windowReset(window, now),
    // Core's kinds describe API and scan quotas; the 429 details of an invite are built here instead.
    quota: 'requests',
    subject: 'user',
    tier,
  }));
}

function inviteLimitError(window: 'hour' | 'day', tier: Tier, current: number, limit: number, now: Date): ServiceError {
  const resetAt = windowReset(window, now);
  return rateLimited({ window, tier, current, limit, retry_after_seconds: Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000)) });
}

const getTeam = createRoute({
  method: 'get',
  path: '/team',
  summary: 'The caller’s team',
  description: 'Members, pending (unexpired) invites without their tokens, plan and seats. 404 NOT_FOUND when the caller is in no team.',
  security: SESSION_SECURITY,
  middleware: [requireSession] as const,
  responses: {
    200: jsonContent(envelope(teamView), 'The team'),
    ...errorResponses('UNAUTHORIZED', 'NOT_FOUND', 'RATE_LIMITED', 'INTERNAL_ERROR'),
  },
});

const createTeam = createRoute({
  method: 'post',
  path: '/team',
  summary: 'Create a team',
  description:
    'The caller becomes its owner and the team’s tier is the caller’s plan. A user belongs to at most one team (409 ALREADY_IN_TEAM). ' +
    'Only the Team and Business plans may create a team (402 SUBSCRIPTION_REQUIRED).',
  security: SESSION_SECURITY,
  middleware: [requireSession] as const,
  request: { body: { required: true, ...jsonContent(z.strictObject({ name: teamName }), 'The team’s name') } },
  responses: {
    201: jsonContent(envelope(teamView), 'The new team'),
    ...errorResponses('UNAUTHORIZED', 'ALREADY_IN_TEAM', 'SUBSCRIPTION_REQUIRED', 'RATE_LIMITED', ...BODY_ERRORS),
  },
});

const patchTeam = createRoute({
  method: 'patch',
  path: '/team',
  summary: 'Rename the team or transfer its ownership',
  description:
    'Owner only (403 FORBIDDEN). Exactly one of `name` and `new_owner_user_id`. A transfer needs a member as the target (404 NOT_A_MEMBER), ' +
    'not the caller (400 INVALID_FIELD); the previous owner becomes an admin, and the team’s tier becomes the new owner’s plan. ' +
    'A concurrent change of the team is 503 RETRY.',
  security: SESSION_SECURITY,
  middleware: [requireSession] as const,
  request: {
    body: {
      required: true,
      ...jsonContent(
        z.strictObject({ name: teamName.optional(), new_owner_user_id: z.string({ error: 'new_owner_user_id must be a string' }).min(1).optional() }),
        'The new name, or the member to become owner',
      ),
    },
  },
  responses: {
    200: jsonContent(envelope(teamView), 'The team after the change'),
    ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'NOT_A_MEMBER', 'RETRY', 'RATE_LIMITED', ...BODY_ERRORS),
  },
});

const createInvite = createRoute({
  method: 'post',
  path: '/team/invite',
  summary: 'Invite someone by email',
  description:
    `Owners and admins (403 FORBIDDEN). The invite is bound to the address and expires after ${INVITE_TTL_DAYS} days. ` +
    '409 ALREADY_IN_TEAM when the address belongs to a member of this team, 409 INVITE_ALREADY_PENDING when it has an open invite; ' +
    `429 RATE_LIMITED past ${INVITE_LIMITS.hour} invites per UTC hour or ${INVITE_LIMITS.day} per UTC day per team (details.window hour or day). ` +
    'The token is mailed to the address and shown in this answer only (stored hashed); when the mail cannot be sent, or the invitee turned ' +
    'invite mail off, `mail_sent` is false and the inviter passes the token on. An address in another team may be invited; accepting then ' +
    'fails with 409 ALREADY_IN_TEAM until they leave it.',
  security: SESSION_SECURITY,
  middleware: [requireSession] as const,
  request: {
    body: {
      required: true,
      ...jsonContent(
        z.strictObject({
          email: emailAddress,
          role: z.enum(INVITE_ROLES, { error: 'role must be member or admin' }).default('member').openapi({ description: 'Default member' }),
        }),
        'Who to invite, and as what',
      ),
    },
  },
  responses: {
    201: jsonContent(
      envelope(
        z.object({
          email: z.string(),
          role: z.enum(INVITE_ROLES),
          invited_by: z.string(),
          expires_at: z.string(),
          invite_token: z.string(),
          mail_sent: z.boolean(),
        }),
      ),
      'The invite',
    ),
    ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'ALREADY_IN_TEAM', 'INVITE_ALREADY_PENDING', 'RATE_LIMITED', 'RETRY', ...BODY_ERRORS),
  },
});

const previewInvite = createRoute({
  method: 'get',
  path: '/team/invite-preview',
  summary: 'Read an invite as its recipient',
  description:
    'Any signed-in user holding the token sees the team, the role, the inviter and the expiry; `email_matches` says whether the caller’s ' +
    'address is the one invited (only that address can accept). The invited address itself is not shown. Unknown, revoked or used tokens ' +
    'are 404 INVITE_NOT_FOUND; expired ones 410 INVITE_EXPIRED.',
  security: SESSION_SECURITY,
  middleware: [requireSession] as const,
  request: { query: z.object({ token: z.string({ error: 'token is required' }).min(1, { error: 'token is required' }) }) },
  responses: {
    200: jsonContent(
      envelope(
        z.object({
          org_id: z.string(),
          team_name: z.string(),
          role: z.enum(INVITE_ROLES),
          invited_by: z.string().nullable(),
          expires_at: z.string(),
          email_matches: z.boolean(),
        }),
      ),
      'The invite',
    ),
    ...errorResponses('UNAUTHORIZED', 'INVALID_FIELD', 'INVITE_NOT_FOUND', 'INVITE_EXPIRED', 'RATE_LIMITED', 'INTERNAL_ERROR'),
  },
});

const acceptInvite = createRoute({
  method: 'post',
  path: '/team/invite/accept',
  summary: 'Accept an invite',
  description:
    'The session’s email must be the invited address, compared case-insensitively (403 EMAIL_MISMATCH; the invite stays pending). ' +
    'Expired: 410 INVITE_EXPIRED. Already in a team: 409 ALREADY_IN_TEAM. A token works once: unknown, revoked or already used tokens ' +
    'are 404 INVITE_NOT_FOUND (a second accept included).',
  security: SESSION_SECURITY,
  middleware: [requireSession] as const,
  request: { body: { required: true, ...jsonContent(z.strictObject({ invite_token: z.string({ error: 'invite_token is required' }).min(1) }), 'The token from the invite mail') } },
  responses: {
    200: jsonContent(envelope(teamView), 'The team the caller joined'),
    ...errorResponses('UNAUTHORIZED', 'EMAIL_MISMATCH', 'INVITE_NOT_FOUND', 'INVITE_EXPIRED', 'ALREADY_IN_TEAM', 'RETRY', 'RATE_LIMITED', ...BODY_ERRORS),
  },
});

const revokeInvite = createRoute({
  method: 'delete',
  path: '/team/invites/{email}',
  summary: 'Revoke a pending invite',
  description: 'Owners and admins (403 FORBIDDEN). Its token stops working at once. No open invite for the address: 404 INVITE_NOT_FOUND.',
  security: SESSION_SECURITY,
  middleware: [requireSession] as const,
  request: { params: z.object({ email: z.string() }) },
  responses: {
    200: jsonContent(envelope(z.object({ email: z.string(), revoked: z.literal(true) })), 'The invite is revoked'),
    ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'INVITE_NOT_FOUND', 'RETRY', 'RATE_LIMITED', 'INTERNAL_ERROR'),
  },
});

const removeMember = createRoute({
  method: 'delete',
  path: '/team/members/{user_id}',
  summary: 'Remove a member, or leave the team',
  description:
    'The owner removes others; any member but the owner removes themselves (leaves). The owner cannot be removed (403 CANNOT_REMOVE_OWNER) ' +
    'nor leave (409 OWNER_CANNOT_LEAVE; transfer first). Others removing someone else: 403 FORBIDDEN. Not in the team: 404 NOT_A_MEMBER.',
  security: SESSION_SECURITY,
  middleware: [requireSession] as const,
  request: { params: z.object({ user_id: z.string() }) },
  responses: {
    200: jsonContent(envelope(z.object({ user_id: z.string(), removed: z.literal(true), left: z.boolean() })), 'The member is out of the team'),
    ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CANNOT_REMOVE_OWNER', 'OWNER_CANNOT_LEAVE', 'NOT_A_MEMBER', 'RETRY', 'RATE_LIMITED', 'INTERNAL_ERROR'),
  },
});

const usage = createRoute({
  method: 'get',
  path: '/team/usage',
  summary: 'Scan usage per member this month',
  description:
    'Owner only (403 FORBIDDEN). The current UTC calendar month. `scans_used` counts the scans the team paid for (org_id), per current member; ' +
    '`totals.scans_used` counts every scan the team paid for this month, also those of people who have left since. `last_scan_at` is the ' +
    'member’s latest team-paid scan, of any month.',
  security: SESSION_SECURITY,
  middleware: [requireSession] as const,
  responses: {
    200: jsonContent(
      envelope(
        z.object({
          period_start: z.string(),
          period_end: z.string(),
          org: z.object({ org_id: z.string(), name: z.string(), tier: z.enum(ACCOUNT_TIERS) }),
          totals: z.object({ scans_used: z.number().int(), members_count: z.number().int() }),
          members: z.array(
            z.object({ user_id: z.string(), email: z.string(), role: z.enum(TEAM_ROLES), scans_used: z.number().int(), last_scan_at: z.string().nullable() }),
          ),
        }),
      ),
      'The usage report (spec 2.5)',
    ),
    ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'RATE_LIMITED', 'INTERNAL_ERROR'),
  },
});

export const teamRoutes = createRouter()
  .openapi(getTeam, async (c) => {
    const { membership } = await callerTeam(c);
    return c.json(successEnvelope(await viewOf(c, membership.teamId, c.get('session').userId)), 200);
  })
  .openapi(createTeam, async (c) => {
    const { name } = c.req.valid('json');
    const { teams, clock } = c.get('services');
    const user = c.get('user');
    if ((await teams.membershipOf(user.id)) !== undefined) throw new ServiceError('ALREADY_IN_TEAM', 'You are already in a team; leave it first.');
    if (!canCreateTeam(user.tier)) {
      throw new ServiceError('SUBSCRIPTION_REQUIRED', `Creating a team needs the Team or Business plan; yours is ${TIER_DISPLAY_NAMES[user.tier]}.`);
    }
    const created = await teams.create({ id: randomUUID(), name, ownerUserId: user.id, now: clock() });
    if (!created.ok) throw new ServiceError('ALREADY_IN_TEAM', 'You are already in a team; leave it first.');
    return c.json(successEnvelope(await viewOf(c, created.team.id, user.id)), 201);
  })
  .openapi(patchTeam, async (c) => {
    const body = c.req.valid('json');
    if ((body.name === undefined) === (body.new_owner_user_id === undefined)) {
      throw invalidField('(body)', 'Give exactly one of name (rename) and new_owner_user_id (transfer ownership).');
    }
    const { teams } = c.get('services');
    const { membership, team } = await callerTeam(c);
    const callerId = c.get('session').userId;
    if (body.new_owner_user_id !== undefined) {
      const targetId = body.new_owner_user_id;
      const members = await teams.members(team.id);
      const decision = canTransfer({ callerRole: membership.role, callerId, targetId, targetRole: members.find((m) => m.userId === targetId)?.role });
      if (decision === 'FORBIDDEN') throw new ServiceError('FORBIDDEN', 'Only the team owner can transfer ownership.');
      if (decision === 'INVALID_FIELD') throw invalidField('new_owner_user_id', 'You already own the team; name another member.');
      if (decision === 'NOT_A_MEMBER') throw new ServiceError('NOT_A_MEMBER');
      const result = await teams.transfer({ teamId: team.id, version: team.version, from: callerId, to: targetId, previousOwnerRole: ROLES_AFTER_TRANSFER.previousOwner });
      if (result === 'conflict') throw retry();
      if (result === 'not_member') throw new ServiceError('NOT_A_MEMBER');
    } else if (body.name !== undefined) {
      if (!canManageTeam(membership.role)) throw new ServiceError('FORBIDDEN', 'Only the team owner can rename the team.');
      if ((await teams.rename({ teamId: team.id, version: team.version, name: body.name })) === 'conflict') throw retry();
    }
    return c.json(successEnvelope(await viewOf(c, team.id, callerId)), 200);
  })
  .openapi(createInvite, async (c) => {
    const body = c.req.valid('json');
    const { teams, users, quota, mail, clock, logger } = c.get('services');
    const now = clock();
    const { membership, team } = await callerTeam(c);
    const email = normalizeEmail(body.email);
    const buckets = inviteBuckets(team.id, team.tier, now);
    const counts = await quota.peek(buckets, now);
    const [hourBucket, dayBucket] = [buckets.find((b) => b.window === 'hour'), buckets.find((b) => b.window === 'day')];
    const members = await teams.members(team.id);
    const open = await teams.pendingInvites(team.id, now);
    const decision = checkInvite({
      callerRole: membership.role,
      inviteeIsMember: members.some((member) => member.email === email),
      inviteeHasOpenInvite: open.some((invite) => invite.email === email),
      sentThisHour: (hourBucket && counts.get(hourBucket.id)) ?? 0,
      sentToday: (dayBucket && counts.get(dayBucket.id)) ?? 0,
    });
    if (!decision.ok) {
      if (decision.code === 'RATE_LIMITED') throw inviteLimitError(decision.window, team.tier, decision.current, decision.limit, now);
      if (decision.code === 'FORBIDDEN') throw new ServiceError('FORBIDDEN', 'Only the team owner and admins can invite.');
      throw new ServiceError(decision.code);
    }

    const token = generateInviteToken();
    const expiresAt = inviteExpiresAt(now).toISOString();
    const inviter = c.get('session');
    const stored = await teams.createInvite({
      version: team.version,
      invite: { id: randomUUID(), teamId: team.id, email, role: body.role, invitedBy: inviter.userId, createdAt: now.toISOString(), expiresAt },
      tokenHash: hashSecret(token),
      buckets,
      now,
    });
    if (!stored.ok) {
      switch (stored.reason) {
        case 'conflict':
          throw retry();
        case 'member':
          throw new ServiceError('ALREADY_IN_TEAM');
        case 'pending':
          throw new ServiceError('INVITE_ALREADY_PENDING');
        case 'rate_limited': {
          // The counters moved between the check above and the write (a concurrent invite); the write decides.
          const blocked = stored.decision.allowed ? undefined : stored.decision.blocked;
          const window = blocked?.window === 'day' ? 'day' : 'hour';
          throw inviteLimitError(window, team.tier, blocked?.current ?? INVITE_LIMITS[window], blocked?.limit ?? INVITE_LIMITS[window], now);
        }
      }
    }

    // An invitee with an account may have turned invite mail off; an address without one always gets it.
    const invitee = await users.findByEmail(email);
    let mailSent = false;
    if (invitee === undefined || invitee.notifications.invites) {
      try {
        await mail.send(inviteMail({ to: email, inviter: inviter.email, teamName: team.name, role: body.role, token, expiresAt }));
        mailSent = true;
      } catch (error) {
        // The invite stands: the inviter has the token in this answer and can pass it on or revoke and re-send.
        logger.error('invite mail not sent', { request_id: c.get('requestId'), error: error instanceof Error ? error.message : String(error) });
      }
    }
    return c.json(successEnvelope({ email, role: body.role, invited_by: inviter.email, expires_at: expiresAt, invite_token: token, mail_sent: mailSent }), 201);
  })
  .openapi(previewInvite, async (c) => {
    const { token } = c.req.valid('query');
    const { teams, clock } = c.get('services');
    const invite = await openInvite(c, token);
    if (Date.parse(invite.expiresAt) <= clock().getTime()) throw new ServiceError('INVITE_EXPIRED');
    const team = await teams.findTeam(invite.teamId);
    if (team === undefined) throw new ServiceError('INVITE_NOT_FOUND');
    return c.json(
      successEnvelope({
        org_id: team.id,
        team_name: team.name,
        role: invite.role,
        invited_by: invite.invitedByEmail,
        expires_at: invite.expiresAt,
        email_matches: normalizeEmail(c.get('session').email) === invite.email,
      }),
      200,
    );
  })
  .openapi(acceptInvite, async (c) => {
    const { invite_token } = c.req.valid('json');
    const { teams, clock } = c.get('services');
    const now = clock();
    const session = c.get('session');
    const invite = await openInvite(c, invite_token);
    const membership = await teams.membershipOf(session.userId);
    const decision = checkAcceptInvite({
      callerEmail: session.email,
      inviteEmail: invite.email,
      inviteExpiresAt: new Date(invite.expiresAt),
      callerTeamId: membership?.teamId,
      now,
    });
    if (decision === 'ALREADY_IN_TEAM') throw new ServiceError('ALREADY_IN_TEAM', 'You are already in a team; leave it before accepting.');
    if (decision !== 'ok') throw new ServiceError(decision);
    const team = await teams.findTeam(invite.teamId);
    if (team === undefined) throw new ServiceError('INVITE_NOT_FOUND');
    const result = await teams.acceptInvite({ inviteId: invite.id, teamId: team.id, version: team.version, userId: session.userId, now });
    if (result === 'conflict') throw retry();
    if (result === 'gone') throw new ServiceError('INVITE_NOT_FOUND');
    if (result === 'member') throw new ServiceError('ALREADY_IN_TEAM', 'You are already in a team; leave it before accepting.');
    return c.json(successEnvelope(await viewOf(c, team.id, session.userId)), 200);
  })
  .openapi(revokeInvite, async (c) => {
    const { email } = c.req.valid('param');
    const { teams, clock } = c.get('services');
    const { membership, team } = await callerTeam(c);
    if (!canRevokeInvite(membership.role)) throw new ServiceError('FORBIDDEN', 'Only the team owner and admins can revoke invites.');
    const address = normalizeEmail(email);
    const result = await teams.revokeInvite({ teamId: team.id, version: team.version, email: address, now: clock() });
    if (result === 'conflict') throw retry();
    if (result === 'not_found') throw new ServiceError('INVITE_NOT_FOUND', 'There is no open invite for that address.');
    return c.json(successEnvelope({ email: address, revoked: true as const }), 200);
  })
  .openapi(removeMember, async (c) => {
    const { user_id: targetId } = c.req.valid('param');
    const { teams } = c.get('services');
    const { membership, team } = await callerTeam(c);
    const callerId = c.get('session').userId;
    const members = await teams.members(team.id);
    const decision = canRemove({ callerRole: membership.role, callerId, targetId, targetRole: members.find((m) => m.userId === targetId)?.role });
    if (decision === 'FORBIDDEN') throw new ServiceError('FORBIDDEN', 'Only the team owner can remove other members.');
    if (decision !== 'ok') throw new ServiceError(decision);
    const result = await teams.removeMember({ teamId: team.id, version: team.version, userId: targetId });
    if (result === 'conflict') throw retry();
    if (result === 'not_member') throw new ServiceError('NOT_A_MEMBER');
    return c.json(successEnvelope({ user_id: targetId, removed: true as const, left: targetId === callerId }), 200);
  })
  .openapi(usage, async (c) => {
    const { teams, clock } = c.get('services');
    const { membership, team } = await callerTeam(c);
    if (!canManageTeam(membership.role)) throw new ServiceError('FORBIDDEN', 'Only the team owner can read the usage report.');
    const now = clock();
    const from = windowStart('month', now);
    const to = windowReset('month', now);
    const members = await teams.members(team.id);
    const report = await teams.usage({ teamId: team.id, from, to });
    const byUser = new Map(report.perUser.map((row) => [row.userId, row]));
    return c.json(
      successEnvelope({
        period_start: from.toISOString(),
        period_end: new Date(to.getTime() - 1).toISOString(),
        org: { org_id: team.id, name: team.name, tier: team.tier },
        totals: { scans_used: report.total, members_count: members.length },
        members: members.map((member) => ({
          user_id: member.userId,
          email: member.email,
          role: member.role,
          scans_used: byUser.get(member.userId)?.scansUsed ?? 0,
          last_scan_at: byUser.get(member.userId)?.lastScanAt ?? null,
        })),
      }),
      200,
    );
  });

/** The invite of a token that is still open (not used, not revoked); expiry is the caller's to judge. */
async function openInvite(c: Context<AppEnv>, token: string): Promise<TeamInvite> {
  const invite = await c.get('services').teams.findInviteByTokenHash(hashSecret(token));
  if (invite === undefined || invite.acceptedAt !== null || invite.revokedAt !== null) throw new ServiceError('INVITE_NOT_FOUND');
  return invite;
}

function inviteMail(input: { to: string; inviter: string; teamName: string; role: string; token: string; expiresAt: string }) {
  return {
    to: input.to,
    subject: `svc: ${input.inviter} invited you to the team "${input.teamName}"`,
    text:
      `${input.inviter} invited you to join the team "${input.teamName}" on svc as ${input.role}.\n\n` +
      `Sign in as ${input.to} and accept with:\n\n  svc team accept ${input.token}\n\n` +
      `(or POST /team/invite/accept with {"invite_token": "${input.token}"}; GET /team/invite-preview?token= shows the invite first).\n\n` +
      `The invite expires at ${input.expiresAt}. If you did not expect it, ignore this email.\n`,
  };
}
