import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adminCreateUser, adminMigrate, AdminError, adminOutbox, adminSetTier, adminToken } from './admin.js';
import { silentLogger } from './logger.js';
import { buildServices, type Services } from './services.js';
import { migrate, openDatabase, type SqliteDatabase } from './store/database.js';

let dir: string;
let db: SqliteDatabase;
let services: Services;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'svcd-admin-'));
  db = openDatabase(path.join(dir, 'svc.db'));
  services = buildServices({ db, jwtSecret: 'admin-test-secret-0123456789abcdef012345', logger: silentLogger });
});
afterEach(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

describe('svcd admin', () => {
  it('migrates once', () => {
    expect(adminMigrate(db)).toBe('applied migrations 1, 2, 3, 4, 5 (schema version 5)');
    expect(adminMigrate(db)).toBe('database is up to date (schema version 5)');
  });

  describe('with a migrated database', () => {
    beforeEach(() => {
      migrate(db);
    });

    it('creates users with a tier given by id or display name and refuses duplicates', async () => {
      expect(await adminCreateUser(services, 'Ada@Example.com', 'Developer')).toMatch(/^created ada@example\.com \(dev, id /);
      await expect(adminCreateUser(services, 'ada@example.com')).rejects.toMatchObject({ code: 'CONFLICT' });
      await expect(adminCreateUser(services, 'bo@example.com', 'anonymous')).rejects.toBeInstanceOf(AdminError);
      await expect(adminCreateUser(services, 'not an email')).rejects.toThrow(/not an email address/);
    });

    it('sets tiers', async () => {
      await adminCreateUser(services, 'ada@example.com');
      expect(await adminSetTier(services, 'ADA@example.com', 'business')).toBe('ada@example.com is now on the business tier');
      expect((await services.users.findByEmail('ada@example.com'))?.tier).toBe('business');
      await expect(adminSetTier(services, 'nobody@example.com', 'team')).rejects.toThrow(/no user/);
      await expect(adminSetTier(services, 'ada@example.com', 'platinum')).rejects.toThrow(/unknown tier "platinum"/);
    });

    it('prints a session token that verifies as the user', async () => {
      await adminCreateUser(services, 'ada@example.com');
      const token = await adminToken(services, 'ada@example.com');
      const user = await services.users.findByEmail('ada@example.com');
      expect(await services.sessions.verify(token)).toEqual({ userId: user?.id, email: 'ada@example.com' });
      await expect(adminToken(services, 'nobody@example.com')).rejects.toBeInstanceOf(AdminError);
    });

    it('prints the outbox', async () => {
      expect(await adminOutbox(services)).toBe('the outbox is empty');
      await services.mail.send({ to: 'ada@example.com', subject: 'Your code', text: 'Code 123456\n' });
      expect(await adminOutbox(services)).toMatch(/^#1 \S+ to ada@example\.com\nSubject: Your code\n\nCode 123456\n$/);
    });
  });
});
