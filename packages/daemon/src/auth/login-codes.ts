import { randomInt } from 'node:crypto';
import { hashSecret, normalizeEmail, windowKey, windowReset, type BucketRequest, type WindowKind } from '@svc/core';

/** A code lives 10 minutes and survives 5 wrong guesses: 5 in a million is the chance of guessing one. */
export const LOGIN_CODE_TTL_MS = 10 * 60 * 1000;
export const LOGIN_CODE_MAX_ATTEMPTS = 5;
export const LOGIN_CODE_DIGITS = 6;

export function generateLoginCode(): string {
  return String(randomInt(0, 10 ** LOGIN_CODE_DIGITS)).padStart(LOGIN_CODE_DIGITS, '0');
}

/**
 * The stored form of a code. Six digits have only a million values, so a plain hash would fall to a table
 * at once; the HMAC with the server secret (the pepper) makes a leaked database alone useless, and binding
 * the address keeps one code from being valid for another account.
 */
export function hashLoginCode(email: string, code: string, pepper: string): string {
  return hashSecret(`${normalizeEmail(email)}\n${code}`, pepper);
}

/**
 * Codes an address may be sent: one a minute (a resend after a slow mail), ten a day. This bounds mail to any
 * one inbox and the guesses against one account to 50 a day, since every new code allows 5 more.
 */
export const LOGIN_CODE_LIMITS = [
  { window: 'minute', limit: 1 },
  { window: 'day', limit: 10 },
] as const satisfies readonly { window: WindowKind; limit: number }[];

/** The quota buckets of one login request; keyed by the normalised address, so spelling variants share them. */
export function loginCodeBuckets(email: string, now: Date): BucketRequest[] {
  const address = normalizeEmail(email);
  return LOGIN_CODE_LIMITS.map(({ window, limit }) => ({
    id: `login:${address}/${windowKey(window, now)}`,
    limit,
    window,
    resetAt: windowReset(window, now),
    // Core's kinds describe API and scan quotas; the 429 details of a login are built by the route instead.
    quota: 'requests',
    subject: 'user',
    tier: 'anonymous',
  }));
}
