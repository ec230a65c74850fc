import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hashSecret, ServiceError } from '@svc/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate, openDatabase, schemaVersion, type SqliteDatabase } from './database.js';
import { MIGRATIONS } from './migrations/index.js';
import { sqliteRepositories } from './sqlite.js';

let dir: string;
let file: string;
let db: SqliteDatabase;
const now = new Date('2026-11-23T10:00:00Z');

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'svcd-store-'));
  file = path.join(dir, 'svc.db');
  db = openDatabase(file);
  migrate(db);
});

afterEach(async () => {
  if (db.open) db.close();
  await rm(dir, { recursive: true, force: true });
});

describe('openDatabase and migrate', () => {
  it('sets the pragmas', () => {
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    // NORMAL is 1
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
  });

  it('applies every migration once and is idempotent across reopenings', () => {
    expect(schemaVersion(db)).toBe(MIGRATIONS.length);
    expect(migrate(db)).toEqual([]);
    db.close();
    db = openDatabase(file);
    expect(migrate(db)).toEqual([]);
    const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all().map((row) => row.name);
    expect(tables).toEqual(expect.arrayContaining(['users', 'login_codes', 'api_keys', 'seen_networks', 'scans', 'quota_counters', 'outbox', 'schema_migrations']));
  });

  it('rolls back a failing migration as a whole', () => {
    const broken = [...MIGRATIONS, { version: 99, name: 'broken', sql: 'CREATE TABLE half (x INTEGER); SELECT * FROM no_such_table;' }];
    expect(() => migrate(db, broken)).toThrow(/no_such_table/);
    expect(schemaVersion(db)).toBe(MIGRATIONS.length);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'half'").get()).toBeUndefined();
  });

  it('enforces foreign keys', () => {
    const keys = sqliteRepositories(db).apiKeys;
    const record = {
      id: 'k1',
      userId: 'no-such-user',
      hash: 'h',
      prefix: 'svc_abcd',
      last4: 'wxyz',
      label: 'ci',
      scopes: [],
      ipAllowlist: [],
      expiresAt: now.toISOString(),
      createdAt: now.toISOString(),
    };
    return expect(keys.create(record)).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
  });
});

describe('UserRepository', () => {
  it('keeps emails unique after normalisation', async () => {
    const { users } = sqliteRepositories(db);
    const ada = await users.create({ email: ' Ada@Example.COM ', now });
    expect(ada.email).toBe('ada@example.com');
    expect(ada.tier).toBe('free');
    await expect(users.create({ email: 'ada@example.com', now })).rejects.toBeInstanceOf(ServiceError);
    await expect(users.create({ email: 'ADA@example.com', now })).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(() => db.prepare("INSERT INTO users (id, email, tier, created_at) VALUES ('x', 'ada@example.com', 'free', '')").run()).toThrow(/UNIQUE/);
    expect((await users.findOrCreate({ email: 'ADA@example.com', now })).id).toBe(ada.id);
    expect((await users.findByEmail('ada@EXAMPLE.com'))?.id).toBe(ada.id);
    expect(await users.findById(ada.id)).toEqual(ada);
  });

  it('sets tiers and refuses unknown ones', async () => {
    const { users } = sqliteRepositories(db);
    await users.create({ email: 'bo@example.com', now });
    expect((await users.setTier('bo@example.com', 'team'))?.tier).toBe('team');
    expect(await users.setTier('nobody@example.com', 'team')).toBeUndefined();
    expect(() => db.prepare("UPDATE users SET tier = 'platinum'").run()).toThrow(/CHECK/);
  });
});

