import { randomBytes } from 'node:crypto';
import { auth, extractWWWAuthenticateParams, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { proxyAgent, proxyFromEnv, SVC_VERSION, visibleLine } from '@svc/core';
import { fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';
import type { CredentialStore } from '../credentials/store.js';
import type { CommandIo } from '../terminal.js';
import { systemBrowser, type OpenBrowser } from './browser.js';
import { SignInError, startLoopback } from './loopback.js';

// OAuth 2.1 sign-in to a remote MCP endpoint, done by the official SDK's client (`auth()`): protected-resource
// metadata (RFC 9728), authorization-server metadata (RFC 8414 / OpenID discovery), dynamic client registration
// (RFC 7591), PKCE S256 and refresh. This file supplies what the SDK leaves to the client: the loopback redirect, the
// browser, and keeping the tokens in svc's credential store (keychain, else the 0600 file) under "<endpoint>:oauth".

/** What is kept per endpoint: the client svc registered and the tokens, each stamped with its issuer by the SDK. */
export interface StoredOAuth {
  client: OAuthClientInformationMixed;
  tokens: OAuthTokens;
  /** ISO time the access token expires, from `expires_in` and the command's clock; absent: the server gave none. */
  expiresAt?: string;
}

export interface OAuthContext {
  io: Pick<CommandIo, 'stderr' | 'signal' | 'clock' | 'env'>;
  store: CredentialStore;
  /** Opens the authorization URL; tests pass one that plays the browser. Default: the platform's opener. */
  openBrowser?: OpenBrowser;
}

/** The endpoint's URL as the key of its stored tokens: the href, so `https://x/mcp` and `https://X/mcp` are one. */
function key(endpoint: URL): string {
  return endpoint.href;
}

export async function loadTokens(store: CredentialStore, endpoint: URL): Promise<StoredOAuth | undefined> {
  const text = await store.get(key(endpoint), 'oauth');
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as Partial<StoredOAuth>;
    // Something unreadable is treated as nothing stored: the next sign-in overwrites it.
    return parsed.client && parsed.tokens?.access_token ? (parsed as StoredOAuth) : undefined;
  } catch {
    return undefined;
  }
}

export async function forgetTokens(store: CredentialStore, endpoint: URL): Promise<boolean> {
  return store.delete(key(endpoint), 'oauth');
}

/** A token that expires within this margin is refreshed first: a scan takes up to a minute (DEFAULT_REMOTE_LIMITS). */
const EXPIRY_MARGIN_MS = 60_000;

export function isFresh(stored: StoredOAuth, now: Date): boolean {
  return stored.expiresAt === undefined || Date.parse(stored.expiresAt) - EXPIRY_MARGIN_MS > now.getTime();
}

/** Raised by the provider when refreshing would need a browser: the caller decides whether one may be opened. */
class BrowserNeeded extends Error {}

/** The SDK's view of one sign-in or refresh; nothing reaches the store until the whole exchange succeeded. */
class SvcOAuthProvider implements OAuthClientProvider {
  #client: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier = '';

  constructor(
    readonly redirectUrl: string,
    private readonly authorizationState: string,
    private readonly onAuthorize: ((url: URL) => Promise<void>) | undefined,
    stored?: StoredOAuth,
  ) {
    this.#client = stored?.client;
    this.#tokens = stored?.tokens;
  }

  get clientMetadata(): OAuthClientMetadata {
    // A public native client (RFC 8252): no secret, PKCE, the loopback redirect.
    return {
      client_name: 'svc (MCP security scanner)',
      software_id: 'svc',
      software_version: SVC_VERSION,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    return this.authorizationState;
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.#client;
  }
  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.#client = client;
  }
  tokens(): OAuthTokens | undefined {
    return this.#tokens;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.#tokens = tokens;
  }
  async redirectToAuthorization(url: URL): Promise<void> {
    if (!this.onAuthorize) throw new BrowserNeeded();
    await this.onAuthorize(url);
  }
  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }
  codeVerifier(): string {
    return this.#verifier;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') this.#client = undefined;
    if (scope === 'all' || scope === 'tokens') this.#tokens = undefined;
  }

  record(now: Date): StoredOAuth {
    const tokens = this.#tokens!;
    const expiresIn = Number(tokens.expires_in);
    return {
      client: this.#client!,
      tokens,
      ...(Number.isFinite(expiresIn) && expiresIn > 0 ? { expiresAt: new Date(now.getTime() + expiresIn * 1000).toISOString() } : {}),
    };
  }
}

