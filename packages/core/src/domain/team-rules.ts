// Team, invite and membership decisions of spec sections 3 and 4.6. Each check returns 'ok' or the error
// code the route answers with; the route supplies the facts (roles, counts, the invite row).

import { randomBytes } from 'node:crypto';
import { domainToASCII } from 'node:url';
import type { RandomBytes } from './api-key.js';

export const TEAM_ROLES = ['owner', 'admin', 'member'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

/** Spec 2.4: an invite makes a member or an admin; ownership only moves by transfer. */
export const INVITE_ROLES = ['member', 'admin'] as const satisfies readonly TeamRole[];
export type InviteRole = (typeof INVITE_ROLES)[number];

/** Spec 8.4: per team, across all owners and admins. */
export const INVITE_LIMITS = { hour: 20, day: 100 } as const;

/**
 * Invites expire after 7 days, as GitHub organisation invitations do: long enough to cover a week away,
 * short enough that a forgotten invite to an address that changed hands does not stay acceptable.
 */
export const INVITE_TTL_DAYS = 7;

export function isTeamRole(value: unknown): value is TeamRole {
  return typeof value === 'string' && (TEAM_ROLES as readonly string[]).includes(value);
}

export function isInviteRole(value: unknown): value is InviteRole {
  return typeof value === 'string' && (INVITE_ROLES as readonly string[]).includes(value);
}

/** Spec 3: owners and admins create and revoke invites. */
export function canInvite(role: TeamRole): boolean {
  return role === 'owner' || role === 'admin';
}

export const canRevokeInvite = canInvite;

/** Spec 2.2: only the owner renames the team (PATCH /team) or transfers it. */
export function canManageTeam(role: TeamRole): boolean {
  return role === 'owner';
}

export type InviteDecision =
  | { ok: true }
  | { ok: false; code: 'FORBIDDEN' | 'ALREADY_IN_TEAM' | 'INVITE_ALREADY_PENDING' }
  | { ok: false; code: 'RATE_LIMITED'; window: 'hour' | 'day'; limit: number; current: number };

/**
 * POST /team/invite, conditions in the order of spec 3: the caller's right, the invitee not a member, no
 * open invite, then the team's invite limits (counts of invites this team created in the current UTC hour
 * and day, before this one).
 */
export function checkInvite(input: {
  callerRole: TeamRole;
  inviteeIsMember: boolean;
  inviteeHasOpenInvite: boolean;
  sentThisHour: number;
  sentToday: number;
}): InviteDecision {
  if (!canInvite(input.callerRole)) return { ok: false, code: 'FORBIDDEN' };
  if (input.inviteeIsMember) return { ok: false, code: 'ALREADY_IN_TEAM' };
  if (input.inviteeHasOpenInvite) return { ok: false, code: 'INVITE_ALREADY_PENDING' };
  if (input.sentToday >= INVITE_LIMITS.day) {
    return { ok: false, code: 'RATE_LIMITED', window: 'day', limit: INVITE_LIMITS.day, current: input.sentToday };
  }
  if (input.sentThisHour >= INVITE_LIMITS.hour) {
    return { ok: false, code: 'RATE_LIMITED', window: 'hour', limit: INVITE_LIMITS.hour, current: input.sentThisHour };
  }
  return { ok: true };
}

export type AcceptDecision = 'ok' | 'EMAIL_MISMATCH' | 'INVITE_EXPIRED' | 'ALREADY_IN_TEAM';

/**
 * POST /team/invite/accept for a token that names a pending invite (an unknown or revoked token is
 * INVITE_NOT_FOUND before this). The email is checked first so that someone holding another person's token
 * learns nothing about it. A user belongs to at most one team (GET /me has one org_id).
 */
export function checkAcceptInvite(input: {
  callerEmail: string;
  inviteEmail: string;
  inviteExpiresAt: Date;
  callerTeamId: string | null | undefined;
  now: Date;
}): AcceptDecision {
  if (!emailsMatch(input.callerEmail, input.inviteEmail)) return 'EMAIL_MISMATCH';
  if (isInviteExpired(input.inviteExpiresAt, input.now)) return 'INVITE_EXPIRED';
  if (input.callerTeamId != null) return 'ALREADY_IN_TEAM';
  return 'ok';
}

export type RemoveDecision = 'ok' | 'CANNOT_REMOVE_OWNER' | 'OWNER_CANNOT_LEAVE' | 'NOT_A_MEMBER' | 'FORBIDDEN';

/**
 * DELETE /team/members/{user_id}. `targetRole` is undefined when the target is not in the caller's team.
 * Spec 3: anyone but the owner may leave (target = caller); only the owner removes others; the owner can be
 * removed by nobody, themselves included (spec 3 rule 1). An admin removing the owner gets
 * CANNOT_REMOVE_OWNER (spec 7.2) rather than FORBIDDEN. Membership is revealed only to the owner, the one
 * caller allowed to remove.
 */
export function canRemove(input: {
  callerRole: TeamRole;
  callerId: string;
  targetId: string;
  targetRole: TeamRole | undefined;
}): RemoveDecision {
  if (input.targetId === input.callerId) return input.callerRole === 'owner' ? 'OWNER_CANNOT_LEAVE' : 'ok';
  if (input.targetRole === 'owner') return 'CANNOT_REMOVE_OWNER';
  if (input.callerRole !== 'owner') return 'FORBIDDEN';
  if (input.targetRole === undefined) return 'NOT_A_MEMBER';
  return 'ok';
}

export type TransferDecision = 'ok' | 'INVALID_FIELD' | 'NOT_A_MEMBER' | 'FORBIDDEN';

/**
 * PATCH /team {new_owner_user_id}. Spec 3 and 4.6 rule 2: only the owner; not to themselves (400
 * INVALID_FIELD, field new_owner_user_id); the target must be a member (DESIGN.md: 404 NOT_A_MEMBER).
 */
export function canTransfer(input: {
  callerRole: TeamRole;
  callerId: string;
  targetId: string;
  targetRole: TeamRole | undefined;
}): TransferDecision {
  if (input.callerRole !== 'owner') return 'FORBIDDEN';
  if (input.targetId === input.callerId) return 'INVALID_FIELD';
  if (input.targetRole === undefined) return 'NOT_A_MEMBER';
  return 'ok';
}

/**
 * Roles after a transfer. The previous owner stays on as an admin: they keep managing invites and can leave
 * on their own, which they could not do as owner.
 */
export const ROLES_AFTER_TRANSFER = { previousOwner: 'admin', newOwner: 'owner' } as const satisfies Record<string, TeamRole>;

/**
 * The form of an email address used for matching invites (spec 4.6 rule 1: case-insensitive) and for
 * "one open invite per email". Surrounding whitespace is dropped and the text put in Unicode NFC, so the
 * same characters typed with different code points compare equal (as RFC 6532 asks of mail systems; the
 * Kelvin sign U+212A is canonically "K"). The local part is lower-cased in ASCII only: full Unicode case
 * folding merges letters that are not canonically equal (dotless "ı" and long "ſ" upper-case to "I" and
 * "S"), which could let a different mailbox accept someone else's invite. The domain goes through IDNA
 * (`domainToASCII`), so `bücher.de` and `xn--bcher-kva.de` are one domain; a domain IDNA rejects is kept
 * as typed, lower-cased in ASCII. A false mismatch only costs a re-sent invite; a false match would
 * hand over a team seat.
 */
export function normalizeEmail(email: string): string {
  const text = email.trim().normalize('NFC');
  const at = text.lastIndexOf('@');
  if (at === -1) return asciiLower(text);
  const local = asciiLower(text.slice(0, at));
  const domainText = text.slice(at + 1);
  const domain = domainToASCII(domainText) || asciiLower(domainText);
  return `${local}@${domain}`;
}

export function emailsMatch(a: string, b: string): boolean {
  return normalizeEmail(a) === normalizeEmail(b);
}

function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

export function inviteExpiresAt(now: Date): Date {
  return new Date(now.getTime() + INVITE_TTL_DAYS * 86_400_000);
}

export function isInviteExpired(expiresAt: Date, now: Date): boolean {
  return now.getTime() >= expiresAt.getTime();
}

/**
 * A new invite token: `inv_` and 32 random bytes in base64url (47 characters). Store only hashSecret(token), like API
 * keys; the token itself goes into the invite email as a `svc team accept <token>` command line, so it must never
 * start with `-` (base64url can), or the command line would read it as an option.
 */
export function generateInviteToken(random: RandomBytes = randomBytes): string {
  return `inv_${Buffer.from(random(32)).toString('base64url')}`;
}
