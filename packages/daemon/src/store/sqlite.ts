import { randomUUID } from 'node:crypto';
import { constantTimeEqualHex, normalizeEmail, ServiceError, type AccountTier } from '@svc/core';
import type { SqliteDatabase } from './database.js';
import { SqliteScanRepository } from './sqlite-scans.js';
import { SqliteTeamRepository } from './sqlite-teams.js';
import type {
  ApiKeyRecord,
  ApiKeyRepository,
  LoginCodeCheck,
  LoginCodeRepository,
  NotificationSettings,
  OutboxMessage,
  OutboxRepository,
  User,
  UserRepository,
} from './repositories.js';

// better-sqlite3 is synchronous; these classes keep the async interfaces of repositories.ts so callers do
// not depend on that. Multi-statement operations run in one transaction, which is atomic because a
// synchronous transaction cannot interleave with other requests of this process.

interface UserRow {
  id: string;
  email: string;
  display_name: string | null;
  tier: AccountTier;
  notify_scan_completed: number;
  notify_new_location: number;
  notify_invites: number;
  created_at: string;
}

function toUser(row: UserRow): User {
  return {
    id: row.id,
    email: row.email,
    displayName: row.display_name,
    tier: row.tier,
    notifications: { scanCompleted: row.notify_scan_completed === 1, newLocation: row.notify_new_location === 1, invites: row.notify_invites === 1 },
    createdAt: row.created_at,
  };
}

const NOTIFICATION_COLUMNS = {
  scanCompleted: 'notify_scan_completed',
  newLocation: 'notify_new_location',
  invites: 'notify_invites',
} as const satisfies Record<keyof NotificationSettings, string>;

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === 'SQLITE_CONSTRAINT_UNIQUE';
}

export class SqliteUserRepository implements UserRepository {
  constructor(private readonly db: SqliteDatabase) {}

  async findById(id: string): Promise<User | undefined> {
    const row = this.db.prepare<[string], UserRow>('SELECT * FROM users WHERE id = ?').get(id);
    return row && toUser(row);
  }

  async findByEmail(email: string): Promise<User | undefined> {
    return this.findByNormalisedEmail(normalizeEmail(email));
  }

  async create({ email, tier = 'free', now }: { email: string; tier?: AccountTier; now: Date }): Promise<User> {
    const user: User = {
      id: randomUUID(),
      email: normalizeEmail(email),
      displayName: null,
      tier,
      notifications: { scanCompleted: true, newLocation: true, invites: true },
      createdAt: now.toISOString(),
    };
    try {
      this.db
        .prepare('INSERT INTO users (id, email, display_name, tier, created_at) VALUES (?, ?, ?, ?, ?)')
        .run(user.id, user.email, user.displayName, user.tier, user.createdAt);
    } catch (error) {
      if (isUniqueViolation(error)) throw new ServiceError('CONFLICT', 'A user with this email address already exists.');
      throw error;
    }
    return user;
  }

  async findOrCreate({ email, now }: { email: string; now: Date }): Promise<User> {
    const normalised = normalizeEmail(email);
    this.db
      .prepare("INSERT INTO users (id, email, tier, created_at) VALUES (?, ?, 'free', ?) ON CONFLICT (email) DO NOTHING")
      .run(randomUUID(), normalised, now.toISOString());
    const user = this.findByNormalisedEmail(normalised);
    if (user === undefined) throw new Error('user vanished right after its insert');
    return user;
  }

  async setTier(email: string, tier: AccountTier): Promise<User | undefined> {
    const normalised = normalizeEmail(email);
    this.db.prepare('UPDATE users SET tier = ? WHERE email = ?').run(tier, normalised);
    return this.findByNormalisedEmail(normalised);
  }

  async updateProfile(
    id: string,
    changes: { displayName?: string | null; notifications?: Partial<NotificationSettings> },
  ): Promise<User | undefined> {
    const assignments: string[] = [];
    const values: Array<string | number | null> = [];
    if (changes.displayName !== undefined) {
      assignments.push('display_name = ?');
      values.push(changes.displayName);
    }
    for (const [key, column] of Object.entries(NOTIFICATION_COLUMNS) as Array<[keyof NotificationSettings, string]>) {
      const value = changes.notifications?.[key];
      if (value === undefined) continue;
      assignments.push(`${column} = ?`);
      values.push(value ? 1 : 0);
    }
    if (assignments.length > 0) this.db.prepare(`UPDATE users SET ${assignments.join(', ')} WHERE id = ?`).run(...values, id);
    return this.findById(id);
  }

