import { describe, expect, it } from 'vitest';
import type { Tier } from '../domain/tiers.js';
import { decideQuota, MemoryQuotaStore, rateLimitDetails, rateLimitError, rateLimitHeaders, tighterStanding, type QuotaDecision } from './engine.js';
import { bucketsFor, type ApiRequest, type BucketRequest, type ScanSubmitRequest } from './limits.js';

/** A clock the test moves by hand. */
class TestClock {
  #ms: number;
  constructor(iso: string) {
    this.#ms = Date.parse(iso);
  }
  now(): Date {
    return new Date(this.#ms);
  }
  set(iso: string): void {
    this.#ms = Date.parse(iso);
  }
  advance(ms: number): void {
    this.#ms += ms;
  }
}

function scan(tier: Tier, subjects: ScanSubmitRequest['subjects'], mode: 'fast' | 'deep' = 'fast', visibility: 'public' | 'private' = 'public') {
  return { kind: 'scan-submit', tier, mode, visibility, subjects } as const;
}

function bucketsOf(request: ScanSubmitRequest | ApiRequest, now: Date): BucketRequest[] {
  const plan = bucketsFor(request, now);
  if (!plan.ok) throw new Error(`refused: ${plan.refusal.message}`);
  return plan.buckets;
}

async function submit(store: MemoryQuotaStore, request: ScanSubmitRequest | ApiRequest, now: Date): Promise<QuotaDecision> {
  return store.consume(bucketsOf(request, now), now);
}

function blockedOf(decision: QuotaDecision) {
  if (decision.allowed) throw new Error('expected the request to be blocked');
  return decision.blocked;
}

const MINUTE = 60_000;
const DAY = 86_400_000;

describe('anonymous scans', () => {
  it('allows 3 in a minute, blocks the 4th until the next minute, with the 429 headers and details', async () => {
    const store = new MemoryQuotaStore();
    const clock = new TestClock('2026-11-23T10:15:20Z');
    const anon = scan('anonymous', { ip: '203.0.113.7' });

    const first = await submit(store, anon, clock.now());
    expect(first).toEqual({ allowed: true, tightest: { limit: 3, remaining: 2, resetAt: new Date('2026-11-23T10:16:00Z') } });
    expect(rateLimitHeaders(first)).toEqual({
      'X-RateLimit-Limit': '3',
      'X-RateLimit-Remaining': '2',
      'X-RateLimit-Reset': String(Date.parse('2026-11-23T10:16:00Z') / 1000),
    });
    clock.advance(10_000);
    expect((await submit(store, anon, clock.now())).allowed).toBe(true);
    expect((await submit(store, anon, clock.now())).allowed).toBe(true);

    clock.advance(9_500); // 10:15:39.5
    const fourth = await submit(store, anon, clock.now());
    const blocked = blockedOf(fourth);
    expect(blocked).toMatchObject({ window: 'minute', quota: 'scans', tier: 'anonymous', current: 3, limit: 3, retryAfterSeconds: 21 });
    expect(rateLimitHeaders(fourth)).toEqual({
      'X-RateLimit-Limit': '3',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(Date.parse('2026-11-23T10:16:00Z') / 1000),
      'Retry-After': '21',
    });
    const details = { window: 'minute', tier: 'anonymous', current: 3, limit: 3, retry_after_seconds: 21 };
    expect(rateLimitDetails(blocked)).toEqual(details);
    const error = rateLimitError(blocked);
    expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429, details });
    expect(error.message).toMatch(/\b21 seconds\b/);
    // The blocked attempt used up nothing: the day bucket still counts 3.
    const dayBucket = bucketsOf(anon, clock.now()).find((b) => b.window === 'day');
    expect(await store.peek(dayBucket ? [dayBucket] : [], clock.now())).toEqual(new Map([[dayBucket?.id, 3]]));

    clock.set('2026-11-23T10:15:59.999Z');
    expect(blockedOf(await submit(store, anon, clock.now())).retryAfterSeconds).toBe(1);
    clock.set('2026-11-23T10:16:00Z');
    expect(await submit(store, anon, clock.now())).toMatchObject({ allowed: true, tightest: { limit: 3, remaining: 2 } });
  });

