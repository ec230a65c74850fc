import { decideQuota, type BucketRequest, type QuotaDecision, type QuotaStore } from '@svc/core';
import type { SqliteDatabase } from './database.js';

/**
 * Core's QuotaStore on the quota_counters table. All buckets of a request are read, decided and incremented
 * in one IMMEDIATE transaction, so a request passes all of them or none (DESIGN.md "Rate limiting"), also
 * with several processes on one file. A counter whose window has ended counts as 0 and is overwritten.
 */
export class SqliteQuotaStore implements QuotaStore {
  constructor(private readonly db: SqliteDatabase) {}

  async consume(buckets: readonly BucketRequest[], now: Date): Promise<QuotaDecision> {
    return this.db.transaction(() => this.consumeInTransaction(buckets, now)).immediate();
  }

  /**
   * The decision and increments without a transaction of their own, for a caller that writes more in the same
   * transaction (a scan is queued only together with its quota, see ScanRepository.submit).
   */
  consumeInTransaction(buckets: readonly BucketRequest[], now: Date): QuotaDecision {
    const decision = decideQuota(buckets, this.counts(buckets, now), now);
    if (!decision.allowed) return decision;
    const bump = this.db.prepare(
      `INSERT INTO quota_counters (bucket, count, reset_at) VALUES (?, 1, ?)
       ON CONFLICT (bucket) DO UPDATE SET
         count = CASE WHEN quota_counters.reset_at > ? THEN quota_counters.count + 1 ELSE 1 END,
         reset_at = CASE WHEN quota_counters.reset_at > ? THEN quota_counters.reset_at ELSE excluded.reset_at END`,
    );
    const nowText = now.toISOString();
    for (const id of new Set(buckets.map((bucket) => bucket.id))) {
      const bucket = buckets.find((candidate) => candidate.id === id);
      if (bucket !== undefined) bump.run(id, bucket.resetAt.toISOString(), nowText, nowText);
    }
    return decision;
  }

  async peek(buckets: readonly BucketRequest[], now: Date): Promise<Map<string, number>> {
    return this.counts(buckets, now);
  }

  /** Drops the counters of ended windows; nothing else needs them. */
  prune(now: Date): number {
    return this.db.prepare('DELETE FROM quota_counters WHERE reset_at <= ?').run(now.toISOString()).changes;
  }

  private counts(buckets: readonly BucketRequest[], now: Date): Map<string, number> {
    const read = this.db.prepare<[string, string], { count: number }>('SELECT count FROM quota_counters WHERE bucket = ? AND reset_at > ?');
    const nowText = now.toISOString();
    return new Map(buckets.map((bucket) => [bucket.id, read.get(bucket.id, nowText)?.count ?? 0]));
  }
}
