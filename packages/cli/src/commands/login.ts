import { createInterface } from 'node:readline';
import { ApiClient } from '../client/api-client.js';
import { CliError } from '../client/run.js';
import { connect, findCredential, sessionClaims, sessionExpired } from '../credentials/connect.js';
import type { CredentialSource } from '../credentials/connect.js';
import { rememberServer, resolveServer } from '../credentials/profiles.js';
import type { ServerSource } from '../credentials/profiles.js';
import { openCredentialStore } from '../credentials/store.js';
import type { CredentialStore, OpenStoreOptions } from '../credentials/store.js';
import type { CommandIo } from '../terminal.js';
import { printJson } from '../ui/output.js';

// Sign-in against a daemon or the hosted service (DESIGN.md: POST /auth/login mails a one-time code, POST
// /auth/verify returns the session JWT), and what the CLI holds for a server.

export interface ServerOptions {
  server?: string;
  json?: boolean;
}

export interface LoginOptions extends ServerOptions {
  email?: string;
  code?: string;
}

/** Test seam: the store the commands use (default: keychain, else the file). */
export interface StoreSeam {
  store?: OpenStoreOptions;
}

/**
 * One line from stdin: typed at a prompt on a terminal, or piped (`echo 123456 | svc login --email …`). Resolves
 * undefined when stdin ends first.
 */
async function readLine(io: CommandIo, prompt: string): Promise<string | undefined> {
  const input = io.stdin;
  if (input === undefined) return undefined;
  const terminal = input.isTTY === true;
  if (terminal) io.stderr.write(prompt);
  const lines = createInterface({ input, terminal: false });
  try {
    return await new Promise<string | undefined>((resolve, reject) => {
      const abort = () => reject(io.signal.reason instanceof Error ? io.signal.reason : new Error('interrupted'));
      if (io.signal.aborted) return abort();
      io.signal.addEventListener('abort', abort, { once: true });
      lines.once('line', (line) => resolve(line.trim()));
      lines.once('close', () => resolve(undefined));
    });
  } finally {
    lines.close();
  }
}

interface Verified {
  token: string;
  expires_at: string;
  user: { user_id: string; email: string; tier: string };
}

export async function loginCommand(io: CommandIo, options: LoginOptions, seam: StoreSeam = {}): Promise<number> {
  const { server } = await resolveServer(io, options);
  let email = options.email?.trim();
  if (!email) {
    if (io.stdin?.isTTY !== true) throw new CliError('give the address with --email (there is no terminal to ask on)');
    email = await readLine(io, 'email: ');
    if (!email) throw new CliError('no email address given');
  }
  // Opened before anything is mailed: a missing keychain with SVC_CREDENTIAL_STORE=keychain fails before a code is spent.
  const store = await openCredentialStore(io, seam.store);
  const client = new ApiClient(server);
  await client.request('POST', '/auth/login', { body: { email }, signal: io.signal });

  let code = options.code?.trim();
  if (!code) {
    io.stderr.write(`svc: a sign-in code was mailed to ${email}\n`);
    code = await readLine(io, 'code: ');
    if (!code) throw new CliError('no sign-in code given: pass --code, type it at the prompt, or pipe it on stdin');
  }
  const verified = await client.request<Verified>('POST', '/auth/verify', { body: { email, code }, signal: io.signal });
  await store.set(server, 'session', verified.token);
  await rememberServer(io.env, server);

  if (options.json) {
    printJson(io, { server, email: verified.user.email, user_id: verified.user.user_id, tier: verified.user.tier, expires_at: verified.expires_at, store: store.kind });
  } else {
    io.stdout.write(`signed in to ${server} as ${verified.user.email} (${verified.user.tier}); the session is valid until ${verified.expires_at}, kept in the ${store.kind === 'keychain' ? 'OS keychain' : 'credentials file'}\n`);
  }
  return 0;
}

export interface LogoutOptions extends ServerOptions {
  /** Also forget the stored API key of the server. */
  all?: boolean;
}

/** Forgets the stored session (and with --all the stored API key). SVC_TOKEN and SVC_API_KEY are the caller's to unset. */
export async function logoutCommand(io: CommandIo, options: LogoutOptions, seam: StoreSeam = {}): Promise<number> {
  const { server } = await resolveServer(io, options);
  const store = await openCredentialStore(io, seam.store);
  const session = await store.delete(server, 'session');
  const apiKey = options.all === true ? await store.delete(server, 'api-key') : false;
  if (options.json) {
    printJson(io, { server, removed: { session, api_key: apiKey } });
  } else {
    const removed = [session ? 'the session' : undefined, apiKey ? 'the API key' : undefined].filter(Boolean).join(' and ');
    io.stdout.write(removed ? `signed out of ${server}: removed ${removed}\n` : `nothing stored for ${server}; already signed out\n`);
  }
  if (io.env.SVC_TOKEN) io.stderr.write('svc: SVC_TOKEN is still set in the environment and still signs you in\n');
  return 0;
}

