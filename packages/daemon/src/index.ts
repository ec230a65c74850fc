// The public surface of @svc/daemon: what an embedding program (or a hosted deployment) needs to run svcd.
export { createApp, MAX_BODY_BYTES, REQUEST_ID_HEADER } from './app.js';
export { buildServices, type ServiceOptions, type Services } from './services.js';
export type { AppEnv } from './env.js';
export { ConfigError, loadConfig, loadJwtSecret, ensureDataDir, defaultDataDir, type DaemonConfig, type ConfigFlags } from './config.js';
export { migrate, openDatabase, schemaVersion, type SqliteDatabase } from './store/database.js';
export type * from './store/repositories.js';
export { SqliteQuotaStore } from './store/quota.js';
export { OutboxMailTransport, type MailMessage, type MailTransport } from './mail/transport.js';
export { SessionTokens, SESSION_LIFETIME_SECONDS, type SessionClaims } from './auth/session.js';
export { jsonLogger, silentLogger, type Logger } from './logger.js';
