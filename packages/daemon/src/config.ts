import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, homedir } from 'node:os';
import path from 'node:path';
import { parseTrustedProxies } from '@svc/core';
import { parseGitPolicy, type GitPolicy } from './jobs/git-destination.js';

/** The operator contract of DESIGN.md "Configuration and operator contract": env names are fixed, flags override them. */
export interface DaemonConfig {
  host: string;
  port: number;
  dataDir: string;
  databasePath: string;
  /** Undefined when SVC_JWT_SECRET is unset: the secret then lives in `<dataDir>/jwt-secret` (see loadJwtSecret). */
  jwtSecret: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string;
  trustedProxies: string[];
  scanRoots: string[];
  /** SVC_GIT_PROTOCOLS, SVC_GIT_ALLOW_PRIVATE, SVC_GIT_HOSTS: where scans of git URLs may connect (jobs/git-destination.ts). */
  git: GitPolicy;
  /** SVC_REMOTE_ALLOW_PRIVATE=1: scans of remote MCP endpoints may connect to loopback and private addresses. */
  remoteAllowPrivate: boolean;
  /** SVC_SCAN_WORKERS: scans that run at once, each in its own worker thread. */
  scanWorkers: number;
  /** SVC_SCAN_TIMEOUT_SECONDS: a scan running longer is stopped and fails. */
  scanTimeoutSeconds: number;
  stripe: {
    secretKey: string | undefined;
    webhookSecret: string | undefined;
    /** SVC_STRIPE_API_URL: the Stripe API's base URL (stripe-mock or a test stand-in); undefined: api.stripe.com. */
    apiUrl: string | undefined;
    /** SVC_STRIPE_RETURN_URL: where Stripe sends the browser back to; default this daemon's /billing/return. */
    returnUrl: string;
  };
}

export interface ConfigFlags {
  host?: string | undefined;
  port?: string | number | undefined;
  dataDir?: string | undefined;
}

export interface ConfigEnvironment {
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
  home: string;
  /** CPUs the default SVC_SCAN_WORKERS is derived from; default os.availableParallelism(). */
  parallelism?: number;
}

/** A configuration mistake the operator must fix; main prints the message and exits without a stack trace. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 7878;
export const DEFAULT_MAIL_FROM = 'svc <no-reply@localhost>';
// HS256 keys shorter than the hash output weaken the MAC (RFC 7518 3.2), so a short SVC_JWT_SECRET is refused.
export const MIN_JWT_SECRET_LENGTH = 32;
export const JWT_SECRET_FILE = 'jwt-secret';
export const DATABASE_FILE = 'svc.db';
export const DEFAULT_SCAN_TIMEOUT_SECONDS = 300;
// Upper bounds catch typos (an extra zero) rather than limit real deployments: one worker thread per scan, a day per scan.
export const MAX_SCAN_WORKERS = 256;
export const MAX_SCAN_TIMEOUT_SECONDS = 86_400;

/** One CPU stays free for the HTTP side; more than four concurrent scans rarely pays on one machine's disk and network. */
export function defaultScanWorkers(parallelism: number): number {
  return Math.max(1, Math.min(4, parallelism - 1));
}

