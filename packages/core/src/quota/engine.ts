// The decision over a request's buckets, the store contract that applies it
// atomically, and the HTTP-facing shapes (X-RateLimit-* headers, 429 details).

import { rateLimited, type RateLimitDetails, type ServiceError } from '../domain/errors.js';
import type { Tier } from '../domain/tiers.js';
import type { BucketRequest, QuotaKind, SubjectKind } from './limits.js';
import type { WindowKind } from './windows.js';

/** The bucket with the least room left, after counting the request. Feeds X-RateLimit-*. */
export interface BucketStanding {
  limit: number;
  remaining: number;
  resetAt: Date;
}

export interface Blocked {
  window: WindowKind;
  quota: QuotaKind;
  subject: SubjectKind;
  tier: Tier;
  /** The count before this request; at or above `limit`. */
  current: number;
  limit: number;
  resetAt: Date;
  /** Whole seconds until the blocking bucket resets, at least 1. */
  retryAfterSeconds: number;
}

export type QuotaDecision =
  | { allowed: true; /** null when the request touched no bucket. */ tightest: BucketStanding | null }
  | { allowed: false; blocked: Blocked };

/** Current counts by bucket id; a missing id counts as 0. */
export type BucketCounts = ReadonlyMap<string, number>;

/**
 * Pure decision: the request (weight 1) is allowed when every bucket has room
 * for one more. When several buckets are full, the one that resets last is
 * reported, because the request cannot pass before that one resets, so its
 * Retry-After is the honest wait.
 */
export function decideQuota(buckets: readonly BucketRequest[], counts: BucketCounts, now: Date): QuotaDecision {
  let blocking: { bucket: BucketRequest; current: number } | null = null;
  let tightest: BucketStanding | null = null;
  for (const bucket of uniqueById(buckets)) {
    const current = counts.get(bucket.id) ?? 0;
    if (current + 1 > bucket.limit) {
      if (!blocking || bucket.resetAt > blocking.bucket.resetAt) blocking = { bucket, current };
      continue;
    }
    tightest = tighterStanding(tightest, { limit: bucket.limit, remaining: bucket.limit - current - 1, resetAt: bucket.resetAt });
  }
  if (blocking) {
    const { bucket, current } = blocking;
    return {
      allowed: false,
      blocked: {
        window: bucket.window,
        quota: bucket.quota,
        subject: bucket.subject,
        tier: bucket.tier,
        current,
        limit: bucket.limit,
        resetAt: bucket.resetAt,
        retryAfterSeconds: Math.max(1, Math.ceil((bucket.resetAt.getTime() - now.getTime()) / 1000)),
      },
    };
  }
  return { allowed: true, tightest };
}

/**
 * The tighter of two standings: fewer remaining, then the earlier reset.
 * Exported so a caller that consumed request and scan buckets separately can
 * report the tightest over both in one set of headers.
 */
export function tighterStanding(a: BucketStanding | null, b: BucketStanding | null): BucketStanding | null {
  if (!a) return b;
  if (!b) return a;
  if (b.remaining !== a.remaining) return b.remaining < a.remaining ? b : a;
  return b.resetAt < a.resetAt ? b : a;
}

/**
 * Counter storage. `consume` is the one write: it checks every bucket and
 * increments all of them by one, or none when any is full, as one atomic
 * step; concurrent calls must never push a counter past its limit. (The
 * daemon's SQLite store does it in one IMMEDIATE transaction.) Buckets are
 * keyed by `BucketRequest.id`; a counter may be dropped once `resetAt` has
 * passed, because ids name their window and are never reused.
 */
export interface QuotaStore {
  consume(buckets: readonly BucketRequest[], now: Date): Promise<QuotaDecision>;
  /** Counts at `now` without consuming, e.g. for a usage page; a window that has ended counts 0. */
  peek(buckets: readonly BucketRequest[], now: Date): Promise<Map<string, number>>;
}

/** In-process store: for tests and for a daemon that keeps no quota state across restarts. */
export class MemoryQuotaStore implements QuotaStore {
  readonly #counters = new Map<string, { count: number; resetAt: number }>();
  #lastPruneMs = Number.NEGATIVE_INFINITY;

