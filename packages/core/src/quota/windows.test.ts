import { describe, expect, it } from 'vitest';
import { isoWeek, WINDOW_KINDS, windowKey, windowReset, windowStart } from './windows.js';

const at = (iso: string) => new Date(iso);

describe('windowKey', () => {
  it('names each kind of window', () => {
    const now = at('2026-11-23T04:57:31.250Z');
    expect(windowKey('minute', now)).toBe('minute:2026-11-23T04:57');
    expect(windowKey('five_minutes', now)).toBe('five_minutes:2026-11-23T04:55');
    expect(windowKey('hour', now)).toBe('hour:2026-11-23T04');
    expect(windowKey('day', now)).toBe('day:2026-11-23');
    expect(windowKey('week', now)).toBe('week:2026-W48');
    expect(windowKey('month', now)).toBe('month:2026-11');
  });

  it('separates the last millisecond of a month from the first of the next', () => {
    const last = at('2026-11-30T23:59:59.999Z');
    const first = at('2026-12-01T00:00:00.000Z');
    for (const kind of WINDOW_KINDS.filter((k) => k !== 'week')) {
      expect(windowKey(kind, last)).not.toBe(windowKey(kind, first));
    }
    expect(windowKey('month', last)).toBe('month:2026-11');
    expect(windowKey('month', first)).toBe('month:2026-12');
    expect(windowReset('month', last)).toEqual(first);
    // 2026-11-30 is a Monday, so both instants are in week 49.
    expect(windowKey('week', last)).toBe('week:2026-W49');
    expect(windowKey('week', first)).toBe('week:2026-W49');
  });

  it('rolls December over into January of the next year', () => {
    const now = at('2026-12-31T23:59:59.999Z');
    expect(windowReset('month', now)).toEqual(at('2027-01-01T00:00:00.000Z'));
    expect(windowReset('day', now)).toEqual(at('2027-01-01T00:00:00.000Z'));
    expect(windowKey('month', now)).toBe('month:2026-12');
  });

  it('counts a leap day as its own day inside February', () => {
    const leap = at('2028-02-29T12:00:00Z');
    expect(windowKey('day', leap)).toBe('day:2028-02-29');
    expect(windowReset('day', leap)).toEqual(at('2028-03-01T00:00:00Z'));
    expect(windowKey('month', leap)).toBe('month:2028-02');
    expect(windowReset('month', at('2028-02-01T00:00:00Z'))).toEqual(at('2028-03-01T00:00:00Z'));
    expect(windowReset('month', at('2027-02-10T00:00:00Z'))).toEqual(at('2027-03-01T00:00:00Z'));
  });

  it('ignores daylight saving time: UTC days are always 24 hours', () => {
    // Europe and the US change clocks on these dates; UTC does not.
    for (const iso of ['2026-03-29T00:30:00Z', '2026-10-25T00:30:00Z', '2026-03-08T06:30:00Z', '2026-11-01T05:30:00Z']) {
      const now = at(iso);
      expect(windowReset('day', now).getTime() - windowStart('day', now).getTime()).toBe(86_400_000);
    }
  });
});

