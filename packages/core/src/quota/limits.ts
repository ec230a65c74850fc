// Every rate-limit number of the service (spec 8.1–8.3 and DESIGN.md
// "Decisions that fill the spec's gaps") and the mapping from one request to
// the buckets it must pass. docs/quotas.md is the user-facing copy.

import { createHash } from 'node:crypto';
import type { Tier } from '../domain/tiers.js';
import { windowKey, windowReset, type WindowKind } from './windows.js';

/** Which count a bucket holds. */
export type QuotaKind = 'scans' | 'deep' | 'private' | 'private_deep' | 'requests';

/** Whose count it is. `authorization` is the SHA-256 of an Authorization header value. */
export type SubjectKind = 'key' | 'user' | 'ip' | 'authorization';

type WindowCaps = Partial<Record<'day' | 'week' | 'month', number>>;

export interface TierScanLimits {
  /** Scan submissions per minute, public and private alike. */
  burstPerMinute: number;
  /** Public scans (fast and deep). */
  scans: WindowCaps;
  /** Public deep scans, on top of `scans`; null: deep scans are refused on this tier. */
  deep: WindowCaps | null;
  /** Private scans; null: private scans are refused on this tier. */
  private: { scans: WindowCaps; deep: WindowCaps } | null;
}

// The spec gives paid tiers only a month cap; DESIGN.md sets day = month / 4
// and week = month / 2 (rounded up) so bursts fit inside the binding month.
function paid(burstPerMinute: number, month: number, deepMonth: number, privateMonth: number, privateDeepMonth: number): TierScanLimits {
  return {
    burstPerMinute,
    scans: { day: Math.ceil(month / 4), week: Math.ceil(month / 2), month },
    deep: { month: deepMonth },
    private: { scans: { month: privateMonth }, deep: { month: privateDeepMonth } },
  };
}

export const SCAN_LIMITS: Readonly<Record<Tier, TierScanLimits>> = {
  // Anonymous budgets are per client IP.
  anonymous: { burstPerMinute: 3, scans: { day: 10 }, deep: null, private: null },
  free: { burstPerMinute: 5, scans: { day: 20 }, deep: { week: 6 }, private: null },
  dev: paid(10, 200, 20, 70, 20),
  team: paid(20, 2000, 60, 700, 40),
  business: paid(30, 20000, 180, 4000, 120),
};

/**
 * Spec 8.3 rule 4 and DESIGN.md: per Authorization value on /api/v1/*, and
 * per user across all of the user's keys and the web UI, whatever the tier;
 * and per client address for callers without a credential on open routes.
 */
export const REQUEST_LIMIT = { limit: 8000, window: 'five_minutes' } as const satisfies { limit: number; window: WindowKind };

/** One counter a request must fit into, for the window containing the request's time. */
export interface BucketRequest {
  /** Stable and unique: subject, quota and window key, e.g. `user:u1/deep/month:2026-11`. */
  id: string;
  limit: number;
  window: WindowKind;
  resetAt: Date;
  quota: QuotaKind;
  subject: SubjectKind;
  /** The tier whose numbers apply; named in the 429 details. */
  tier: Tier;
}

export interface ScanSubmitRequest {
  kind: 'scan-submit';
  tier: Tier;
  mode: 'fast' | 'deep';
  visibility: 'public' | 'private';
  /**
   * Signed-in callers: userId, plus keyId when an API key was used (none from
   * the web UI). Anonymous callers: ip.
   */
  subjects: { keyId?: string; userId?: string; ip?: string };
}

export interface ApiRequest {
  kind: 'request';
  /** The raw Authorization header value; only its hash is kept in bucket ids. */
  authorization?: string;
  userId?: string;
  /** A caller without a credential on an open route: counted per client address with the same cap. */
  ip?: string;
  /**
   * Only named in the 429 details; the numbers do not depend on it. A caller
   * not identified yet (the edge rule runs before the credential is checked)
   * is reported as anonymous.
   */
  tier?: Tier;
}

/** Why a scan is refused regardless of counters: not a rate limit, so no 429. */
export interface QuotaRefusal {
  /** ErrorCode to answer with: 401 where signing in is the remedy, 402 where a paid plan is. */
  code: 'UNAUTHORIZED' | 'SUBSCRIPTION_REQUIRED';
  message: string;
}

export type BucketPlan = { ok: true; buckets: BucketRequest[] } | { ok: false; refusal: QuotaRefusal };

