import { MemoryQuotaStore, SVC_VERSION, type QuotaStore } from '@svc/core';
import { SessionTokens } from './auth/session.js';
import type { BillingProvider } from './billing/billing.js';
import { ScanEventHub } from './jobs/hub.js';
import { ScanPool, scanWorkerUrl, type ScanPoolOptions } from './jobs/pool.js';
import { ScanRunner, type ScanExecutor } from './jobs/runner.js';
import type { Logger } from './logger.js';
import { OutboxMailTransport, type MailTransport } from './mail/transport.js';
import type { SqliteDatabase } from './store/database.js';
import type { ApiKeyRepository, LoginCodeRepository, OutboxRepository, ScanRepository, TeamRepository, UserRepository } from './store/repositories.js';
import { SqliteQuotaStore } from './store/quota.js';
import { SqliteBillingRepository } from './store/sqlite-billing.js';
import type { BillingRepository } from './store/repositories.js';
import { SqliteRegistryRepository, type RegistryRepository } from './store/registry.js';
import { DEFAULT_GIT_POLICY, type GitPolicy } from './jobs/git-destination.js';
import { sqliteRepositories } from './store/sqlite.js';

/** Everything a handler may use, reached through `c.get('services')` (DESIGN.md convention 3): no module globals. */
export interface Services {
  version: string;
  users: UserRepository;
  loginCodes: LoginCodeRepository;
  apiKeys: ApiKeyRepository;
  outbox: OutboxRepository;
  scans: ScanRepository;
  teams: TeamRepository;
  /** The public registry, recent scans and statistics: completed public scans only. */
  registry: RegistryRepository;
  /** Scan, sign-in and invite budgets: in SQLite, so they hold across restarts and processes. */
  quota: QuotaStore;
  /**
   * The request caps (8000 per 5 minutes per Authorization value, user and anonymous address): in this process's
   * memory, because every request touches them and a SQLite write per request halves the daemon's throughput. One
   * svcd serves a database, so the count is exact; a restart forgets at most 5 minutes of it.
   */
  requestQuota: QuotaStore;
  mail: MailTransport;
  /** Stripe, when SVC_STRIPE_SECRET_KEY is set; undefined: billing routes answer 501 BILLING_NOT_CONFIGURED. */
  billing: BillingProvider | undefined;
  /** Stripe customers, subscriptions and handled webhook events. */
  billingRecords: BillingRepository;
  sessions: SessionTokens;
  /** HMAC key for stored sign-in codes (see hashLoginCode). */
  loginCodePepper: string;
  /** HMAC key that signs pagination cursors of the public lists, so a tampered cursor is refused. */
  cursorKey: string;
  logger: Logger;
  clock: () => Date;
  /** SVC_TRUSTED_PROXIES, normalised: peers whose X-Forwarded-For is believed. */
  trustedProxies: readonly string[];
  /** SVC_SCAN_ROOTS: the only local folders a caller may name as a scan input. */
  scanRoots: readonly string[];
  /** Where scans of git URLs may connect. */
  git: GitPolicy;
  /** Moves queued scans through the worker pool; handlers call notify() after queueing. */
  runner: ScanRunner;
  /** Fan-out of stored stream events to open SSE connections. */
  hub: ScanEventHub;
  /** How often an idle stream sends a comment line (DESIGN.md: 15 s). */
  streamHeartbeatMs: number;
}

export interface ServiceOptions {
  db: SqliteDatabase;
  jwtSecret: string;
  logger: Logger;
  clock?: () => Date;
  mail?: MailTransport;
  billing?: BillingProvider;
  trustedProxies?: readonly string[];
  scanRoots?: readonly string[];
  git?: GitPolicy;
  /** The worker pool's settings (SVC_SCAN_WORKERS, SVC_SCAN_TIMEOUT_SECONDS); defaults: 1 worker, 300 s. */
  pool?: Partial<Omit<ScanPoolOptions, 'scanRoots' | 'git'>>;
  /** Runs the scans instead of a ScanPool built from `pool` (a test that needs a worker that crashes on purpose). */
  executor?: ScanExecutor;
  streamHeartbeatMs?: number;
}

/** The services of a daemon over one SQLite database; mail goes to the outbox unless a transport is given. */
export function buildServices({
  db,
  jwtSecret,
  logger,
  clock = () => new Date(),
  mail,
  billing,
  trustedProxies = [],
  scanRoots = [],
  git = DEFAULT_GIT_POLICY,
  pool = {},
  executor,
  streamHeartbeatMs = 15_000,
}: ServiceOptions): Services {
  const repositories = sqliteRepositories(db);
  const hub = new ScanEventHub();
  const poolOptions: ScanPoolOptions = { workerUrl: scanWorkerUrl(), size: 1, timeoutMs: 300_000, ...pool, scanRoots, git };
  const runner = new ScanRunner({
    scans: repositories.scans,
    // Nothing runs until the runner is started (svcd serving); `svcd admin` builds services without starting it.
    executor: executor ?? new ScanPool(poolOptions),
    hub,
    logger,
    clock,
    concurrency: poolOptions.size,
  });
  return {
    version: SVC_VERSION,
    ...repositories,
    registry: new SqliteRegistryRepository(db),
    quota: new SqliteQuotaStore(db),
    requestQuota: new MemoryQuotaStore(),
    mail: mail ?? new OutboxMailTransport(repositories.outbox, clock),
    billing,
    billingRecords: new SqliteBillingRepository(db),
    sessions: new SessionTokens(jwtSecret, clock),
    // Derived, not the JWT key itself, so the two uses of the secret cannot be confused with each other.
    loginCodePepper: `login-code:${jwtSecret}`,
    cursorKey: `cursor:${jwtSecret}`,
    logger,
    clock,
    trustedProxies,
    scanRoots,
    git,
    runner,
    hub,
    streamHeartbeatMs,
  };
}
