import { decideQuota, rateLimited, ServiceError, type Blocked, type BucketRequest, type WindowKind } from '@svc/core';
import type { Context } from 'hono';
import type { AppEnv } from '../env.js';
import { clientBuckets } from './client-ip.js';

/**
 * Credentials refused before one is identified (a malformed or unknown API key, a forged or expired session token),
 * per client address (IPv6: per /64): 30 a minute, 300 an hour. Guessing a key or a token is hopeless anyway; this
 * bounds the work (hash lookups, signature checks) and the log noise one address can cause. A person or CI job with
 * a revoked key refused now and then stays far below it. Missing credentials and the wrong kind (a session token on
 * an API-key route) are mistakes, not guesses, and count nowhere.
 */
export const REFUSED_CREDENTIAL_LIMITS = [
  { window: 'minute', limit: 30 },
  { window: 'hour', limit: 300 },
] as const satisfies readonly { window: WindowKind; limit: number }[];

function refusedBuckets(c: Context<AppEnv>, now: Date): BucketRequest[] {
  return clientBuckets('refused-credential', REFUSED_CREDENTIAL_LIMITS, c.get('clientIp'), now);
}

function spent(blocked: Blocked): ServiceError {
  return rateLimited({
    window: `refused_credentials_${blocked.window}`,
    tier: 'anonymous',
    current: blocked.current,
    limit: blocked.limit,
    retry_after_seconds: blocked.retryAfterSeconds,
  });
}

/**
 * Before a credential is checked: an address that has spent its budget gets 429 (with Retry-After) and nothing is
 * checked, a valid credential included, until the window ends; otherwise a guesser would still learn which guess
 * was right. The counters are the in-memory request counters (docs/daemon.md says why those are not in SQLite).
 */
export async function checkRefusedBudget(c: Context<AppEnv>): Promise<void> {
  const { requestQuota, clock } = c.get('services');
  const now = clock();
  const buckets = refusedBuckets(c, now);
  const decision = decideQuota(buckets, await requestQuota.peek(buckets, now), now);
  if (!decision.allowed) throw spent(decision.blocked);
}

/** A credential was refused: counts it, and returns the error to throw (the 401, or 429 if this spent the budget). */
export async function refusedCredential(c: Context<AppEnv>, refusal: ServiceError = new ServiceError('UNAUTHORIZED')): Promise<ServiceError> {
  const { requestQuota, clock } = c.get('services');
  const now = clock();
  const decision = await requestQuota.consume(refusedBuckets(c, now), now);
  return decision.allowed ? refusal : spent(decision.blocked);
}
