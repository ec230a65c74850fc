// Calendar windows in UTC. Every function takes `now` so the caller's clock
// (a test clock, the daemon's request time) decides; nothing reads Date.now().
//
// Windows are fixed, not sliding: a request belongs to exactly one window of
// each kind, named by a stable key, and the counter for that key resets to
// zero at the window's end. That makes a bucket one counter row keyed by
// (subject, quota, window key), so the daemon's "check all, increment all or
// none" is a single SQLite transaction with no per-request log to trim.
//
// The edge rule's "8000 requests per 5 minutes" uses fixed 5-minute buckets
// aligned to the Unix epoch (…:00, …:05, …:10 UTC). A sliding log would be
// exact but costs one row per request (8000 per credential); fixed buckets
// admit at most twice the limit across one boundary, which is fine for a
// rule whose purpose is to stop runaway clients, not to meter them.

export const WINDOW_KINDS = ['minute', 'five_minutes', 'hour', 'day', 'week', 'month'] as const;
export type WindowKind = (typeof WINDOW_KINDS)[number];

const MINUTE_MS = 60_000;
const FIVE_MINUTES_MS = 5 * MINUTE_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** The instant the window containing `now` began (inclusive). */
export function windowStart(kind: WindowKind, now: Date): Date {
  const ms = now.getTime();
  switch (kind) {
    case 'minute':
      return new Date(floorTo(ms, MINUTE_MS));
    case 'five_minutes':
      return new Date(floorTo(ms, FIVE_MINUTES_MS));
    case 'hour':
      return new Date(floorTo(ms, HOUR_MS));
    case 'day':
      return new Date(floorTo(ms, DAY_MS));
    case 'week': {
      const dayStart = floorTo(ms, DAY_MS);
      return new Date(dayStart - isoWeekdayIndex(now) * DAY_MS);
    }
    case 'month':
      return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  }
}

/** The instant the window containing `now` ends and its counters start again from zero. */
export function windowReset(kind: WindowKind, now: Date): Date {
  const start = windowStart(kind, now);
  switch (kind) {
    case 'minute':
      return new Date(start.getTime() + MINUTE_MS);
    case 'five_minutes':
      return new Date(start.getTime() + FIVE_MINUTES_MS);
    case 'hour':
      return new Date(start.getTime() + HOUR_MS);
    case 'day':
      return new Date(start.getTime() + DAY_MS);
    case 'week':
      return new Date(start.getTime() + 7 * DAY_MS);
    case 'month':
      // Date.UTC rolls month 12 over into January of the next year.
      return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
  }
}

/**
 * A stable id for the window containing `now`, e.g. `minute:2026-11-23T04:55`,
 * `five_minutes:2026-11-23T04:55`, `hour:2026-11-23T04`, `day:2026-11-23`, `week:2026-W48`,
 * `month:2026-11`. Two instants share a key exactly when they share the window.
 */
export function windowKey(kind: WindowKind, now: Date): string {
  const start = windowStart(kind, now);
  const date = start.toISOString();
  switch (kind) {
    case 'minute':
    case 'five_minutes':
      return `${kind}:${date.slice(0, 16)}`;
    case 'hour':
      return `hour:${date.slice(0, 13)}`;
    case 'day':
      return `day:${date.slice(0, 10)}`;
    case 'week': {
      const { year, week } = isoWeek(now);
      return `week:${year}-W${String(week).padStart(2, '0')}`;
    }
    case 'month':
      return `month:${date.slice(0, 7)}`;
  }
}

/**
 * ISO 8601 week-numbering year and week of `now` (UTC). Weeks start on
 * Monday; week 1 is the week holding the year's first Thursday, so the
 * days around New Year can belong to the neighbouring year's week.
 */
export function isoWeek(now: Date): { year: number; week: number } {
  const dayStart = floorTo(now.getTime(), DAY_MS);
  // The Thursday of this ISO week decides which year the week belongs to.
  const thursday = new Date(dayStart + (3 - isoWeekdayIndex(now)) * DAY_MS);
  const year = thursday.getUTCFullYear();
  const firstOfYear = Date.UTC(year, 0, 1);
  const week = Math.floor((thursday.getTime() - firstOfYear) / DAY_MS / 7) + 1;
  return { year, week };
}

/** Monday = 0 … Sunday = 6. */
function isoWeekdayIndex(now: Date): number {
  return (now.getUTCDay() + 6) % 7;
}

function floorTo(ms: number, unit: number): number {
  return Math.floor(ms / unit) * unit;
}