export function loadConfig(
  flags: ConfigFlags = {},
  environment: ConfigEnvironment = { env: process.env, platform: process.platform, home: homedir() },
): DaemonConfig {
  const { env } = environment;
  const host = flags.host ?? nonEmpty(env['SVC_HOST']) ?? DEFAULT_HOST;
  if (host.trim() === '') throw new ConfigError('host must not be empty (--host or SVC_HOST)');

  const port = parsePort(flags.port ?? nonEmpty(env['SVC_PORT']), flags.port !== undefined ? '--port' : 'SVC_PORT');

  const dataDirInput = flags.dataDir ?? nonEmpty(env['SVC_DATA_DIR']);
  const dataDir = path.resolve(dataDirInput ?? defaultDataDir(environment));

  const jwtSecret = nonEmpty(env['SVC_JWT_SECRET']);
  if (jwtSecret !== undefined && jwtSecret.length < MIN_JWT_SECRET_LENGTH) {
    throw new ConfigError(`SVC_JWT_SECRET must be at least ${MIN_JWT_SECRET_LENGTH} characters long`);
  }

  const smtpUrl = nonEmpty(env['SVC_SMTP_URL']);
  if (smtpUrl !== undefined) checkSmtpUrl(smtpUrl);

  let trustedProxies: string[];
  try {
    trustedProxies = parseTrustedProxies(env['SVC_TRUSTED_PROXIES']);
  } catch (error) {
    throw new ConfigError(error instanceof Error ? error.message : String(error));
  }

  return {
    host,
    port,
    dataDir,
    databasePath: path.join(dataDir, DATABASE_FILE),
    jwtSecret,
    smtpUrl,
    mailFrom: nonEmpty(env['SVC_MAIL_FROM']) ?? DEFAULT_MAIL_FROM,
    trustedProxies,
    scanRoots: parseScanRoots(env['SVC_SCAN_ROOTS'], environment.platform),
    git: gitPolicy(env),
    remoteAllowPrivate: parseRemoteAllowPrivate(env['SVC_REMOTE_ALLOW_PRIVATE']),
    scanWorkers: parseBoundedInteger(env['SVC_SCAN_WORKERS'], 'SVC_SCAN_WORKERS', defaultScanWorkers(environment.parallelism ?? availableParallelism()), MAX_SCAN_WORKERS),
    scanTimeoutSeconds: parseBoundedInteger(env['SVC_SCAN_TIMEOUT_SECONDS'], 'SVC_SCAN_TIMEOUT_SECONDS', DEFAULT_SCAN_TIMEOUT_SECONDS, MAX_SCAN_TIMEOUT_SECONDS),
    stripe: parseStripe(env, host, port),
  };
}

function parseRemoteAllowPrivate(value: string | undefined): boolean {
  const flag = (value ?? '').trim();
  if (flag !== '' && flag !== '0' && flag !== '1') throw new ConfigError(`SVC_REMOTE_ALLOW_PRIVATE must be 0 or 1, got "${flag}"`);
  return flag === '1';
}

function gitPolicy(env: Record<string, string | undefined>): GitPolicy {
  const policy = parseGitPolicy(env);
  if ('error' in policy) throw new ConfigError(policy.error);
  return policy;
}

/** The per-user data directory of each platform's convention (XDG on Linux and other Unixes). */
export function defaultDataDir({ env, platform, home }: ConfigEnvironment): string {
  if (platform === 'win32') {
    return path.win32.join(nonEmpty(env['APPDATA']) ?? path.win32.join(home, 'AppData', 'Roaming'), 'svc');
  }
  if (platform === 'darwin') return path.posix.join(home, 'Library', 'Application Support', 'svc');
  // XDG says a relative XDG_DATA_HOME is invalid and must be ignored.
  const xdg = nonEmpty(env['XDG_DATA_HOME']);
  const base = xdg !== undefined && path.posix.isAbsolute(xdg) ? xdg : path.posix.join(home, '.local', 'share');
  return path.posix.join(base, 'svc');
}

function parsePort(value: string | number | undefined, source: string): number {
  if (value === undefined) return DEFAULT_PORT;
  const text = String(value).trim();
  // Port 0 asks the OS for a free port; svcd prints the one it got.
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) {
    throw new ConfigError(`${source} must be a port number from 0 to 65535, got "${String(value)}"`);
  }
  return Number(text);
}

function parseBoundedInteger(value: string | undefined, name: string, fallback: number, max: number): number {
  const text = nonEmpty(value)?.trim();
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > max) {
    throw new ConfigError(`${name} must be a whole number from 1 to ${max}, got "${value}"`);
  }
  return Number(text);
}

function checkSmtpUrl(value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('SVC_SMTP_URL must be a URL such as smtp://user:pass@mail.example.com:587');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    throw new ConfigError(`SVC_SMTP_URL must use smtp: or smtps:, got "${url.protocol}"`);
  }
}

