import { describe, expect, it } from 'vitest';
import {
  canInvite,
  canRemove,
  canTransfer,
  checkAcceptInvite,
  checkInvite,
  emailsMatch,
  generateInviteToken,
  INVITE_LIMITS,
  INVITE_TTL_DAYS,
  inviteExpiresAt,
  isInviteRole,
  normalizeEmail,
} from './team-rules.js';

const NOW = new Date('2026-11-23T12:00:00Z');

describe('invites', () => {
  it.each([
    ['owner', true],
    ['admin', true],
    ['member', false],
  ] as const)('%s may invite: %s', (role, allowed) => {
    expect(canInvite(role)).toBe(allowed);
  });

  it('invites members and admins, never owners', () => {
    expect(isInviteRole('member')).toBe(true);
    expect(isInviteRole('admin')).toBe(true);
    expect(isInviteRole('owner')).toBe(false);
  });

  const fine = { callerRole: 'admin', inviteeIsMember: false, inviteeHasOpenInvite: false, sentThisHour: 0, sentToday: 0 } as const;
  it.each([
    [{}, { ok: true }],
    [{ callerRole: 'member' }, { ok: false, code: 'FORBIDDEN' }],
    [{ inviteeIsMember: true }, { ok: false, code: 'ALREADY_IN_TEAM' }],
    [{ inviteeHasOpenInvite: true }, { ok: false, code: 'INVITE_ALREADY_PENDING' }],
    [{ sentThisHour: 19, sentToday: 99 }, { ok: true }],
    [{ sentThisHour: 20 }, { ok: false, code: 'RATE_LIMITED', window: 'hour', limit: 20, current: 20 }],
    [{ sentToday: 100 }, { ok: false, code: 'RATE_LIMITED', window: 'day', limit: 100, current: 100 }],
    [{ sentThisHour: 20, sentToday: 100 }, { ok: false, code: 'RATE_LIMITED', window: 'day', limit: 100, current: 100 }],
    [{ callerRole: 'member', inviteeIsMember: true }, { ok: false, code: 'FORBIDDEN' }],
  ] as const)('invite with %j: %j', (change, decision) => {
    expect(checkInvite({ ...fine, ...change })).toEqual(decision);
  });

  it('limits invites to 20 an hour and 100 a day', () => {
    expect(INVITE_LIMITS).toEqual({ hour: 20, day: 100 });
  });

  const invite = { inviteEmail: 'Ana@Example.com', inviteExpiresAt: inviteExpiresAt(NOW), callerTeamId: null, now: NOW };
  it.each([
    [{ callerEmail: 'ana@example.com' }, 'ok'],
    [{ callerEmail: '  ANA@EXAMPLE.COM ' }, 'ok'],
    [{ callerEmail: 'bob@example.com' }, 'EMAIL_MISMATCH'],
    [{ callerEmail: 'bob@example.com', now: new Date('2027-01-01T00:00:00Z') }, 'EMAIL_MISMATCH'],
    [{ callerEmail: 'ana@example.com', now: new Date(NOW.getTime() + INVITE_TTL_DAYS * 86_400_000) }, 'INVITE_EXPIRED'],
    [{ callerEmail: 'ana@example.com', now: new Date(NOW.getTime() + INVITE_TTL_DAYS * 86_400_000 - 1) }, 'ok'],
    [{ callerEmail: 'ana@example.com', callerTeamId: 'org_other' }, 'ALREADY_IN_TEAM'],
  ])('accept with %j: %s', (change, decision) => {
    expect(checkAcceptInvite({ ...invite, ...change })).toBe(decision);
  });

  it('makes unguessable, URL-safe tokens', () => {
    const tokens = new Set(Array.from({ length: 100 }, () => generateInviteToken()));
    expect(tokens.size).toBe(100);
    for (const token of tokens) expect(token).toMatch(/^inv_[A-Za-z0-9_-]{43}$/);
  });

  it('never starts a token with `-`, which a command line would read as an option', () => {
    // 0xF8 makes base64url's first character `-` (index 62).
    const token = generateInviteToken((size) => Buffer.alloc(size, 0xf8));
    expect(token.startsWith('-')).toBe(false);
    expect(token).toMatch(/^inv_-/);
  });
});

