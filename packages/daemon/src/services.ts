import { SVC_VERSION, type QuotaStore } from '@svc/core';
import { SessionTokens } from './auth/session.js';
import type { Logger } from './logger.js';
import { OutboxMailTransport, type MailTransport } from './mail/transport.js';
import type { SqliteDatabase } from './store/database.js';
import type { ApiKeyRepository, LoginCodeRepository, OutboxRepository, UserRepository } from './store/repositories.js';
import { SqliteQuotaStore } from './store/quota.js';
import { sqliteRepositories } from './store/sqlite.js';

/** Everything a handler may use, reached through `c.var.services` (DESIGN.md convention 3): no module globals. */
export interface Services {
  version: string;
  users: UserRepository;
  loginCodes: LoginCodeRepository;
  apiKeys: ApiKeyRepository;
  outbox: OutboxRepository;
  quota: QuotaStore;
  mail: MailTransport;
  sessions: SessionTokens;
  /** HMAC key for stored sign-in codes (see hashLoginCode). */
  loginCodePepper: string;
  logger: Logger;
  clock: () => Date;
  /** SVC_TRUSTED_PROXIES, normalised: peers whose X-Forwarded-For is believed. */
  trustedProxies: readonly string[];
}

export interface ServiceOptions {
  db: SqliteDatabase;
  jwtSecret: string;
  logger: Logger;
  clock?: () => Date;
  mail?: MailTransport;
  trustedProxies?: readonly string[];
}

/** The services of a daemon over one SQLite database; mail goes to the outbox unless a transport is given. */
export function buildServices({ db, jwtSecret, logger, clock = () => new Date(), mail, trustedProxies = [] }: ServiceOptions): Services {
  const repositories = sqliteRepositories(db);
  return {
    version: SVC_VERSION,
    ...repositories,
    quota: new SqliteQuotaStore(db),
    mail: mail ?? new OutboxMailTransport(repositories.outbox, clock),
    sessions: new SessionTokens(jwtSecret, clock),
    // Derived, not the JWT key itself, so the two uses of the secret cannot be confused with each other.
    loginCodePepper: `login-code:${jwtSecret}`,
    logger,
    clock,
    trustedProxies,
  };
}
