import { randomInt } from 'node:crypto';
import {
  hashSecret,
  normalizeEmail,
  rateLimited,
  windowKey,
  windowReset,
  type Blocked,
  type BucketRequest,
  type ServiceError,
  type WindowKind,
} from '@svc/core';
import { clientBuckets } from '../middleware/client-ip.js';

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

type Limits = readonly { window: WindowKind; limit: number }[];

/**
 * Codes one client address may ask for, whatever the addresses: 10 a minute, 100 a day. The per-address limits
 * alone let one machine mail a code to every address it knows and then guess against all of them. A person signs
 * in with one or two codes, so 100 a day still fits an office or a campus behind one NAT address, while one
 * address can no longer mail more than 100 inboxes a day or open more than 100 codes (500 guesses) to attack.
 */
export const LOGIN_IP_LIMITS = [
  { window: 'minute', limit: 10 },
  { window: 'day', limit: 100 },
] as const satisfies Limits;

/**
 * Verification attempts from one client address, right or wrong: 20 a minute, 200 a day. The per-code limit (5
 * attempts) protects one account; this one bounds guessing spread over many accounts (for example codes their
 * owners asked for), where each guess has a one-in-a-million chance: 200 a day keeps that near 2 in 10,000 per
 * address and day. Twice the login numbers, so a person who mistypes a code a few times is never the one refused.
 */
export const VERIFY_IP_LIMITS = [
  { window: 'minute', limit: 20 },
  { window: 'day', limit: 200 },
] as const satisfies Limits;

export type SignInAction = 'login' | 'verify';

/** The per-client-address buckets of a sign-in request (IPv6 clients by their /64, see clientBudgetKey). */
export function signInIpBuckets(action: SignInAction, ip: string, now: Date): BucketRequest[] {
  return clientBuckets(`${action}-ip`, action === 'login' ? LOGIN_IP_LIMITS : VERIFY_IP_LIMITS, ip, now);
}

/**
 * The 429 of a sign-in route. The window names the budget that is full: `login_minute`/`login_day` (one
 * address), `login_ip_minute`/`login_ip_day`, `verify_ip_minute`/`verify_ip_day` (one client address).
 */
export function signInRateLimitError(action: SignInAction, blocked: Blocked): ServiceError {
  return rateLimited({
    window: `${action}_${blocked.subject === 'ip' ? 'ip_' : ''}${blocked.window}`,
    tier: 'anonymous',
    current: blocked.current,
    limit: blocked.limit,
    retry_after_seconds: blocked.retryAfterSeconds,
  });
}
