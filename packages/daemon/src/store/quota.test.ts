import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BucketRequest } from '@svc/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type SqliteDatabase } from './database.js';
import { SqliteQuotaStore } from './quota.js';

let dir: string;
let db: SqliteDatabase;
const now = new Date('2026-11-23T10:00:30Z');

function bucket(id: string, limit: number, resetAt = new Date('2026-11-23T10:01:00Z')): BucketRequest {
  return { id, limit, window: 'minute', resetAt, quota: 'scans', subject: 'user', tier: 'free' };
}

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'svcd-quota-'));
  db = openDatabase(path.join(dir, 'svc.db'));
  migrate(db);
});
afterEach(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

describe('SqliteQuotaStore', () => {
  it('counts, blocks at the limit and increments all buckets or none', async () => {
    const store = new SqliteQuotaStore(db);
    const small = bucket('u/minute', 2);
    const large = bucket('u/day', 100, new Date('2026-11-24T00:00:00Z'));
    expect((await store.consume([small, large], now)).allowed).toBe(true);
    expect((await store.consume([small, large], now)).allowed).toBe(true);
    const third = await store.consume([small, large], now);
    expect(third).toMatchObject({ allowed: false, blocked: { current: 2, limit: 2, retryAfterSeconds: 30 } });
    // the refused request did not count in the bucket that had room
    expect(await store.peek([small, large], now)).toEqual(new Map([['u/minute', 2], ['u/day', 2]]));
  });

  it('starts a fresh count once the window has ended, and prunes ended windows', async () => {
    const store = new SqliteQuotaStore(db);
    await store.consume([bucket('u/minute', 1)], now);
    expect((await store.consume([bucket('u/minute', 1)], now)).allowed).toBe(false);
    const later = new Date('2026-11-23T10:01:05Z');
    const next = bucket('u/minute', 1, new Date('2026-11-23T10:02:00Z'));
    expect((await store.consume([next], later)).allowed).toBe(true);
    expect(db.prepare<[], { count: number; reset_at: string }>('SELECT count, reset_at FROM quota_counters').get()).toEqual({ count: 1, reset_at: '2026-11-23T10:02:00.000Z' });
    expect(store.prune(new Date('2026-11-23T10:03:00Z'))).toBe(1);
  });

  it('keeps counts across reopening the database', async () => {
    await new SqliteQuotaStore(db).consume([bucket('u/minute', 1)], now);
    db.close();
    db = openDatabase(path.join(dir, 'svc.db'));
    expect((await new SqliteQuotaStore(db).consume([bucket('u/minute', 1)], now)).allowed).toBe(false);
  });
});