describe('LoginCodeRepository', () => {
  const codeHash = hashSecret('123456');
  const wrongHash = hashSecret('654321');

  it('consumes a code once', async () => {
    const { loginCodes } = sqliteRepositories(db);
    await loginCodes.put({ email: 'a@example.com', codeHash, expiresAt: new Date(now.getTime() + 60_000), now });
    expect(await loginCodes.check({ email: 'A@example.com', codeHash, now, maxAttempts: 5 })).toBe('ok');
    expect(await loginCodes.check({ email: 'a@example.com', codeHash, now, maxAttempts: 5 })).toBe('invalid');
  });

  it('refuses an expired code', async () => {
    const { loginCodes } = sqliteRepositories(db);
    await loginCodes.put({ email: 'a@example.com', codeHash, expiresAt: now, now });
    expect(await loginCodes.check({ email: 'a@example.com', codeHash, now, maxAttempts: 5 })).toBe('invalid');
  });

  it('burns the code after the last allowed wrong attempt', async () => {
    const { loginCodes } = sqliteRepositories(db);
    await loginCodes.put({ email: 'a@example.com', codeHash, expiresAt: new Date(now.getTime() + 60_000), now });
    for (let i = 0; i < 4; i++) expect(await loginCodes.check({ email: 'a@example.com', codeHash: wrongHash, now, maxAttempts: 5 })).toBe('invalid');
    // the fifth guess is still judged
    await loginCodes.put({ email: 'b@example.com', codeHash, expiresAt: new Date(now.getTime() + 60_000), now });
    expect(await loginCodes.check({ email: 'a@example.com', codeHash: wrongHash, now, maxAttempts: 5 })).toBe('invalid');
    expect(await loginCodes.check({ email: 'a@example.com', codeHash, now, maxAttempts: 5 })).toBe('invalid');
    expect(await loginCodes.check({ email: 'b@example.com', codeHash, now, maxAttempts: 5 })).toBe('ok');
  });

  it('lets a new code replace the old one and reset the attempts', async () => {
    const { loginCodes } = sqliteRepositories(db);
    await loginCodes.put({ email: 'a@example.com', codeHash: wrongHash, expiresAt: new Date(now.getTime() + 60_000), now });
    await loginCodes.put({ email: 'a@example.com', codeHash, expiresAt: new Date(now.getTime() + 60_000), now });
    expect(await loginCodes.check({ email: 'a@example.com', codeHash: wrongHash, now, maxAttempts: 5 })).toBe('invalid');
    expect(await loginCodes.check({ email: 'a@example.com', codeHash, now, maxAttempts: 5 })).toBe('ok');
  });
});

describe('ApiKeyRepository and OutboxRepository', () => {
  it('stores, lists, revokes keys and queues mail', async () => {
    const { users, apiKeys, outbox } = sqliteRepositories(db);
    const user = await users.create({ email: 'k@example.com', now });
    const created = await apiKeys.create({
      id: 'k1',
      userId: user.id,
      hash: 'abc',
      prefix: 'svc_abcd',
      last4: 'wxyz',
      label: 'ci',
      scopes: ['scan:submit'],
      ipAllowlist: ['10.0.0.0/8'],
      expiresAt: now.toISOString(),
      createdAt: now.toISOString(),
    });
    expect((await apiKeys.findByHashWithOwner('abc'))?.key).toEqual(created);
    await apiKeys.touchLastUsed('k1', now);
    expect((await apiKeys.listByUser(user.id))[0]?.lastUsedAt).toBe(now.toISOString());
    expect(await apiKeys.revoke({ userId: 'someone-else', id: 'k1', now })).toBe(false);
    expect(await apiKeys.revoke({ userId: user.id, id: 'k1', now })).toBe(true);
    expect(await apiKeys.revoke({ userId: user.id, id: 'k1', now })).toBe(false);

    await outbox.add({ to: 'k@example.com', subject: 'hi', text: 'body', now });
    expect(await outbox.list()).toEqual([{ id: 1, to: 'k@example.com', subject: 'hi', text: 'body', createdAt: now.toISOString() }]);
  });

  it('creates keys only below the active limit, counting neither revoked nor expired keys', async () => {
    const { users, apiKeys } = sqliteRepositories(db);
    const user = await users.create({ email: 'limit@example.com', now });
    const record = (id: string, expiresAt: Date) => ({
      id,
      userId: user.id,
      hash: `hash-${id}`,
      prefix: 'svc_abcd',
      last4: 'wxyz',
      label: id,
      scopes: [],
      ipAllowlist: [],
      expiresAt: expiresAt.toISOString(),
      createdAt: now.toISOString(),
    });
    const later = new Date(now.getTime() + 86_400_000);
    const limit = { now, maxActive: 2 };
    expect(await apiKeys.createWithinLimit(record('expired', now), limit)).toMatchObject({ id: 'expired' });
    expect(await apiKeys.createWithinLimit(record('a', later), limit)).toMatchObject({ id: 'a', revokedAt: null });
    expect(await apiKeys.createWithinLimit(record('b', later), limit)).toMatchObject({ id: 'b' });
    expect(await apiKeys.createWithinLimit(record('c', later), limit)).toBeUndefined();
    expect(await apiKeys.findByHashWithOwner('hash-c')).toBeUndefined();
    await apiKeys.revoke({ userId: user.id, id: 'a', now });
    expect(await apiKeys.createWithinLimit(record('c', later), limit)).toMatchObject({ id: 'c' });

    expect(await apiKeys.markNetworkSeen({ keyId: 'b', network: '198.51.100.0/24', now })).toBe(true);
    expect(await apiKeys.markNetworkSeen({ keyId: 'b', network: '198.51.100.0/24', now })).toBe(false);
    expect(await apiKeys.markNetworkSeen({ keyId: 'c', network: '198.51.100.0/24', now })).toBe(true);
  });
});
