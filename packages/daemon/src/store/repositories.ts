import type { AccountTier, BucketRequest, QuotaDecision, ScanMode, ScanRun, Severity } from '@svc/core';

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

export interface Membership {
  teamId: string;
  role: 'owner' | 'admin' | 'member';
  /** The team's tier is its owner's plan (DESIGN.md). */
  teamTier: AccountTier;
}

export interface TeamRepository {
  /** The caller's team, if any: whose private scans they share (spec 4.6 rule 4) and whose plan may pay. */
  membershipOf(userId: string): Promise<Membership | undefined>;
}

export type ScanStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
export type ScanVisibility = 'public' | 'private';

/** What a completed scan found, kept in columns for lists, the registry and statistics. */
export interface ScanSummary {
  source: string | null;
  package: string | null;
  version: string | null;
  score: number;
  grade: string;
  counts: Record<Severity, number>;
  findingsCount: number;
  toolsCount: number;
}

export interface ScanRecord {
  id: string;
  userId: string | null;
  orgId: string | null;
  keyId: string | null;
  input: string;
  mode: ScanMode;
  visibility: ScanVisibility;
  status: ScanStatus;
  /** Known from the input at submit (package specs), completed from the report. */
  source: string | null;
  package: string | null;
  version: string | null;
  summary: Omit<ScanSummary, 'source' | 'package' | 'version'> | null;
  error: string | null;
  attempts: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export type NewScan = Pick<ScanRecord, 'id' | 'userId' | 'orgId' | 'keyId' | 'input' | 'mode' | 'visibility' | 'source' | 'package' | 'version'>;

/** Position in a newest-first list: the last item of the previous page. */
export interface ScanCursor {
  createdAt: string;
  id: string;
}

export interface ScanListFilter {
  visibility: ScanVisibility;
  /** The caller's own scans… */
  userId: string;
  /** …and, when set, every scan paid by this team (spec 4.6 rule 4). */
  orgId?: string;
}

export interface StoredScanEvent {
  seq: number;
  event: string;
  data: string;
}

export interface ScanRepository {
  /**
   * Consumes the quota buckets and queues the scan in one transaction: either every bucket has room and the
   * scan is queued, or nothing is written and the decision says which bucket is full.
   */
  submit(input: { scan: NewScan; buckets: readonly BucketRequest[]; now: Date }): Promise<{ decision: QuotaDecision; scan?: ScanRecord }>;
  findById(id: string): Promise<ScanRecord | undefined>;
  /** The ScanRun of a completed scan. */
  result(id: string): Promise<ScanRun | undefined>;
  /** Newest first; `limit` + 1 rows are read to know whether a next page exists. */
  list(filter: ScanListFilter, page: { after?: ScanCursor; limit: number }): Promise<{ items: ScanRecord[]; next?: ScanCursor }>;
  /** The oldest queued scan, now running (attempts + 1); undefined when none is queued. */
  claimNext(now: Date): Promise<ScanRecord | undefined>;
  /** Only a running scan completes or fails; false otherwise (e.g. cancelled meanwhile). */
  complete(input: { id: string; run: ScanRun; summary: ScanSummary; findings: ReadonlyArray<{ ruleId: string; category: string; severity: Severity }>; now: Date }): Promise<boolean>;
  fail(input: { id: string; message: string; now: Date }): Promise<boolean>;
  /** A running scan goes back to the queue (shutdown before it finished). */
  requeue(id: string): Promise<void>;
  /** At start: scans left running by a daemon that stopped go back to the queue. Returns how many. */
  requeueInterrupted(): Promise<number>;
  /** Stores an event of the scan's stream and returns its id (1, 2, …). */
  appendEvent(input: { scanId: string; event: string; data: string }): Promise<number>;
  eventsAfter(scanId: string, seq: number): Promise<StoredScanEvent[]>;
  lastEventSeq(scanId: string): Promise<number>;
}
