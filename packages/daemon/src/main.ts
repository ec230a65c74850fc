import { ServiceError, SVC_VERSION } from '@svc/core';
import { serve, type ServerType } from '@hono/node-server';
import { Command, CommanderError } from 'commander';
import { adminCreateUser, adminMigrate, AdminError, adminOutbox, adminSetTier, adminToken } from './admin.js';
import { createApp } from './app.js';
import { ConfigError, ensureDataDir, loadConfig, loadJwtSecret, type ConfigFlags, type DaemonConfig } from './config.js';
import { jsonLogger } from './logger.js';
import { StripeBillingProvider } from './billing/stripe.js';
import { SmtpMailTransport } from './mail/smtp.js';
import { buildServices, type Services } from './services.js';
import { migrate, openDatabase, type SqliteDatabase } from './store/database.js';

/** How long open requests may take to finish after SIGTERM before their connections are cut. */
const SHUTDOWN_GRACE_MS = 10_000;

interface Opened {
  config: DaemonConfig;
  db: SqliteDatabase;
  services: Services;
}

/** Config → data dir → database (migrated) → services: what both `svcd` and `svcd admin` start from. */
function open(flags: ConfigFlags): Opened {
  const config = loadConfig(flags);
  ensureDataDir(config.dataDir);
  const db = openDatabase(config.databasePath);
  migrate(db);
  // Without SVC_SMTP_URL mail goes to the outbox (buildServices' default), where `svcd admin outbox` shows it.
  const mail = config.smtpUrl === undefined ? undefined : new SmtpMailTransport({ url: config.smtpUrl, from: config.mailFrom });
  const services = buildServices({
    db,
    jwtSecret: loadJwtSecret(config),
    logger: jsonLogger(),
    trustedProxies: config.trustedProxies,
    mail,
    // Without the Stripe secrets the billing routes answer 501 and `svcd admin set-tier` sets plans.
    ...(config.stripe.secretKey === undefined || config.stripe.webhookSecret === undefined
      ? {}
      : {
          billing: new StripeBillingProvider({
            secretKey: config.stripe.secretKey,
            webhookSecret: config.stripe.webhookSecret,
            apiUrl: config.stripe.apiUrl,
            returnUrl: config.stripe.returnUrl,
          }),
        }),
    scanRoots: config.scanRoots,
    git: config.git,
    pool: { size: config.scanWorkers, timeoutMs: config.scanTimeoutSeconds * 1000, remoteAllowPrivate: config.remoteAllowPrivate },
  });
  return { config, db, services };
}

function serveDaemon(flags: ConfigFlags): void {
  const { config, db, services } = open(flags);
  const server: ServerType = serve({ fetch: createApp(services).fetch, port: config.port, hostname: config.host }, (info) => {
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    process.stdout.write(`svcd listening on http://${host}:${info.port} (data: ${config.dataDir})\n`);
  });
  server.on('error', (error: NodeJS.ErrnoException) => {
    process.stderr.write(`svcd: cannot listen on ${config.host}:${config.port}: ${error.message}\n`);
    db.close();
    process.exit(2);
  });

  // Scans queued or left running by the previous process start again now.
  services.runner.start().catch((error: unknown) => services.logger.error('scan runner did not start', { error: String(error) }));

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    services.logger.info('shutting down', { signal, running_scans: services.runner.running });
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Idle keep-alive sockets would hold close() open; busy ones (open event streams too) get the grace period.
    if ('closeIdleConnections' in server) server.closeIdleConnections();
    setTimeout(() => {
      if ('closeAllConnections' in server) server.closeAllConnections();
    }, SHUTDOWN_GRACE_MS).unref();
    // Running scans get the same grace to finish; the rest go back to the queue for the next start.
    void Promise.all([closed, services.runner.stop(SHUTDOWN_GRACE_MS)]).finally(() => {
      db.close();
      process.exit(0);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** Runs an admin command on the opened database and prints its text. */
function admin(program: Command, run: (opened: Opened) => string | Promise<string>): () => Promise<void> {
  return async () => {
    const opened = open({ dataDir: program.opts<{ dataDir?: string }>().dataDir });
    // An operator beside a running daemon must know it is the same database (--data-dir, SVC_DATA_DIR, the default);
    // on stderr, so the printed token or text stays usable on stdout.
    process.stderr.write(`svcd admin: data dir ${opened.config.dataDir}\n`);
    try {
      process.stdout.write(`${await run(opened)}\n`);
    } finally {
      opened.db.close();
    }
  };
}

export function buildProgram(): Command {
  const program = new Command('svcd')
    .description('svcd: the self-hostable svc service API (serves when run without a command)')
    .version(SVC_VERSION)
    // Usage errors exit 2 like the rest of svc (DESIGN.md convention 7); the catch below maps them.
    .exitOverride()
    .option('--host <host>', 'address to listen on (SVC_HOST; default 127.0.0.1)')
    .option('--port <port>', 'port to listen on, 0 picks a free one (SVC_PORT; default 7878)')
    .option('--data-dir <dir>', 'database and state directory (SVC_DATA_DIR)')
    .action((options: ConfigFlags) => serveDaemon(options));

  const adminCommand = program.command('admin').description('operator commands on the database');
  adminCommand.command('migrate').description('apply pending database migrations').action(admin(program, ({ db }) => adminMigrate(db)));
  adminCommand
    .command('create-user <email>')
    .description('create a user')
    .option('--tier <tier>', 'free, dev, team or business', 'free')
    .action((email: string, options: { tier: string }) => admin(program, ({ services }) => adminCreateUser(services, email, options.tier))());
  adminCommand
    .command('set-tier <email> <tier>')
    .description("change a user's tier")
    .action((email: string, tier: string) => admin(program, ({ services }) => adminSetTier(services, email, tier))());
  adminCommand
    .command('token <email>')
    .description('print a session JWT for a user')
    .action((email: string) => admin(program, ({ services }) => adminToken(services, email))());
  adminCommand.command('outbox').description('print the queued mail').action(admin(program, ({ services }) => adminOutbox(services)));
  return program;
}

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // commander has printed the message or the help already
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else if (error instanceof ConfigError || error instanceof AdminError || error instanceof ServiceError) {
    process.stderr.write(`svcd: ${error.message}\n`);
  } else {
    process.stderr.write(`svcd: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exitCode ??= 2;
}