  private findByNormalisedEmail(email: string): User | undefined {
    const row = this.db.prepare<[string], UserRow>('SELECT * FROM users WHERE email = ?').get(email);
    return row && toUser(row);
  }
}

interface LoginCodeRow {
  code_hash: string;
  expires_at: string;
  attempts: number;
}

export class SqliteLoginCodeRepository implements LoginCodeRepository {
  constructor(private readonly db: SqliteDatabase) {}

  async put({ email, codeHash, expiresAt, now }: { email: string; codeHash: string; expiresAt: Date; now: Date }): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO login_codes (email, code_hash, expires_at, attempts, created_at) VALUES (?, ?, ?, 0, ?)
         ON CONFLICT (email) DO UPDATE SET code_hash = excluded.code_hash, expires_at = excluded.expires_at,
           attempts = 0, created_at = excluded.created_at`,
      )
      .run(normalizeEmail(email), codeHash, expiresAt.toISOString(), now.toISOString());
  }

  async check({ email, codeHash, now, maxAttempts }: { email: string; codeHash: string; now: Date; maxAttempts: number }): Promise<LoginCodeCheck> {
    const address = normalizeEmail(email);
    const attempt = this.db.transaction((): LoginCodeCheck => {
      const row = this.db.prepare<[string], LoginCodeRow>('SELECT code_hash, expires_at, attempts FROM login_codes WHERE email = ?').get(address);
      if (row === undefined) return 'invalid';
      const remove = () => this.db.prepare('DELETE FROM login_codes WHERE email = ?').run(address);
      if (Date.parse(row.expires_at) <= now.getTime() || row.attempts >= maxAttempts) {
        remove();
        return 'invalid';
      }
      if (constantTimeEqualHex(row.code_hash, codeHash)) {
        remove();
        return 'ok';
      }
      if (row.attempts + 1 >= maxAttempts) remove();
      else this.db.prepare('UPDATE login_codes SET attempts = attempts + 1 WHERE email = ?').run(address);
      return 'invalid';
    });
    return attempt.immediate();
  }
}

interface ApiKeyRow {
  id: string;
  user_id: string;
  hash: string;
  prefix: string;
  last4: string;
  label: string;
  scopes: string;
  ip_allowlist: string;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  created_at: string;
}

/** The owner's users columns beside a key's, prefixed so the names do not clash. */
interface OwnerColumns {
  owner_email: string;
  owner_display_name: string | null;
  owner_tier: AccountTier;
  owner_notify_scan_completed: number;
  owner_notify_new_location: number;
  owner_notify_invites: number;
  owner_created_at: string;
}

function toApiKey(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    userId: row.user_id,
    hash: row.hash,
    prefix: row.prefix,
    last4: row.last4,
    label: row.label,
    scopes: JSON.parse(row.scopes) as string[],
    ipAllowlist: JSON.parse(row.ip_allowlist) as string[],
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
    createdAt: row.created_at,
  };
}

/** Key/network pairs remembered per connection before the memo starts over (a few hundred KB at most). */
const MAX_REMEMBERED_NETWORKS = 10_000;

export class SqliteApiKeyRepository implements ApiKeyRepository {
  private readonly storedNetworks = new Set<string>();

  constructor(private readonly db: SqliteDatabase) {}

  async create(record: Omit<ApiKeyRecord, 'revokedAt' | 'lastUsedAt'>): Promise<ApiKeyRecord> {
    this.insert(record);
    return { ...record, revokedAt: null, lastUsedAt: null };
  }

  async createWithinLimit(
    record: Omit<ApiKeyRecord, 'revokedAt' | 'lastUsedAt'>,
    { now, maxActive }: { now: Date; maxActive: number },
  ): Promise<ApiKeyRecord | undefined> {
    const attempt = this.db.transaction((): boolean => {
      const active = this.db
        .prepare<[string, string], { count: number }>(
          'SELECT COUNT(*) AS count FROM api_keys WHERE user_id = ? AND revoked_at IS NULL AND expires_at > ?',
        )
        .get(record.userId, now.toISOString());
      if ((active?.count ?? 0) >= maxActive) return false;
      this.insert(record);
      return true;
    });
    // IMMEDIATE takes the write lock before the count, so another process cannot insert in between.
    return attempt.immediate() ? { ...record, revokedAt: null, lastUsedAt: null } : undefined;
  }

  private insert(record: Omit<ApiKeyRecord, 'revokedAt' | 'lastUsedAt'>): void {
    this.db
      .prepare(
        `INSERT INTO api_keys (id, user_id, hash, prefix, last4, label, scopes, ip_allowlist, expires_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        record.id,
        record.userId,
        record.hash,
        record.prefix,
        record.last4,
        record.label,
        JSON.stringify(record.scopes),
        JSON.stringify(record.ipAllowlist),
        record.expiresAt,
        record.createdAt,
      );
  }

  async findByHashWithOwner(hash: string): Promise<{ key: ApiKeyRecord; owner: User } | undefined> {
    const row = this.db
      .prepare<[string], ApiKeyRow & OwnerColumns>(
        `SELECT k.*, u.email AS owner_email, u.display_name AS owner_display_name, u.tier AS owner_tier,
           u.notify_scan_completed AS owner_notify_scan_completed, u.notify_new_location AS owner_notify_new_location,
           u.notify_invites AS owner_notify_invites, u.created_at AS owner_created_at
         FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.hash = ?`,
      )
      .get(hash);
    if (row === undefined) return undefined;
    const owner = toUser({
      id: row.user_id,
      email: row.owner_email,
      display_name: row.owner_display_name,
      tier: row.owner_tier,
      notify_scan_completed: row.owner_notify_scan_completed,
      notify_new_location: row.owner_notify_new_location,
      notify_invites: row.owner_notify_invites,
      created_at: row.owner_created_at,
    });
    return { key: toApiKey(row), owner };
  }

  async listByUser(userId: string): Promise<ApiKeyRecord[]> {
    // rowid: keys created in the same millisecond are listed in the order they were made.
    return this.db.prepare<[string], ApiKeyRow>('SELECT * FROM api_keys WHERE user_id = ? ORDER BY created_at, rowid').all(userId).map(toApiKey);
  }

  async revoke({ userId, id, now }: { userId: string; id: string; now: Date }): Promise<boolean> {
    const result = this.db
      .prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL')
      .run(now.toISOString(), id, userId);
    return result.changes > 0;
  }

  async touchLastUsed(id: string, at: Date): Promise<void> {
    this.db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(at.toISOString(), id);
  }

  async markNetworkSeen({ keyId, network, now }: { keyId: string; network: string; now: Date }): Promise<boolean> {
    // Every authenticated request lands here; a pair this connection has stored already needs no write. Rows are
    // never deleted while their key lives, so remembering them cannot hide a first use.
    const pair = `${keyId} ${network}`;
    if (this.storedNetworks.has(pair)) return false;
    const result = this.db
      .prepare('INSERT INTO seen_networks (key_id, network, first_seen_at) VALUES (?, ?, ?) ON CONFLICT (key_id, network) DO NOTHING')
      .run(keyId, network, now.toISOString());
    if (this.storedNetworks.size >= MAX_REMEMBERED_NETWORKS) this.storedNetworks.clear();
    this.storedNetworks.add(pair);
    return result.changes > 0;
  }
}