  it('caps a day at 10 and reopens at midnight UTC; other IPs are unaffected', async () => {
    const store = new MemoryQuotaStore();
    const clock = new TestClock('2026-11-23T08:00:00Z');
    const anon = scan('anonymous', { ip: '198.51.100.1' });
    for (let i = 0; i < 10; i++) {
      expect((await submit(store, anon, clock.now())).allowed).toBe(true);
      clock.advance(30 * MINUTE);
    }
    // 13:00: the day's last scan leaves 0 of 10 (tighterStanding than the minute's 2 of 3).
    const eleventh = await submit(store, anon, clock.now());
    expect(blockedOf(eleventh)).toMatchObject({ window: 'day', current: 10, limit: 10, retryAfterSeconds: 11 * 3600 });
    expect(rateLimitDetails(blockedOf(eleventh))).toMatchObject({ window: 'day', retry_after_seconds: 39600 });
    expect(rateLimitError(blockedOf(eleventh)).message).toMatch(/\b39600 seconds\b/);
    expect((await submit(store, scan('anonymous', { ip: '198.51.100.2' }), clock.now())).allowed).toBe(true);
    clock.set('2026-11-24T00:00:00Z');
    expect(await submit(store, anon, clock.now())).toMatchObject({ allowed: true, tightest: { limit: 3, remaining: 2 } });
  });

  it('reports the day as the tightest bucket once it has less room than the minute', async () => {
    const store = new MemoryQuotaStore();
    const clock = new TestClock('2026-11-23T08:00:00Z');
    const anon = scan('anonymous', { ip: '198.51.100.9' });
    for (let i = 0; i < 8; i++) {
      await submit(store, anon, clock.now());
      clock.advance(MINUTE);
    }
    // 9th of the day, 1st of its minute: day has 1 left, minute 2.
    const ninth = await submit(store, anon, clock.now());
    expect(ninth).toEqual({ allowed: true, tightest: { limit: 10, remaining: 1, resetAt: new Date('2026-11-24T00:00:00Z') } });
  });
});

describe('free tier deep scans', () => {
  it('allows 6 deep scans per ISO week, resetting Monday 00:00 UTC, while fast scans go on', async () => {
    const store = new MemoryQuotaStore();
    const clock = new TestClock('2026-11-23T09:00:00Z'); // Monday of 2026-W48
    const deep = scan('free', { userId: 'u-free' }, 'deep');
    const fast = scan('free', { userId: 'u-free' }, 'fast');
    for (let i = 0; i < 6; i++) {
      expect((await submit(store, deep, clock.now())).allowed).toBe(true);
      clock.advance(DAY / 2);
    }
    clock.set('2026-11-27T12:00:00Z');
    const seventh = await submit(store, deep, clock.now());
    expect(blockedOf(seventh)).toMatchObject({ window: 'week', quota: 'deep', tier: 'free', current: 6, limit: 6 });
    expect(blockedOf(seventh).resetAt).toEqual(new Date('2026-11-30T00:00:00Z'));
    expect(rateLimitDetails(blockedOf(seventh))).toMatchObject({ window: 'deep_week', tier: 'free', current: 6, limit: 6 });

    // The refused deep scan did not use up one of today's 20 scans.
    const todays = bucketsOf(fast, clock.now()).filter((b) => b.window === 'day');
    expect([...(await store.peek(todays, clock.now())).values()]).toEqual([0]);
    expect((await submit(store, fast, clock.now())).allowed).toBe(true);

    clock.set('2026-11-29T23:59:59.500Z');
    expect(blockedOf(await submit(store, deep, clock.now())).retryAfterSeconds).toBe(1);
    clock.set('2026-11-30T00:00:00Z');
    expect(await submit(store, deep, clock.now())).toMatchObject({ allowed: true });
  });
});