  // No `await` between reading and writing the counters: the whole check and
  // increment runs in one turn of the event loop, which is what makes it
  // atomic with respect to other consume() calls in this process.
  async consume(buckets: readonly BucketRequest[], now: Date): Promise<QuotaDecision> {
    this.#pruneOccasionally(now);
    const unique = uniqueById(buckets);
    const decision = decideQuota(unique, this.#countsAt(unique, now), now);
    if (decision.allowed) {
      for (const bucket of unique) {
        const entry = this.#counters.get(bucket.id);
        if (entry && entry.resetAt > now.getTime()) entry.count += 1;
        else this.#counters.set(bucket.id, { count: 1, resetAt: bucket.resetAt.getTime() });
      }
    }
    return decision;
  }

  async peek(buckets: readonly BucketRequest[], now: Date): Promise<Map<string, number>> {
    return this.#countsAt(buckets, now);
  }

  /** Drops counters whose window has ended. */
  prune(now: Date): void {
    for (const [id, entry] of this.#counters) if (entry.resetAt <= now.getTime()) this.#counters.delete(id);
    this.#lastPruneMs = now.getTime();
  }

  /** Number of counters held; lets tests see that pruning happens. */
  get size(): number {
    return this.#counters.size;
  }

  #countsAt(buckets: readonly BucketRequest[], now: Date): Map<string, number> {
    const counts = new Map<string, number>();
    for (const bucket of buckets) {
      const entry = this.#counters.get(bucket.id);
      counts.set(bucket.id, entry && entry.resetAt > now.getTime() ? entry.count : 0);
    }
    return counts;
  }

  // Without persistence nothing else clears old windows, so a long-running
  // daemon would grow without bound; once a minute is plenty.
  #pruneOccasionally(now: Date): void {
    if (now.getTime() - this.#lastPruneMs >= 60_000) this.prune(now);
  }
}

/**
 * X-RateLimit-* headers (spec 8.3 rule 5) for the tightest bucket the request
 * touched. X-RateLimit-Reset is the reset instant in Unix epoch seconds (as
 * GitHub's API does), not a delta; Retry-After, on 429 only, is a delta in
 * seconds. A request that touched no bucket gets no headers.
 */
export function rateLimitHeaders(decision: QuotaDecision): Record<string, string> {
  if (!decision.allowed) {
    const { blocked } = decision;
    return {
      'X-RateLimit-Limit': String(blocked.limit),
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(epochSeconds(blocked.resetAt)),
      'Retry-After': String(blocked.retryAfterSeconds),
    };
  }
  if (!decision.tightest) return {};
  const { limit, remaining, resetAt } = decision.tightest;
  return {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(epochSeconds(resetAt)),
  };
}

/**
 * The 429 `error.details` of spec 7.3. `window` says which count is full, not
 * only how long it lasts, because the deep month and the month are different
 * budgets: a window kind (`minute`, `day`, `week`, `month`) for the general
 * scan buckets; `deep_week`, `deep_month`, `private_month`,
 * `private_deep_month` for the others; `edge` for the 8000-per-5-minutes rule
 * on one Authorization value and `user_requests` for the same cap per user.
 */
export function rateLimitDetails(blocked: Blocked): RateLimitDetails {
  return {
    window: detailsWindow(blocked),
    tier: blocked.tier,
    current: blocked.current,
    limit: blocked.limit,
    retry_after_seconds: blocked.retryAfterSeconds,
  };
}

/** The RATE_LIMITED error (message naming the wait in seconds) for the transport to answer with. */
export function rateLimitError(blocked: Blocked): ServiceError {
  return rateLimited(rateLimitDetails(blocked));
}

function detailsWindow({ quota, window, subject }: Blocked): string {
  switch (quota) {
    case 'scans':
      return window;
    case 'requests':
      if (subject === 'user') return 'user_requests';
      return subject === 'ip' ? 'ip_requests' : 'edge';
    default:
      return `${quota}_${window}`;
  }
}

function epochSeconds(date: Date): number {
  return Math.ceil(date.getTime() / 1000);
}

function uniqueById(buckets: readonly BucketRequest[]): BucketRequest[] {
  const seen = new Set<string>();
  return buckets.filter((bucket) => !seen.has(bucket.id) && seen.add(bucket.id));
}