describe('emailsMatch', () => {
  it.each([
    ['ana@example.com', 'ana@example.com', true],
    ['Ana@Example.COM', 'ana@example.com', true],
    [' ana@example.com\t', 'ana@example.com', true],
    ['ana@bücher.de', 'ana@xn--bcher-kva.de', true],
    ['ana@BÜCHER.de', 'ana@bücher.de', true],
    // NFC: "é" precomposed vs "e" + combining acute
    ['jos\u00e9@example.com', 'jose\u0301@example.com', true],
    // the Kelvin sign is canonically equivalent to K, so NFC makes it the same address
    ['\u212Aate@example.com', 'kate@example.com', true],
    // Unicode case folding is not applied to the local part: letters that only fold together stay distinct
    ['k\u0131ra@example.com', 'kira@example.com', false],
    ['ro\u017Fe@example.com', 'rose@example.com', false],
    ['\u00c9mile@example.com', '\u00e9mile@example.com', false],
    ['ana@example.com', 'ana@example.co', false],
    ['ana+team@example.com', 'ana@example.com', false],
    ['a.na@example.com', 'ana@example.com', false],
    ['ana@example.com', 'ana@evil.example.com', false],
    ['', '', true],
  ])('%j vs %j: %s', (a, b, match) => {
    expect(emailsMatch(a, b)).toBe(match);
  });

  it('is the key for "one open invite per email"', () => {
    expect(normalizeEmail(' Ana@Example.COM ')).toBe('ana@example.com');
  });
});

describe('removal (spec 3, 4.6, 7.2)', () => {
  it.each([
    // caller role, caller, target, target role, decision
    ['owner', 'u1', 'u2', 'member', 'ok'],
    ['owner', 'u1', 'u2', 'admin', 'ok'],
    ['owner', 'u1', 'u1', 'owner', 'OWNER_CANNOT_LEAVE'],
    ['owner', 'u1', 'u9', undefined, 'NOT_A_MEMBER'],
    ['admin', 'u2', 'u2', 'admin', 'ok'],
    ['member', 'u3', 'u3', 'member', 'ok'],
    ['admin', 'u2', 'u1', 'owner', 'CANNOT_REMOVE_OWNER'],
    ['member', 'u3', 'u1', 'owner', 'CANNOT_REMOVE_OWNER'],
    ['admin', 'u2', 'u3', 'member', 'FORBIDDEN'],
    ['member', 'u3', 'u2', 'admin', 'FORBIDDEN'],
    ['admin', 'u2', 'u9', undefined, 'FORBIDDEN'],
  ] as const)('%s %s removing %s (%s): %s', (callerRole, callerId, targetId, targetRole, decision) => {
    expect(canRemove({ callerRole, callerId, targetId, targetRole })).toBe(decision);
  });
});

describe('ownership transfer (spec 3, 4.6)', () => {
  it.each([
    ['owner', 'u1', 'u2', 'member', 'ok'],
    ['owner', 'u1', 'u2', 'admin', 'ok'],
    ['owner', 'u1', 'u1', 'owner', 'INVALID_FIELD'],
    ['owner', 'u1', 'u9', undefined, 'NOT_A_MEMBER'],
    ['admin', 'u2', 'u3', 'member', 'FORBIDDEN'],
    ['member', 'u3', 'u3', 'member', 'FORBIDDEN'],
  ] as const)('%s %s to %s (%s): %s', (callerRole, callerId, targetId, targetRole, decision) => {
    expect(canTransfer({ callerRole, callerId, targetId, targetRole })).toBe(decision);
  });
});