/** SVC_SCAN_ROOTS uses the platform's PATH separator; relative roots would depend on the daemon's cwd, so they are refused. */
function parseScanRoots(value: string | undefined, platform: NodeJS.Platform): string[] {
  const paths = platform === 'win32' ? path.win32 : path.posix;
  const roots = (value ?? '').split(paths.delimiter).map((entry) => entry.trim()).filter((entry) => entry !== '');
  return roots.map((root) => {
    if (!paths.isAbsolute(root)) throw new ConfigError(`SVC_SCAN_ROOTS: "${root}" is not an absolute path`);
    return paths.resolve(root);
  });
}

/**
 * Both Stripe secrets or neither: a secret key without the webhook secret would take payments that never change a
 * tier (only verified webhooks do). The prefixes catch a publishable key or a swapped pair.
 */
function parseStripe(env: Record<string, string | undefined>, host: string, port: number): DaemonConfig['stripe'] {
  const secretKey = nonEmpty(env['SVC_STRIPE_SECRET_KEY'])?.trim();
  const webhookSecret = nonEmpty(env['SVC_STRIPE_WEBHOOK_SECRET'])?.trim();
  if ((secretKey === undefined) !== (webhookSecret === undefined)) {
    throw new ConfigError('set both SVC_STRIPE_SECRET_KEY and SVC_STRIPE_WEBHOOK_SECRET, or neither (billing off)');
  }
  if (secretKey !== undefined && !/^(sk|rk)_/.test(secretKey)) {
    throw new ConfigError('SVC_STRIPE_SECRET_KEY must be a secret (sk_…) or restricted (rk_…) Stripe key');
  }
  if (webhookSecret !== undefined && !webhookSecret.startsWith('whsec_')) {
    throw new ConfigError('SVC_STRIPE_WEBHOOK_SECRET must be a webhook signing secret (whsec_…)');
  }
  const apiUrl = nonEmpty(env['SVC_STRIPE_API_URL'])?.trim();
  if (apiUrl !== undefined) checkHttpUrl(apiUrl, 'SVC_STRIPE_API_URL');
  const returnUrl = nonEmpty(env['SVC_STRIPE_RETURN_URL'])?.trim() ?? defaultReturnUrl(host, port);
  checkHttpUrl(returnUrl, 'SVC_STRIPE_RETURN_URL');
  return { secretKey, webhookSecret, apiUrl, returnUrl };
}

/** A browser cannot open a wildcard address, so 0.0.0.0 and :: become the loopback address. */
function defaultReturnUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  const hostPart = reachable.includes(':') ? `[${reachable}]` : reachable;
  return `http://${hostPart}:${port === 0 ? DEFAULT_PORT : port}/billing/return`;
}

function checkHttpUrl(value: string, name: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name} must be an http(s) URL, got "${value}"`);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** Creates the data directory private to the daemon's user (it holds the database and the JWT secret). */
export function ensureDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
}

/**
 * The HS256 secret: SVC_JWT_SECRET when set, else the one kept in `<dataDir>/jwt-secret`, created with 32
 * random bytes on first start. Keeping it on disk means sessions survive a restart.
 */
export function loadJwtSecret(config: Pick<DaemonConfig, 'dataDir' | 'jwtSecret'>): string {
  if (config.jwtSecret !== undefined) return config.jwtSecret;
  const file = path.join(config.dataDir, JWT_SECRET_FILE);
  try {
    const stored = readFileSync(file, 'utf8').trim();
    if (stored.length < MIN_JWT_SECRET_LENGTH) throw new ConfigError(`${file} holds a secret that is too short; delete it to make a new one`);
    return stored;
  } catch (error) {
    if (!isMissingFile(error)) throw error;
  }
  const secret = randomBytes(32).toString('hex');
  // 'wx' fails if another process created the file meanwhile; then that one's secret wins.
  try {
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return loadJwtSecret(config);
    throw error;
  }
  // The mode given to writeFileSync is filtered by the umask; chmod makes 0600 exact.
  chmodSync(file, 0o600);
  return secret;
}

function isMissingFile(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}