/**
 * The buckets `request` must pass at `now`, or why it is refused outright.
 *
 * What counts where (scan submissions):
 * - every submission: the minute burst;
 * - public: scans day/week/month; if deep, also the deep buckets;
 * - private: private month; if deep, also private deep month.
 * A deep scan is a scan, so it uses up the general budget of its visibility
 * as well as the deep one. Private scans have their own budget (spec 8.2) and
 * do not use up public scans.
 *
 * Per key and per user (spec 8.3 rules 1–2): a key's buckets carry the same
 * numbers as its user's, and the user's buckets count every key and the web
 * UI, so more keys never raise the quota.
 */
export function bucketsFor(request: ScanSubmitRequest | ApiRequest, now: Date): BucketPlan {
  if (request.kind === 'request') return { ok: true, buckets: requestBuckets(request, now) };

  const { tier, mode, visibility, subjects } = request;
  const limits = SCAN_LIMITS[tier];
  const refusal = scanRefusal(tier, limits, mode, visibility);
  if (refusal) return { ok: false, refusal };

  const caps: Array<{ quota: QuotaKind; window: WindowKind; limit: number }> = [
    { quota: 'scans', window: 'minute', limit: limits.burstPerMinute },
  ];
  const addCaps = (quota: QuotaKind, windowCaps: WindowCaps) => {
    for (const [window, limit] of Object.entries(windowCaps) as Array<[WindowKind, number]>) caps.push({ quota, window, limit });
  };
  if (visibility === 'public') {
    addCaps('scans', limits.scans);
    if (mode === 'deep' && limits.deep) addCaps('deep', limits.deep);
  } else if (limits.private) {
    addCaps('private', limits.private.scans);
    if (mode === 'deep') addCaps('private_deep', limits.private.deep);
  }

  const owners: Array<{ subject: SubjectKind; value: string }> = [];
  if (tier === 'anonymous') {
    if (!subjects.ip) throw new TypeError('bucketsFor: an anonymous scan needs subjects.ip');
    owners.push({ subject: 'ip', value: subjects.ip });
  } else {
    if (!subjects.userId) throw new TypeError('bucketsFor: a signed-in scan needs subjects.userId');
    owners.push({ subject: 'user', value: subjects.userId });
    if (subjects.keyId) owners.push({ subject: 'key', value: subjects.keyId });
  }

  const buckets = owners.flatMap((owner) =>
    caps.map((cap) => bucket(owner.subject, owner.value, cap.quota, cap.window, cap.limit, tier, now)),
  );
  return { ok: true, buckets };
}

function scanRefusal(
  tier: Tier,
  limits: TierScanLimits,
  mode: 'fast' | 'deep',
  visibility: 'public' | 'private',
): QuotaRefusal | null {
  // Spec 7.2 answers private-scan routes with 402 whoever asks; a deep scan
  // only needs an account (the free tier has 6 a week), so anonymous gets 401.
  if (visibility === 'private' && !limits.private) {
    return { code: 'SUBSCRIPTION_REQUIRED', message: `Private scans need a paid plan; the ${tier} tier has none.` };
  }
  if (mode === 'deep' && !limits.deep) {
    return tier === 'anonymous'
      ? { code: 'UNAUTHORIZED', message: 'Deep scans need a signed-in account; anonymous callers may run fast scans only.' }
      : { code: 'SUBSCRIPTION_REQUIRED', message: `Deep scans are not part of the ${tier} plan.` };
  }
  return null;
}

function requestBuckets(request: ApiRequest, now: Date): BucketRequest[] {
  const tier = request.tier ?? 'anonymous';
  const { limit, window } = REQUEST_LIMIT;
  const buckets: BucketRequest[] = [];
  if (request.authorization !== undefined) {
    // Bucket ids end up in the database; a hash keeps the credential out of it.
    const digest = createHash('sha256').update(request.authorization).digest('hex');
    buckets.push(bucket('authorization', digest, 'requests', window, limit, tier, now));
  }
  if (request.userId !== undefined) buckets.push(bucket('user', request.userId, 'requests', window, limit, tier, now));
  if (request.ip !== undefined) buckets.push(bucket('ip', request.ip, 'requests', window, limit, tier, now));
  return buckets;
}

function bucket(
  subject: SubjectKind,
  value: string,
  quota: QuotaKind,
  window: WindowKind,
  limit: number,
  tier: Tier,
  now: Date,
): BucketRequest {
  // Encoding keeps ids unambiguous whatever the value holds (IPv6 colons, slashes).
  const id = `${subject}:${encodeURIComponent(value)}/${quota}/${windowKey(window, now)}`;
  return { id, limit, window, resetAt: windowReset(window, now), quota, subject, tier };
}