interface OutboxRow {
  id: number;
  to: string;
  subject: string;
  text: string;
  created_at: string;
}

export class SqliteOutboxRepository implements OutboxRepository {
  constructor(private readonly db: SqliteDatabase) {}

  async add({ to, subject, text, now }: { to: string; subject: string; text: string; now: Date }): Promise<OutboxMessage> {
    const createdAt = now.toISOString();
    const result = this.db.prepare('INSERT INTO outbox ("to", subject, text, created_at) VALUES (?, ?, ?, ?)').run(to, subject, text, createdAt);
    return { id: Number(result.lastInsertRowid), to, subject, text, createdAt };
  }

  async list(): Promise<OutboxMessage[]> {
    return this.db
      .prepare<[], OutboxRow>('SELECT id, "to", subject, text, created_at FROM outbox ORDER BY id')
      .all()
      .map((row) => ({ id: row.id, to: row.to, subject: row.subject, text: row.text, createdAt: row.created_at }));
  }
}

/** The SQLite implementations of every repository, over one connection. */
export function sqliteRepositories(db: SqliteDatabase) {
  return {
    users: new SqliteUserRepository(db),
    loginCodes: new SqliteLoginCodeRepository(db),
    apiKeys: new SqliteApiKeyRepository(db),
    outbox: new SqliteOutboxRepository(db),
    scans: new SqliteScanRepository(db),
    teams: new SqliteTeamRepository(db),
  };
}