describe('per key and per user', () => {
  it('makes all keys of a user and the web UI share one budget', async () => {
    const store = new MemoryQuotaStore();
    const clock = new TestClock('2026-11-02T00:00:00Z');
    const via = (keyId?: string) => scan('dev', keyId ? { userId: 'u-dev', keyId } : { userId: 'u-dev' }, 'deep');
    // 20 deep scans per month for the user: 8 through k1, 8 through k2, 4 from the web UI.
    const sources = [...Array<string>(8).fill('k1'), ...Array<string>(8).fill('k2'), ...Array<undefined>(4).fill(undefined)];
    for (const keyId of sources) {
      expect((await submit(store, via(keyId), clock.now())).allowed).toBe(true);
      clock.advance(10 * MINUTE);
    }
    // A brand-new key does not bring a fresh budget.
    const viaNewKey = await submit(store, via('k3'), clock.now());
    expect(blockedOf(viaNewKey)).toMatchObject({ subject: 'user', quota: 'deep', window: 'month', current: 20, limit: 20 });
    expect(blockedOf(viaNewKey).resetAt).toEqual(new Date('2026-12-01T00:00:00Z'));

    const deepMonth = (keyId?: string) => bucketsOf(via(keyId), clock.now()).filter((b) => b.quota === 'deep');
    const counts = await store.peek([...deepMonth('k1'), ...deepMonth('k2'), ...deepMonth('k3')], clock.now());
    expect([...counts.entries()].sort()).toEqual([
      ['key:k1/deep/month:2026-11', 8],
      ['key:k2/deep/month:2026-11', 8],
      ['key:k3/deep/month:2026-11', 0],
      ['user:u-dev/deep/month:2026-11', 20],
    ]);
    // Fast public scans still have their own room.
    expect((await submit(store, scan('dev', { userId: 'u-dev', keyId: 'k3' }), clock.now())).allowed).toBe(true);
  });

  it('blocks a burst across two keys of one user at the user minute cap', async () => {
    const store = new MemoryQuotaStore();
    const now = new Date('2026-11-23T10:00:00Z');
    const results: boolean[] = [];
    for (let i = 0; i < 12; i++) {
      results.push((await submit(store, scan('dev', { userId: 'u', keyId: i % 2 ? 'a' : 'b' }), now)).allowed);
    }
    expect(results.filter(Boolean)).toHaveLength(10);
    expect(results.slice(10)).toEqual([false, false]);
  });
});

describe('edge rule', () => {
  it('allows 8000 requests per Authorization value per 5 minutes and blocks the 8001st', async () => {
    const store = new MemoryQuotaStore();
    const clock = new TestClock('2026-11-23T10:15:00Z');
    const request: ApiRequest = { kind: 'request', authorization: 'Bearer svc_one', userId: 'u1', tier: 'team' };
    let last: QuotaDecision | undefined;
    for (let i = 0; i < 8000; i++) {
      last = await submit(store, request, clock.now());
      if (!last.allowed) throw new Error(`request ${i + 1} was blocked`);
      if (i % 100 === 99) clock.advance(2_000); // 8000 requests spread over 160 s
    }
    expect(last).toMatchObject({ allowed: true, tightest: { limit: 8000, remaining: 0 } });
    expect(clock.now()).toEqual(new Date('2026-11-23T10:17:40Z'));

    const over = blockedOf(await submit(store, request, clock.now()));
    expect(over).toMatchObject({ window: 'five_minutes', quota: 'requests', tier: 'team', current: 8000, limit: 8000, retryAfterSeconds: 140 });
    expect(rateLimitDetails(over)).toEqual({ window: 'edge', tier: 'team', current: 8000, limit: 8000, retry_after_seconds: 140 });

    // Another key of the same user is held back by the per-user cap of the same size…
    const sameUser = blockedOf(await submit(store, { ...request, authorization: 'Bearer svc_two' }, clock.now()));
    expect(sameUser).toMatchObject({ subject: 'user', current: 8000 });
    expect(rateLimitDetails(sameUser).window).toBe('user_requests');
    expect(rateLimitDetails({ ...sameUser, subject: 'ip' }).window).toBe('ip_requests');
    // …but another user is not.
    expect((await submit(store, { kind: 'request', authorization: 'Bearer svc_three', userId: 'u2' }, clock.now())).allowed).toBe(true);

    clock.set('2026-11-23T10:20:00Z');
    expect(await submit(store, request, clock.now())).toMatchObject({ allowed: true, tightest: { remaining: 7999 } });
  });

  it('counts an invalid credential by its Authorization value alone', async () => {
    const store = new MemoryQuotaStore();
    const now = new Date('2026-11-23T10:15:00Z');
    const buckets = bucketsOf({ kind: 'request', authorization: 'Bearer guess' }, now).map((b) => ({ ...b, limit: 2 }));
    expect((await store.consume(buckets, now)).allowed).toBe(true);
    expect((await store.consume(buckets, now)).allowed).toBe(true);
    const third = blockedOf(await store.consume(buckets, now));
    expect(third).toMatchObject({ subject: 'authorization', tier: 'anonymous' });
    expect(rateLimitDetails(third)).toEqual({ window: 'edge', tier: 'anonymous', current: 2, limit: 2, retry_after_seconds: 300 });
  });
});

