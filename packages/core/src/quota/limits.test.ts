import { describe, expect, it } from 'vitest';
import { bucketsFor, REQUEST_LIMIT, SCAN_LIMITS, type BucketRequest, type ScanSubmitRequest } from './limits.js';

const now = new Date('2026-11-23T10:15:00Z');

function plan(request: Omit<ScanSubmitRequest, 'kind'>): BucketRequest[] {
  const result = bucketsFor({ kind: 'scan-submit', ...request }, now);
  if (!result.ok) throw new Error(`refused: ${result.refusal.message}`);
  return result.buckets;
}

/** `subject quota window limit`, one per bucket, sorted: easy to read in a failing diff. */
function summary(buckets: BucketRequest[]): string[] {
  return buckets.map((b) => `${b.subject} ${b.quota} ${b.window} ${b.limit}`).sort();
}

describe('SCAN_LIMITS', () => {
  it('holds the numbers of spec 8.1, 8.2 and DESIGN.md', () => {
    expect(SCAN_LIMITS).toEqual({
      anonymous: { burstPerMinute: 3, scans: { day: 10 }, deep: null, private: null },
      free: { burstPerMinute: 5, scans: { day: 20 }, deep: { week: 6 }, private: null },
      dev: {
        burstPerMinute: 10,
        scans: { day: 50, week: 100, month: 200 },
        deep: { month: 20 },
        private: { scans: { month: 70 }, deep: { month: 20 } },
      },
      team: {
        burstPerMinute: 20,
        scans: { day: 500, week: 1000, month: 2000 },
        deep: { month: 60 },
        private: { scans: { month: 700 }, deep: { month: 40 } },
      },
      business: {
        burstPerMinute: 30,
        scans: { day: 5000, week: 10000, month: 20000 },
        deep: { month: 180 },
        private: { scans: { month: 4000 }, deep: { month: 120 } },
      },
    });
    expect(REQUEST_LIMIT).toEqual({ limit: 8000, window: 'five_minutes' });
  });
});