/** Fetch for the OAuth conversation: the command's Ctrl-C and a bound on each request, so a silent server cannot hang it. */
/** The SDK's fetch for discovery, registration and tokens: bounded in time, through the user's HTTP(S)_PROXY. */
function oauthFetch(io: OAuthContext['io']): FetchLike {
  const proxy = proxyFromEnv(io.env);
  const dispatcher = proxy && proxyAgent(proxy);
  return async (url, init) =>
    (await undiciFetch(url, {
      ...(init as UndiciRequestInit),
      signal: AbortSignal.any([io.signal, AbortSignal.timeout(30_000)]),
      ...(dispatcher && { dispatcher }),
    })) as unknown as Response;
}

/**
 * A fresh access token from the stored refresh token, saved; undefined when there is none or the authorization server
 * refused it (the endpoint then needs a new sign-in). Never opens a browser.
 */
export async function refreshTokens(endpoint: URL, stored: StoredOAuth, context: OAuthContext): Promise<StoredOAuth | undefined> {
  if (!stored.tokens.refresh_token) return undefined;
  // The redirect URL is not used by a refresh; the SDK asks for one only to know this is an interactive client.
  const provider = new SvcOAuthProvider(stored.client && 'redirect_uris' in stored.client ? String(stored.client.redirect_uris[0]) : 'http://127.0.0.1/callback', '', undefined, stored);
  try {
    if ((await auth(provider, { serverUrl: endpoint, fetchFn: oauthFetch(context.io) })) !== 'AUTHORIZED') return undefined;
  } catch (error) {
    if (error instanceof BrowserNeeded) return undefined;
    context.io.stderr.write(`svc: could not refresh the OAuth token for ${endpoint.href}: ${visibleLine(message(error))}\n`);
    return undefined;
  }
  const refreshed = provider.record(context.io.clock());
  await context.store.set(key(endpoint), 'oauth', JSON.stringify(refreshed));
  return refreshed;
}

/**
 * Signs in to the endpoint in the browser and stores the tokens. Each sign-in registers the client anew: its
 * redirect URL has a new port every time, which an authorization server may check exactly. Throws SignInError.
 */
export async function signIn(endpoint: URL, context: OAuthContext): Promise<StoredOAuth> {
  const fetchFn = oauthFetch(context.io);
  const state = randomBytes(24).toString('base64url');
  const loopback = await startLoopback({ state, signal: context.io.signal });
  try {
    const open = context.openBrowser ?? systemBrowser;
    const provider = new SvcOAuthProvider(loopback.redirectUrl, state, async (url) => {
      context.io.stderr.write(`svc: ${endpoint.href} asks you to sign in; opening your browser at\n  ${url.href}\n`);
      await open(url.href).catch(() => context.io.stderr.write('svc: could not open a browser; open the address above yourself\n'));
      context.io.stderr.write('svc: waiting for the sign-in to finish in the browser (Ctrl-C stops)\n');
    });
    const challenge = await readChallenge(endpoint, fetchFn);
    const options = { serverUrl: endpoint, fetchFn, ...challenge };
    if ((await auth(provider, options)) === 'REDIRECT') {
      const code = await loopback.code;
      await auth(provider, { ...options, authorizationCode: code });
    }
    const record = provider.record(context.io.clock());
    await context.store.set(key(endpoint), 'oauth', JSON.stringify(record));
    return record;
  } catch (error) {
    throw error instanceof SignInError ? error : new SignInError(message(error));
  } finally {
    await loopback.close();
  }
}

/**
 * The endpoint's `WWW-Authenticate` challenge (its resource metadata URL and scope, RFC 9728 §5.1), which the MCP
 * authorization spec has clients prefer over guessing the well-known URL. An `initialize` without a token draws it.
 */
async function readChallenge(endpoint: URL, fetchFn: FetchLike): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
  try {
    const response = await fetchFn(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'svc', version: SVC_VERSION } } }),
      redirect: 'manual',
    });
    await response.body?.cancel();
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
  } catch {
    // Discovery falls back to the well-known URLs.
    return {};
  }
}

function message(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