describe('all or nothing', () => {
  // A small seeded generator keeps failures reproducible.
  function random(seed: number): () => number {
    let state = seed >>> 0;
    return () => {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  // Key ids are globally unique, so a key belongs to one user.
  const userSubjects = (userId: string, key: string | undefined) => (key ? { userId, keyId: `${userId}-${key}` } : { userId });

  it('matches a naive model over many random request sequences', async () => {
    const tiers: Tier[] = ['anonymous', 'free', 'dev', 'team', 'business'];
    let blockedSeen = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const rand = random(seed);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
      const store = new MemoryQuotaStore();
      // Naive model: a bucket's count is the number of earlier allowed requests that named its id.
      const accepted: string[][] = [];
      const limits = new Map<string, number>();
      const naiveCount = (id: string) => accepted.filter((ids) => ids.includes(id)).length;
      // Small limits so every bucket kind fills up within a sequence.
      const shrink = (b: BucketRequest): BucketRequest => ({ ...b, limit: Math.max(1, Math.ceil(b.limit / 40)) });
      let ms = Date.parse('2026-12-27T22:00:00Z') + Math.floor(rand() * DAY);

      for (let step = 0; step < 300; step++) {
        ms += pick([0, 0, 1_000, 20_000, 10 * MINUTE, 6 * 3_600_000, DAY]);
        const now = new Date(ms);
        const tier = pick(tiers);
        const request: ScanSubmitRequest | ApiRequest =
          rand() < 0.2
            ? { kind: 'request', authorization: pick(['Bearer a', 'Bearer b']), userId: pick(['u1', 'u2']) }
            : {
                kind: 'scan-submit',
                tier,
                mode: pick(['fast', 'deep'] as const),
                visibility: pick(['public', 'private'] as const),
                // A user keeps one tier, so a bucket id always carries one limit.
                subjects:
                  tier === 'anonymous'
                    ? { ip: pick(['10.0.0.1', '10.0.0.2']) }
                    : userSubjects(`${tier}-${pick(['u1', 'u2'])}`, pick(['k1', 'k2', undefined])),
              };
        const plan = bucketsFor(request, now);
        if (!plan.ok) continue;
        const buckets = plan.buckets.map(shrink);
        for (const b of buckets) limits.set(b.id, b.limit);

        const expectAllowed = buckets.every((b) => naiveCount(b.id) < b.limit);
        const before = await store.peek(buckets, now);
        const decision = await store.consume(buckets, now);
        expect(decision.allowed, `seed ${seed} step ${step}`).toBe(expectAllowed);
        const after = await store.peek(buckets, now);
        if (decision.allowed) {
          accepted.push(buckets.map((b) => b.id));
          for (const b of buckets) expect(after.get(b.id)).toBe((before.get(b.id) ?? 0) + 1);
        } else {
          blockedSeen++;
          expect(after).toEqual(before);
          const { blocked } = decision;
          expect(blocked.current).toBeGreaterThanOrEqual(blocked.limit);
        }
      }
      // Every counter still held equals the model and stays within its limit.
      const all = [...limits.keys()];
      const stored = await store.peek(all.map((id) => ({ id }) as BucketRequest), new Date(ms));
      for (const id of all) {
        const count = stored.get(id) ?? 0;
        expect(count).toBeLessThanOrEqual(limits.get(id) ?? 0);
        // Pruned counters (window over) read 0; live ones must match the model.
        if (count > 0) expect(count, id).toBe(naiveCount(id));
      }
    }
    expect(blockedSeen).toBeGreaterThan(100);
  });
});

describe('MemoryQuotaStore', () => {
  it('never lets concurrent consume() calls exceed a limit', async () => {
    const store = new MemoryQuotaStore();
    const now = new Date('2026-11-23T10:15:00Z');
    const requests = Array.from({ length: 200 }, (_, i) =>
      submit(store, scan('business', { userId: 'u-busy', keyId: `k${i % 7}` }), now),
    );
    const decisions = await Promise.all(requests);
    expect(decisions.filter((d) => d.allowed)).toHaveLength(30);
    const counts = await store.peek(bucketsOf(scan('business', { userId: 'u-busy' }), now), now);
    expect(Math.max(...counts.values())).toBe(30);
  });

  it('drops counters of ended windows', async () => {
    const store = new MemoryQuotaStore();
    const start = new Date('2026-11-23T10:15:00Z');
    await submit(store, scan('anonymous', { ip: '192.0.2.1' }), start);
    expect(store.size).toBe(2);
    store.prune(new Date('2026-11-23T10:16:00Z'));
    expect(store.size).toBe(1); // the minute is over, the day is not
    store.prune(new Date('2026-11-24T00:00:00Z'));
    expect(store.size).toBe(0);
  });

  it('counts a bucket named twice in one request once', async () => {
    const store = new MemoryQuotaStore();
    const now = new Date('2026-11-23T10:15:00Z');
    const [bucket] = bucketsOf(scan('anonymous', { ip: '192.0.2.1' }), now);
    if (!bucket) throw new Error('no bucket');
    await store.consume([bucket, bucket], now);
    expect((await store.peek([bucket], now)).get(bucket.id)).toBe(1);
  });
});

describe('decideQuota', () => {
  const now = new Date('2026-11-23T10:15:00.400Z');
  const bucket = (id: string, limit: number, resetIso: string): BucketRequest => ({
    id,
    limit,
    window: 'minute',
    resetAt: new Date(resetIso),
    quota: 'scans',
    subject: 'user',
    tier: 'dev',
  });

  it('picks the bucket with the least room, then the earliest reset', () => {
    const buckets = [bucket('a', 10, '2026-11-23T10:16:00Z'), bucket('b', 5, '2026-11-24T00:00:00Z'), bucket('c', 3, '2026-11-23T10:20:00Z')];
    const counts = new Map([['a', 7], ['b', 2], ['c', 0]]);
    // After counting: a has 2 left (reset 10:16), b 2 (tomorrow), c 2 (10:20).
    expect(decideQuota(buckets, counts, now)).toEqual({ allowed: true, tightest: { limit: 10, remaining: 2, resetAt: new Date('2026-11-23T10:16:00Z') } });
    expect(decideQuota([], new Map(), now)).toEqual({ allowed: true, tightest: null });
    expect(rateLimitHeaders({ allowed: true, tightest: null })).toEqual({});
  });

  it('reports the full bucket that resets last, with a whole-second wait of at least 1', () => {
    const buckets = [bucket('minute', 3, '2026-11-23T10:16:00Z'), bucket('day', 10, '2026-11-24T00:00:00Z'), bucket('free', 9, '2026-12-01T00:00:00Z')];
    const both = decideQuota(buckets, new Map([['minute', 3], ['day', 10]]), now);
    expect(blockedOf(both)).toMatchObject({ limit: 10, current: 10, retryAfterSeconds: Math.ceil((Date.parse('2026-11-24T00:00:00Z') - now.getTime()) / 1000) });
    const minuteOnly = blockedOf(decideQuota(buckets, new Map([['minute', 5]]), now));
    expect(minuteOnly).toMatchObject({ current: 5, retryAfterSeconds: 60 }); // 59.6 s rounds up
    const almost = blockedOf(decideQuota(buckets, new Map([['minute', 3]]), new Date('2026-11-23T10:15:59.999Z')));
    expect(almost.retryAfterSeconds).toBe(1);
  });

  it('merges standings from separate consumes', () => {
    const a = { limit: 8000, remaining: 10, resetAt: new Date('2026-11-23T10:20:00Z') };
    const b = { limit: 10, remaining: 9, resetAt: new Date('2026-11-23T10:16:00Z') };
    expect(tighterStanding(a, b)).toBe(b);
    expect(tighterStanding(null, a)).toBe(a);
    expect(tighterStanding(a, null)).toBe(a);
  });
});

describe('the worked example of docs/quotas.md', () => {
  it('comes out as the page says', async () => {
    const store = new MemoryQuotaStore();
    const deep = scan('dev', { userId: 'u_42', keyId: 'key_7' }, 'deep');
    for (let i = 0; i < 19; i++) {
      const now = new Date(Date.parse('2026-11-02T09:00:00Z') + i * (DAY / 2));
      expect((await submit(store, deep, now)).allowed).toBe(true);
    }
    const twentieth = await submit(store, deep, new Date('2026-11-23T10:15:20Z'));
    expect(rateLimitHeaders(twentieth)).toEqual({ 'X-RateLimit-Limit': '20', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '1796083200' });

    const refused = await submit(store, deep, new Date('2026-11-23T10:17:00Z'));
    expect(rateLimitHeaders(refused)['Retry-After']).toBe('654180');
    const error = rateLimitError(blockedOf(refused));
    expect(error.details).toEqual({ window: 'deep_month', tier: 'dev', current: 20, limit: 20, retry_after_seconds: 654180 });
    expect(error.message).toBe('Rate limit reached (deep_month: 20 of 20); retry in 654180 seconds.');

    expect((await submit(store, scan('dev', { userId: 'u_42', keyId: 'key_7' }), new Date('2026-11-23T10:17:00Z'))).allowed).toBe(true);
    expect(blockedOf(await submit(store, scan('dev', { userId: 'u_42', keyId: 'key_8' }, 'deep'), new Date('2026-11-23T10:17:00Z')))).toMatchObject({
      subject: 'user',
      quota: 'deep',
    });
  });
});