describe('bucketsFor scan submissions', () => {
  it('limits anonymous callers per IP: 3 per minute, 10 per day', () => {
    const buckets = plan({ tier: 'anonymous', mode: 'fast', visibility: 'public', subjects: { ip: '2001:db8::1' } });
    expect(summary(buckets)).toEqual(['ip scans day 10', 'ip scans minute 3']);
    expect(buckets.map((b) => b.id).sort()).toEqual([
      'ip:2001%3Adb8%3A%3A1/scans/day:2026-11-23',
      'ip:2001%3Adb8%3A%3A1/scans/minute:2026-11-23T10:15',
    ]);
    expect(buckets.every((b) => b.tier === 'anonymous')).toBe(true);
  });

  it('refuses anonymous deep scans with 401, private scans without a paid plan with 402', () => {
    const anonymousDeep = bucketsFor({ kind: 'scan-submit', tier: 'anonymous', mode: 'deep', visibility: 'public', subjects: { ip: '1.2.3.4' } }, now);
    expect(anonymousDeep).toMatchObject({ ok: false, refusal: { code: 'UNAUTHORIZED' } });
    const anonymousPrivate = bucketsFor({ kind: 'scan-submit', tier: 'anonymous', mode: 'fast', visibility: 'private', subjects: { ip: '1.2.3.4' } }, now);
    expect(anonymousPrivate).toMatchObject({ ok: false, refusal: { code: 'SUBSCRIPTION_REQUIRED' } });
    for (const mode of ['fast', 'deep'] as const) {
      const freePrivate = bucketsFor({ kind: 'scan-submit', tier: 'free', mode, visibility: 'private', subjects: { userId: 'u1' } }, now);
      expect(freePrivate).toMatchObject({ ok: false, refusal: { code: 'SUBSCRIPTION_REQUIRED' } });
    }
  });

  it('gives the free tier 20 per day, 5 per minute and 6 deep per week', () => {
    expect(summary(plan({ tier: 'free', mode: 'fast', visibility: 'public', subjects: { userId: 'u1' } }))).toEqual([
      'user scans day 20',
      'user scans minute 5',
    ]);
    const deep = plan({ tier: 'free', mode: 'deep', visibility: 'public', subjects: { userId: 'u1' } });
    expect(summary(deep)).toEqual(['user deep week 6', 'user scans day 20', 'user scans minute 5']);
    const deepWeek = deep.find((b) => b.quota === 'deep');
    expect(deepWeek?.id).toBe('user:u1/deep/week:2026-W48');
    expect(deepWeek?.resetAt).toEqual(new Date('2026-11-30T00:00:00Z'));
  });

  it('counts a public deep scan in the general and the deep buckets', () => {
    expect(summary(plan({ tier: 'dev', mode: 'deep', visibility: 'public', subjects: { userId: 'u1' } }))).toEqual([
      'user deep month 20',
      'user scans day 50',
      'user scans minute 10',
      'user scans month 200',
      'user scans week 100',
    ]);
  });

  it('counts private scans in the private budget and the minute burst only', () => {
    expect(summary(plan({ tier: 'team', mode: 'fast', visibility: 'private', subjects: { userId: 'u1' } }))).toEqual([
      'user private month 700',
      'user scans minute 20',
    ]);
    expect(summary(plan({ tier: 'business', mode: 'deep', visibility: 'private', subjects: { userId: 'u1' } }))).toEqual([
      'user private month 4000',
      'user private_deep month 120',
      'user scans minute 30',
    ]);
  });

  it('gives a key the same buckets and numbers as its user', () => {
    const buckets = plan({ tier: 'dev', mode: 'deep', visibility: 'public', subjects: { userId: 'u1', keyId: 'k1' } });
    const forUser = buckets.filter((b) => b.subject === 'user').map(({ id: _id, subject: _s, ...rest }) => rest);
    const forKey = buckets.filter((b) => b.subject === 'key').map(({ id: _id, subject: _s, ...rest }) => rest);
    expect(forKey).toHaveLength(5);
    expect(forKey).toEqual(forUser);
    expect(new Set(buckets.map((b) => b.id)).size).toBe(buckets.length);
  });

  it('insists on the subject that the tier is counted by', () => {
    expect(() => bucketsFor({ kind: 'scan-submit', tier: 'anonymous', mode: 'fast', visibility: 'public', subjects: {} }, now)).toThrow(/ip/);
    expect(() => bucketsFor({ kind: 'scan-submit', tier: 'dev', mode: 'fast', visibility: 'public', subjects: { keyId: 'k' } }, now)).toThrow(/userId/);
  });
});

describe('bucketsFor requests', () => {
  it('limits each Authorization value and each user to 8000 per 5 minutes, without storing the credential', () => {
    const result = bucketsFor({ kind: 'request', authorization: 'Bearer svc_secretvalue', userId: 'u1', tier: 'team' }, now);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(summary(result.buckets)).toEqual(['authorization requests five_minutes 8000', 'user requests five_minutes 8000']);
    const ids = result.buckets.map((b) => b.id);
    expect(ids.join(' ')).not.toContain('secretvalue');
    expect(ids).toContain('user:u1/requests/five_minutes:2026-11-23T10:15');
    expect(result.buckets[0]?.resetAt).toEqual(new Date('2026-11-23T10:20:00Z'));
  });

  it('touches no bucket for a request without credentials', () => {
    expect(bucketsFor({ kind: 'request' }, now)).toEqual({ ok: true, buckets: [] });
  });

  it('counts a caller without a credential by its address, with the same cap', () => {
    const result = bucketsFor({ kind: 'request', ip: '2001:db8::1' }, now);
    expect(result.ok && summary(result.buckets)).toEqual(['ip requests five_minutes 8000']);
    expect(result.ok && result.buckets[0]?.id).toBe('ip:2001%3Adb8%3A%3A1/requests/five_minutes:2026-11-23T10:15');
  });

  it('keeps different Authorization values apart', () => {
    const ids = ['Bearer a', 'Bearer b'].map((authorization) => {
      const result = bucketsFor({ kind: 'request', authorization }, now);
      return result.ok ? result.buckets[0]?.id : undefined;
    });
    expect(ids[0]).toBeDefined();
    expect(ids[0]).not.toBe(ids[1]);
  });
});
