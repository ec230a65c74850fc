import type { AccountTier, BucketRequest, PaidTier, QuotaDecision, ScanMode, ScanRun, Severity } from '@svc/core';

// Storage interfaces (DESIGN.md convention 8): async, so a PostgreSQL implementation can sit behind them
// later. Instants are ISO 8601 strings in UTC; emails are stored normalised (core's normalizeEmail).

/** PUT /me: which mail the user wants; all on by default. */
export interface NotificationSettings {
  scanCompleted: boolean;
  newLocation: boolean;
  invites: boolean;
}

export interface User {
  id: string;
  email: string;
  displayName: string | null;
  tier: AccountTier;
  notifications: NotificationSettings;
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
  /** PUT /me: only the fields given change. Undefined when the user does not exist. */
  updateProfile(id: string, changes: { displayName?: string | null; notifications?: Partial<NotificationSettings> }): Promise<User | undefined>;
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
  /** The key of this hash with its owner, in one read: what every API-key request needs first. */
  findByHashWithOwner(hash: string): Promise<{ key: ApiKeyRecord; owner: User } | undefined>;
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

export interface Team {
  id: string;
  name: string;
  ownerUserId: string;
  /** The owner's plan (DESIGN.md). */
  tier: AccountTier;
  /** Optimistic concurrency: every write to the team or its members and invites bumps it. */
  version: number;
  createdAt: string;
}

export interface TeamMember {
  userId: string;
  email: string;
  displayName: string | null;
  role: Membership['role'];
  joinedAt: string;
}

export interface TeamInvite {
  id: string;
  teamId: string;
  /** Normalised. */
  email: string;
  role: 'member' | 'admin';
  invitedBy: string | null;
  invitedByEmail: string | null;
  createdAt: string;
  expiresAt: string;
  acceptedAt: string | null;
  revokedAt: string | null;
}

export interface MemberUsage {
  userId: string;
  scansUsed: number;
  lastScanAt: string | null;
}

export type CreateInviteResult =
  | { ok: true }
  | { ok: false; reason: 'conflict' | 'pending' | 'member' }
  | { ok: false; reason: 'rate_limited'; decision: QuotaDecision };

export interface TeamRepository {
  /** The caller's team, if any: whose private scans they share (spec 4.6 rule 4) and whose plan may pay. */
  membershipOf(userId: string): Promise<Membership | undefined>;
  findTeam(teamId: string): Promise<Team | undefined>;
  /** Owner first, then by join time. */
  members(teamId: string): Promise<TeamMember[]>;
  /** Open invites that have not expired at `now`, oldest first. */
  pendingInvites(teamId: string, now: Date): Promise<TeamInvite[]>;
  /** The invite of a token hash, in any state. */
  findInviteByTokenHash(tokenHash: string): Promise<TeamInvite | undefined>;
  /** A new team with its owner as the one member; `member` when the owner is in a team already. */
  create(input: { id: string; name: string; ownerUserId: string; now: Date }): Promise<{ ok: true; team: Team } | { ok: false; reason: 'member' }>;
  // Each write below runs in one transaction that first moves the team from `version` to version + 1; `conflict`
  // means another write came first and nothing was written.
  rename(input: { teamId: string; version: number; name: string }): Promise<'ok' | 'conflict'>;
  /** The new owner must be a member; the previous owner becomes `previousOwnerRole`. */
  transfer(input: { teamId: string; version: number; from: string; to: string; previousOwnerRole: 'admin' | 'member' }): Promise<'ok' | 'conflict' | 'not_member'>;
  /**
   * Stores an invite and consumes the team's invite buckets together: `member` when the address belongs to a member
   * of this team, `pending` when it has an open unexpired invite (an expired one is closed and replaced),
   * `rate_limited` when a bucket is full.
   */
  createInvite(input: {
    version: number;
    invite: Omit<TeamInvite, 'invitedByEmail' | 'acceptedAt' | 'revokedAt'>;
    tokenHash: string;
    buckets: readonly BucketRequest[];
    now: Date;
  }): Promise<CreateInviteResult>;
  /** Closes an open invite and adds the user as a member with its role; `gone` when it is no longer open, `member` when the user joined a team meanwhile. */
  acceptInvite(input: { inviteId: string; teamId: string; version: number; userId: string; now: Date }): Promise<'ok' | 'conflict' | 'gone' | 'member'>;
  /** Revokes the open (also expired) invite of an address; `not_found` when there is none. */
  revokeInvite(input: { teamId: string; version: number; email: string; now: Date }): Promise<'ok' | 'conflict' | 'not_found'>;
  removeMember(input: { teamId: string; version: number; userId: string }): Promise<'ok' | 'conflict' | 'not_member'>;
  /** Scans paid by the team (org_id) per user in [from, to), and each user's latest team-paid scan. */
  usage(input: { teamId: string; from: Date; to: Date }): Promise<{ perUser: MemberUsage[]; total: number }>;
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
  /** The submission carried a bearer token for its remote endpoint (the token itself lives only in the runner's memory). */
  bearerTokenGiven: boolean;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export type NewScan = Pick<ScanRecord, 'id' | 'userId' | 'orgId' | 'keyId' | 'input' | 'mode' | 'visibility' | 'source' | 'package' | 'version' | 'bearerTokenGiven'>;

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
  /** The same as stored JSON text, for answers that pass it on unchanged. */
  resultJson(id: string): Promise<string | undefined>;
  /** Newest first; `limit` + 1 rows are read to know whether a next page exists. */
  list(filter: ScanListFilter, page: { after?: ScanCursor; limit: number }): Promise<{ items: ScanRecord[]; next?: ScanCursor }>;
  /** The oldest queued scan, now running (attempts + 1); undefined when none is queued. */
  claimNext(now: Date): Promise<ScanRecord | undefined>;
  /** Only a running scan completes or fails; false otherwise (e.g. cancelled meanwhile). */
  complete(input: { id: string; run: ScanRun; summary: ScanSummary; findings: ReadonlyArray<{ ruleId: string; category: string; severity: Severity }>; now: Date }): Promise<boolean>;
  fail(input: { id: string; message: string; now: Date }): Promise<boolean>;
  /**
   * A queued or running scan becomes `cancelled` (its quota stays spent); `finished` when it had already completed,
   * failed or been cancelled, `not_found` when there is no such scan.
   */
  cancel(input: { id: string; now: Date }): Promise<'cancelled' | 'finished' | 'not_found'>;
  /** A running scan goes back to the queue (shutdown before it finished). */
  requeue(id: string): Promise<void>;
  /** At start: scans left running by a daemon that stopped go back to the queue. Returns how many. */
  requeueInterrupted(): Promise<number>;
  /** Stores an event of the scan's stream and returns its id (1, 2, …). */
  appendEvent(input: { scanId: string; event: string; data: string }): Promise<number>;
  eventsAfter(scanId: string, seq: number): Promise<StoredScanEvent[]>;
  lastEventSeq(scanId: string): Promise<number>;
}

/** A Stripe subscription as the last applied webhook event left it (billing/). */
export interface StoredSubscription {
  subscriptionId: string;
  userId: string;
  customerId: string;
  status: string;
  tier: PaidTier | null;
  billingCycle: 'monthly' | 'annual' | null;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
  /** Unix seconds of the newest event applied to it. */
  lastEventCreated: number;
  updatedAt: string;
}

export type BillingEventOutcome = 'applied' | 'stale' | 'ignored';

export interface BillingRepository {
  customerOf(userId: string): Promise<string | undefined>;
  /** Stores the user's customer unless one is stored already; returns the one stored (the first wins). */
  linkCustomer(input: { userId: string; customerId: string; now: Date }): Promise<string>;
  userOfCustomer(customerId: string): Promise<string | undefined>;
  /** The user's subscription that matters now: an entitled one (the highest tier), else the last updated. */
  currentSubscription(userId: string): Promise<StoredSubscription | undefined>;
  findSubscription(subscriptionId: string): Promise<StoredSubscription | undefined>;
  isEventProcessed(eventId: string): Promise<boolean>;
  /**
   * One transaction: records the event id and applies `subscription` (unless an event created later was applied to
   * it already: 'stale'), then sets the user's tier from their entitled subscriptions (none left: free). An event id
   * seen before is 'duplicate' and writes nothing.
   */
  recordEvent(input: {
    event: { id: string; type: string; created: number };
    subscription?: Omit<StoredSubscription, 'lastEventCreated' | 'updatedAt'>;
    now: Date;
  }): Promise<BillingEventOutcome | 'duplicate'>;
}
