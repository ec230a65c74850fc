import { mkdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../client/run.js';
import type { CommandIo } from '../terminal.js';
import { writeFileAtomic } from '../write-atomic.js';

// Which server the account commands talk to. Servers are remembered in config.json (no secrets in it: those are in
// the credential store), so `svc login --server https://svc.example.com` once makes later commands go there.

export const DEFAULT_SERVER = 'http://127.0.0.1:7878';

/**
 * SVC_CONFIG_DIR, else $XDG_CONFIG_HOME/svc, else ~/.config/svc (%APPDATA%\svc on Windows). SVC_CONFIG_DIR exists so
 * tests and CI jobs never touch the user's real config; XDG_CONFIG_HOME is honoured because Linux users set it.
 */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.SVC_CONFIG_DIR) return env.SVC_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'svc');
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'svc');
  return join(homedir(), '.config', 'svc');
}

/** Creates the config dir private to the user: it holds the file credential store too. */
export async function ensureConfigDir(env: NodeJS.ProcessEnv): Promise<string> {
  const dir = configDir(env);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return dir;
}

export interface CliConfig {
  default_server?: string;
  /** Servers signed in to or set, oldest first. */
  servers: string[];
}

/**
 * One spelling per server, so `http://host:7878/` and `http://HOST:7878` share credentials: the URL's origin plus
 * its path without a trailing slash (a hosted service may live under a path).
 */
export function normalizeServer(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`not a server URL: ${value} (expected http(s)://host[:port])`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`not a server URL: ${value} (expected http(s)://host[:port])`);
  if (url.username || url.password) throw new CliError('a server URL must not carry a user or password; sign in with `svc login`');
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${path}`;
}

function configPath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'config.json');
}

export async function readConfig(env: NodeJS.ProcessEnv): Promise<CliConfig> {
  let text: string;
  try {
    text = await readFile(configPath(env), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { servers: [] };
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError(`${configPath(env)} is not valid JSON; fix or delete it`);
  }
  const object = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  return {
    ...(typeof object['default_server'] === 'string' ? { default_server: object['default_server'] } : {}),
    servers: Array.isArray(object['servers']) ? object['servers'].filter((s): s is string => typeof s === 'string') : [],
  };
}

export async function writeConfig(env: NodeJS.ProcessEnv, config: CliConfig): Promise<void> {
  await ensureConfigDir(env);
  await writeFileAtomic(configPath(env), `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
}

/** Remembers a server; it becomes the default when there is none yet (or when `makeDefault`). */
export async function rememberServer(env: NodeJS.ProcessEnv, server: string, makeDefault = false): Promise<CliConfig> {
  const config = await readConfig(env);
  const next: CliConfig = {
    ...config,
    servers: config.servers.includes(server) ? config.servers : [...config.servers, server],
    ...(makeDefault || config.default_server === undefined ? { default_server: server } : {}),
  };
  await writeConfig(env, next);
  return next;
}

export type ServerSource = '--server' | 'SVC_SERVER' | 'config' | 'default';

/** --server > SVC_SERVER > the default in config.json > http://127.0.0.1:7878 (a local svcd). */
export async function resolveServer(io: Pick<CommandIo, 'env'>, options: { server?: string }): Promise<{ server: string; source: ServerSource }> {
  if (options.server !== undefined) return { server: normalizeServer(options.server), source: '--server' };
  if (io.env.SVC_SERVER) return { server: normalizeServer(io.env.SVC_SERVER), source: 'SVC_SERVER' };
  const config = await readConfig(io.env);
  if (config.default_server !== undefined) return { server: normalizeServer(config.default_server), source: 'config' };
  return { server: DEFAULT_SERVER, source: 'default' };
}
