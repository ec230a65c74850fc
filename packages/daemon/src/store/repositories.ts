import type { AccountTier } from '@svc/core';

// Storage interfaces (DESIGN.md convention 8): async, so a PostgreSQL implementation can sit behind them
// later. Instants are ISO 8601 strings in UTC; emails are stored normalised (core's normalizeEmail).

export interface User {
  id: string;
  email: string;
  displayName: string | null;
  tier: AccountTier;
  createdAt: string;
}

export interface UserRepository {
  findById(id: string): Promise<User | undefined>;
  findByEmail(email: string): Promise<User | undefined>;
  /** Throws ServiceError CONFLICT when the (normalised) email is taken. */
  create(input: { email: string; tier?: AccountTier; now: Date }): Promise<User>;
  /** The user of this email, created with the free tier on first sign-in. */
  findOrCreate(input: { email: string; now: Date }): Promise<User>;
  setTier(email: string, tier: AccountTier): Promise<User | undefined>;
}

export type LoginCodeCheck = 'ok' | 'invalid';

export interface LoginCodeRepository {
  /** Stores the code of an address, replacing any earlier one (and its attempt count). */
  put(input: { email: string; codeHash: string; expiresAt: Date; now: Date }): Promise<void>;
  /**
   * One verification attempt, atomically: a match of a live code consumes it; a miss counts an attempt and
   * deletes the code once `maxAttempts` is reached; an expired code is deleted.
   */
  check(input: { email: string; codeHash: string; now: Date; maxAttempts: number }): Promise<LoginCodeCheck>;
}

export interface ApiKeyRecord {
  id: string;
  userId: string;
  hash: string;
  prefix: string;
  last4: string;
  label: string;
  scopes: string[];
  ipAllowlist: string[];
  expiresAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
}

export interface ApiKeyRepository {
  create(record: Omit<ApiKeyRecord, 'revokedAt' | 'lastUsedAt'>): Promise<ApiKeyRecord>;
  /**
   * Counts the user's active (unrevoked, unexpired at `now`) keys and inserts only while there are fewer than
   * `maxActive`, atomically, so concurrent creates cannot pass the limit. Undefined when the limit is reached.
   */
  createWithinLimit(record: Omit<ApiKeyRecord, 'revokedAt' | 'lastUsedAt'>, limit: { now: Date; maxActive: number }): Promise<ApiKeyRecord | undefined>;
  findByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  listByUser(userId: string): Promise<ApiKeyRecord[]>;
  /** False when the user has no such unrevoked key. */
  revoke(input: { userId: string; id: string; now: Date }): Promise<boolean>;
  touchLastUsed(id: string, at: Date): Promise<void>;
  /** Records that a key was used from a network; true only the first time for that key and network. */
  markNetworkSeen(input: { keyId: string; network: string; now: Date }): Promise<boolean>;
}

export interface OutboxMessage {
  id: number;
  to: string;
  subject: string;
  text: string;
  createdAt: string;
}

export interface OutboxRepository {
  add(message: { to: string; subject: string; text: string; now: Date }): Promise<OutboxMessage>;
  list(): Promise<OutboxMessage[]>;
}