describe('ISO weeks', () => {
  it('begins weeks on Monday 00:00 UTC', () => {
    // Sunday 23:59:59.999 and Monday 00:00 are in different weeks.
    const sunday = at('2026-11-29T23:59:59.999Z');
    const monday = at('2026-11-30T00:00:00.000Z');
    expect(windowKey('week', sunday)).toBe('week:2026-W48');
    expect(windowKey('week', monday)).toBe('week:2026-W49');
    expect(windowStart('week', sunday)).toEqual(at('2026-11-23T00:00:00Z'));
    expect(windowReset('week', sunday)).toEqual(monday);
    expect(windowStart('week', monday)).toEqual(monday);
  });

  it('gives 2026, which starts on a Thursday, a week 53 that runs into 2027', () => {
    expect(isoWeek(at('2026-01-01T00:00:00Z'))).toEqual({ year: 2026, week: 1 });
    expect(isoWeek(at('2026-12-31T12:00:00Z'))).toEqual({ year: 2026, week: 53 });
    expect(isoWeek(at('2027-01-01T00:00:00Z'))).toEqual({ year: 2026, week: 53 });
    expect(isoWeek(at('2027-01-03T23:59:59.999Z'))).toEqual({ year: 2026, week: 53 });
    expect(isoWeek(at('2027-01-04T00:00:00Z'))).toEqual({ year: 2027, week: 1 });
    expect(windowKey('week', at('2027-01-01T00:00:00Z'))).toBe('week:2026-W53');
    expect(windowReset('week', at('2026-12-31T00:00:00Z'))).toEqual(at('2027-01-04T00:00:00Z'));
  });

  it('puts late-December days into week 1 of the next year when the Thursday is in January', () => {
    // 2024-12-30 is a Monday; that week's Thursday is 2025-01-02.
    expect(isoWeek(at('2024-12-29T23:59:59Z'))).toEqual({ year: 2024, week: 52 });
    expect(isoWeek(at('2024-12-30T00:00:00Z'))).toEqual({ year: 2025, week: 1 });
    // 2027 has 52 weeks: 2027-12-31 is a Friday in 2027-W52.
    expect(isoWeek(at('2027-12-31T00:00:00Z'))).toEqual({ year: 2027, week: 52 });
    // 2028 is a leap year that starts on Saturday: Jan 1-2 belong to 2027-W52.
    expect(isoWeek(at('2028-01-02T00:00:00Z'))).toEqual({ year: 2027, week: 52 });
    expect(isoWeek(at('2028-02-29T00:00:00Z'))).toEqual({ year: 2028, week: 9 });
  });

  it('matches a day-by-day count over several years', () => {
    // Independent check: walk Mondays from a known week-1 Monday and count.
    let monday = Date.UTC(2024, 0, 1); // 2024-W01 starts Monday 2024-01-01
    let expected = { year: 2024, week: 1 };
    const weekMs = 7 * 86_400_000;
    while (monday < Date.UTC(2031, 0, 1)) {
      for (let day = 0; day < 7; day++) {
        expect(isoWeek(new Date(monday + day * 86_400_000 + 43_200_000))).toEqual(expected);
      }
      monday += weekMs;
      // A new ISO year begins on the Monday whose week's Thursday is in a new calendar year.
      const thursdayYear = new Date(monday + 3 * 86_400_000).getUTCFullYear();
      expected = thursdayYear !== expected.year ? { year: thursdayYear, week: 1 } : { year: expected.year, week: expected.week + 1 };
    }
  });
});

describe('hour windows', () => {
  it('are UTC clock hours', () => {
    expect(windowStart('hour', at('2026-11-23T04:59:59.999Z'))).toEqual(at('2026-11-23T04:00:00Z'));
    expect(windowReset('hour', at('2026-11-23T04:59:59.999Z'))).toEqual(at('2026-11-23T05:00:00Z'));
    expect(windowKey('hour', at('2026-11-23T05:00:00Z'))).toBe('hour:2026-11-23T05');
    // The last hour of a day rolls over into the next day.
    expect(windowReset('hour', at('2026-12-31T23:30:00Z'))).toEqual(at('2027-01-01T00:00:00Z'));
  });
});

describe('five-minute windows', () => {
  it('align to the epoch', () => {
    expect(windowStart('five_minutes', at('2026-11-23T04:59:59.999Z'))).toEqual(at('2026-11-23T04:55:00Z'));
    expect(windowReset('five_minutes', at('2026-11-23T04:59:59.999Z'))).toEqual(at('2026-11-23T05:00:00Z'));
    expect(windowKey('five_minutes', at('2026-11-23T05:00:00Z'))).toBe('five_minutes:2026-11-23T05:00');
  });

  it('every window contains its start and excludes its reset', () => {
    const now = at('2026-11-23T04:57:31.250Z');
    for (const kind of WINDOW_KINDS) {
      const start = windowStart(kind, now);
      const reset = windowReset(kind, now);
      expect(windowKey(kind, start)).toBe(windowKey(kind, now));
      expect(windowKey(kind, new Date(reset.getTime() - 1))).toBe(windowKey(kind, now));
      expect(windowKey(kind, reset)).not.toBe(windowKey(kind, now));
    }
  });
});
