import type { EventSourceMessage } from 'eventsource-parser';
import { ApiClient, ApiError } from '../client/api-client.js';
import type { RequestOptions } from '../client/api-client.js';
import { CliError } from '../client/run.js';
import type { CommandIo } from '../terminal.js';
import { resolveServer } from './profiles.js';
import { openCredentialStore } from './store.js';
import type { CredentialKind, CredentialStore, OpenStoreOptions } from './store.js';

// The one way a command gets a client for a server and a credential (DESIGN.md "Configuration": SVC_SERVER,
// SVC_TOKEN and SVC_API_KEY take precedence over the keychain, so CI needs no keychain at all).

export const SESSION_EXPIRED = 'session expired: run `svc login`';

/**
 * SVC_TOKEN wins over the stored session, so `svc login` would not help while it is set: the fix is to unset it (and
 * sign in) or to put a fresh token in it.
 */
export const ENV_SESSION_REJECTED = 'the session token in SVC_TOKEN has expired or was refused: unset SVC_TOKEN (then `svc login`) or renew it';

function sessionExpiredError(source: CredentialSource): CliError {
  return new CliError(source === 'SVC_TOKEN' ? ENV_SESSION_REJECTED : SESSION_EXPIRED, 'SESSION_EXPIRED');
}

export type CredentialSource = 'SVC_TOKEN' | 'SVC_API_KEY' | 'keychain' | 'file';

export interface FoundCredential {
  token: string;
  source: CredentialSource;
}

const ENV_VARIABLE: Record<CredentialKind, 'SVC_TOKEN' | 'SVC_API_KEY'> = { session: 'SVC_TOKEN', 'api-key': 'SVC_API_KEY' };

/**
 * The credential of `kind` for `server`: the environment first, then the store. The store is opened only when the
 * environment has none, so a CI job with SVC_API_KEY never probes for a keychain.
 */
export async function findCredential(
  io: Pick<CommandIo, 'env' | 'stderr'>,
  server: string,
  kind: CredentialKind,
  openStore: () => Promise<CredentialStore> = () => openCredentialStore(io),
): Promise<FoundCredential | undefined> {
  const variable = ENV_VARIABLE[kind];
  const fromEnv = io.env[variable]?.trim();
  if (fromEnv) return { token: fromEnv, source: variable };
  const store = await openStore();
  const stored = await store.get(server, kind);
  return stored === undefined ? undefined : { token: stored, source: store.kind };
}

/** The JWT's payload, read without verifying it: only for showing who is signed in and until when. */
export function sessionClaims(token: string): { email?: string; sub?: string; exp?: number } | undefined {
  const payload = token.split('.')[1];
  if (payload === undefined) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    return {
      ...(typeof claims['email'] === 'string' ? { email: claims['email'] } : {}),
      ...(typeof claims['sub'] === 'string' ? { sub: claims['sub'] } : {}),
      ...(typeof claims['exp'] === 'number' ? { exp: claims['exp'] } : {}),
    };
  } catch {
    return undefined;
  }
}

export function sessionExpired(token: string, now: Date): boolean {
  const exp = sessionClaims(token)?.exp;
  return exp !== undefined && exp * 1000 <= now.getTime();
}

/**
 * A client for session routes whose 401 means one thing to the user: sign in again. Any other error passes as is.
 */
export class SessionApiClient extends ApiClient {
  constructor(
    server: string,
    token: string,
    /** Where the token came from: what to tell the user when the server refuses it. */
    private readonly source: CredentialSource,
  ) {
    super(server, token);
  }

  override async request<T>(method: string, path: string, options?: RequestOptions): Promise<T> {
    try {
      return await super.request<T>(method, path, options);
    } catch (error) {
      throw this.expiredSession(error);
    }
  }

  override async *events(path: string, options?: { signal?: AbortSignal; retries?: number }): AsyncGenerator<EventSourceMessage> {
    try {
      yield* super.events(path, options);
    } catch (error) {
      throw this.expiredSession(error);
    }
  }

  private expiredSession(error: unknown): unknown {
    return error instanceof ApiError && error.status === 401 ? sessionExpiredError(this.source) : error;
  }
}

/**
 * A client for the server of --server > SVC_SERVER > the default profile > http://127.0.0.1:7878, with the session
 * (SVC_TOKEN or stored) or the API key (SVC_API_KEY or stored). No credential: "not signed in" (exit 2). A session
 * whose expiry has passed is refused here, before a request; one the server refuses (401) gives the same line.
 */
export async function connect(io: CommandIo, options: { server?: string }, credential: CredentialKind, storeOptions: OpenStoreOptions = {}): Promise<ApiClient> {
  const { server } = await resolveServer(io, options);
  const found = await findCredential(io, server, credential, () => openCredentialStore(io, storeOptions));
  if (found === undefined) {
    if (credential === 'api-key') {
      throw new CliError(`no API key for ${server}: set SVC_API_KEY, or run \`svc keys create --label <name> --save\``);
    }
    throw new CliError(`not signed in to ${server}: run \`svc login\``);
  }
  if (credential === 'api-key') return new ApiClient(server, found.token);
  if (sessionExpired(found.token, io.clock())) throw sessionExpiredError(found.source);
  return new SessionApiClient(server, found.token, found.source);
}