interface Profile {
  email: string;
  user_id: string;
  tier: string;
  display_name?: string | null;
  org_id?: string | null;
}

export async function whoamiCommand(io: CommandIo, options: ServerOptions, seam: StoreSeam = {}): Promise<number> {
  const client = await connect(io, options, 'session', seam.store);
  const me = await client.request<Profile>('GET', '/me', { signal: io.signal });
  if (options.json) {
    printJson(io, { server: client.server, ...me });
  } else {
    const team = me.org_id ? `, team ${me.org_id}` : '';
    io.stdout.write(`${me.email} (${me.tier}${team}) on ${client.server}\n`);
  }
  return 0;
}

interface CredentialStatus {
  present: boolean;
  source?: CredentialSource;
  /** Session: who and until when (read from the token, not checked with the server). */
  email?: string;
  expires_at?: string;
  expired?: boolean;
  /** API key: the parts key lists show, never the secret. */
  prefix?: string;
  last4?: string;
}

function describeSession(token: string, now: Date): Omit<CredentialStatus, 'present' | 'source'> {
  const claims = sessionClaims(token);
  return {
    ...(claims?.email === undefined ? {} : { email: claims.email }),
    ...(claims?.exp === undefined ? {} : { expires_at: new Date(claims.exp * 1000).toISOString() }),
    expired: sessionExpired(token, now),
  };
}

/** What a key list shows: `svc_AbCd…wxyz`. */
export function maskKey(key: string): { prefix: string; last4: string } {
  return { prefix: key.slice(0, 8), last4: key.slice(-4) };
}

/**
 * Which server, which store and why, and which credentials are there. It asks no server: it works offline and
 * says what a command would send. Secrets are never printed.
 */
export async function authStatusCommand(io: CommandIo, options: ServerOptions, seam: StoreSeam = {}): Promise<number> {
  const { server, source } = await resolveServer(io, options);
  let store: CredentialStore | undefined;
  let storeError: string | undefined;
  try {
    store = await openCredentialStore(io, seam.store);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    storeError = error.message;
  }
  const lookup = async (kind: 'session' | 'api-key'): Promise<CredentialStatus> => {
    const found = await findCredential(io, server, kind, async () => {
      if (store === undefined) throw new CliError(storeError ?? 'no credential store');
      return store;
    }).catch((error: unknown) => {
      // Without a store only the environment can hold a credential; the store's failure is reported once below.
      if (error instanceof CliError) return undefined;
      throw error;
    });
    if (found === undefined) return { present: false };
    return { present: true, source: found.source, ...(kind === 'session' ? describeSession(found.token, io.clock()) : maskKey(found.token)) };
  };
  const session = await lookup('session');
  const apiKey = await lookup('api-key');

  if (options.json) {
    printJson(io, {
      server,
      server_source: source,
      store: store === undefined ? { kind: null, error: storeError } : { kind: store.kind, description: store.description },
      session,
      api_key: apiKey,
    });
    return 0;
  }
  const lines = [
    `server:   ${server} (${describeServerSource(source)})`,
    `store:    ${store === undefined ? `none: ${storeError}` : store.description}`,
  ];
  lines.push(`session:  ${formatSession(session)}`, `api key:  ${formatKey(apiKey)}`);
  io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

function describeServerSource(source: ServerSource): string {
  switch (source) {
    case '--server':
      return 'from --server';
    case 'SVC_SERVER':
      return 'from SVC_SERVER';
    case 'config':
      return 'the default server in the config';
    case 'default':
      return 'the built-in default: a local svcd';
  }
}

function formatSource(source: CredentialSource | undefined): string {
  switch (source) {
    case 'SVC_TOKEN':
    case 'SVC_API_KEY':
      return `from ${source}`;
    case 'keychain':
      return 'in the OS keychain';
    case 'file':
      return 'in the credentials file';
    default:
      return '';
  }
}

function formatSession(status: CredentialStatus): string {
  if (!status.present) return 'none (run `svc login`)';
  const who = status.email === undefined ? 'present' : status.email;
  const until = status.expires_at === undefined ? '' : status.expired ? `, expired at ${status.expires_at} (run \`svc login\`)` : `, valid until ${status.expires_at}`;
  return `${who} ${formatSource(status.source)}${until}`;
}

function formatKey(status: CredentialStatus): string {
  if (!status.present) return 'none (`svc keys create --label <name> --save` stores one)';
  return `${status.prefix}…${status.last4} ${formatSource(status.source)}`;
}
