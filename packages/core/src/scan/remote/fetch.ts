// The only way a live scan talks to a remote MCP endpoint: a fetch handed to the SDK's client transports (and used
// for the posture probes) that keeps every request on the endpoint's origin, follows no redirect itself (the SDK
// follows same-origin ones, nothing else), caps the bytes of each response, applies connect and total timeouts, and
// in the daemon refuses private and loopback addresses at connect time (so DNS cannot answer differently later).
// Where private addresses are allowed (the CLI), it goes through the user's HTTP(S)_PROXY like the registry sources;
// the daemon's address check needs the endpoint's own address, which a proxy would resolve out of its sight.

import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, EnvHttpProxyAgent, fetch as undiciFetch, type Dispatcher, type RequestInit as UndiciRequestInit } from 'undici';
import { isPublicAddress } from '../sources/addresses.js';

export interface RemoteLimits {
  /** Milliseconds to open a TCP/TLS connection. */
  connectTimeoutMs: number;
  /** Milliseconds for the whole conversation: connect, initialize, every listing page and the probes. */
  totalTimeoutMs: number;
  /** Bytes one response body may have (an SSE stream counts as one response). */
  maxResponseBytes: number;
  /** Pages of one listing (`tools/list` …) followed through `nextCursor` before the listing is called incomplete. */
  maxPages: number;
}

export const DEFAULT_REMOTE_LIMITS: RemoteLimits = {
  connectTimeoutMs: 10_000,
  totalTimeoutMs: 60_000,
  maxResponseBytes: 4 * 1024 * 1024,
  maxPages: 20,
};

/** Proxy settings as curl and npm read them (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`, in either case). */
export interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

/** The proxy settings of an environment; undefined when it names no proxy. */
export function proxyFromEnv(env: Record<string, string | undefined> | undefined): ProxySettings | undefined {
  const read = (name: string) => env?.[name.toLowerCase()] || env?.[name] || undefined;
  const settings = { httpProxy: read('HTTP_PROXY'), httpsProxy: read('HTTPS_PROXY'), noProxy: read('NO_PROXY') };
  return settings.httpProxy || settings.httpsProxy ? settings : undefined;
}

/** A dispatcher that sends requests through the proxy of `settings`, and those for `noProxy` hosts directly. */
export function proxyAgent(settings: ProxySettings, options: Omit<EnvHttpProxyAgent.Options, 'httpProxy' | 'httpsProxy' | 'noProxy'> = {}): EnvHttpProxyAgent {
  // Empty strings, not undefined: undici would fall back to this process's own environment.
  return new EnvHttpProxyAgent({ ...options, httpProxy: settings.httpProxy ?? '', httpsProxy: settings.httpsProxy ?? '', noProxy: settings.noProxy ?? '' });
}

/** What one response said, for the posture checks (statuses, the auth challenge, CORS and session headers). */
export interface Exchange {
  method: string;
  status: number;
  origin?: string;
  headers: Headers;
}

const TLS_CODES = /^(CERT_|ERR_TLS_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH|ERR_SSL_)/;

export class RemoteFetchError extends Error {
  override name = 'RemoteFetchError';
}

/** A fetch bound to one endpoint; it records what it saw so the scan can judge the server's posture afterwards. */
export class GuardedFetch {
  readonly exchanges: Exchange[] = [];
  /** The certificate or TLS error the connection failed with, e.g. `CERT_HAS_EXPIRED`. */
  tlsError?: string;
  /** The network error of the last request that got no answer (`ECONNREFUSED`, a refused address …). */
  networkError?: string;
  readonly #origin: string;
  readonly #agent: Dispatcher;
  readonly #signal: AbortSignal;
  readonly #limits: RemoteLimits;

  /** `proxy` is used only with `allowPrivate`: behind a proxy, the address connected to is the proxy's. */
  constructor(endpoint: URL, options: { limits: RemoteLimits; allowPrivate: boolean; proxy?: ProxySettings; signal?: AbortSignal }) {
    this.#origin = endpoint.origin;
    this.#limits = options.limits;
    const total = AbortSignal.timeout(options.limits.totalTimeoutMs);
    this.#signal = options.signal ? AbortSignal.any([options.signal, total]) : total;
    const timeouts = { headersTimeout: options.limits.totalTimeoutMs, bodyTimeout: options.limits.totalTimeoutMs };
    this.#agent =
      options.allowPrivate && options.proxy
        ? proxyAgent(options.proxy, { connect: { timeout: options.limits.connectTimeoutMs }, ...timeouts })
        : new Agent({ connect: { timeout: options.limits.connectTimeoutMs, ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup }) }, ...timeouts });
    const host = endpoint.hostname.replace(/^\[|\]$/g, '');
    // A literal address is never looked up, so it is checked here.
    if (!options.allowPrivate && isIP(host) && !isPublicAddress(host)) {
      throw new RemoteFetchError(`${host} is not a public address (the operator allows private ones with SVC_REMOTE_ALLOW_PRIVATE=1)`);
    }
  }

  readonly fetch = async (input: string | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input instanceof URL ? input.href : input);
    if (url.origin !== this.#origin) throw new RemoteFetchError(`refused a request to ${url.origin}: a scan talks only to ${this.#origin}`);
    const signal = init.signal ? AbortSignal.any([init.signal, this.#signal]) : this.#signal;
    let response: Response;
    try {
      response = (await undiciFetch(url, {
        ...(init as UndiciRequestInit),
        // Redirects come back to the SDK, which follows only those that stay on the origin.
        redirect: 'manual',
        signal,
        dispatcher: this.#agent,
      })) as unknown as Response;
    } catch (error) {
      const code = causeCode(error);
      if (code && TLS_CODES.test(code)) this.tlsError = code;
      else this.networkError = code ?? (error instanceof Error ? error.message : String(error));
      throw error;
    }
    const headers = new Headers(init.headers);
    this.exchanges.push({ method: init.method ?? 'GET', status: response.status, origin: headers.get('origin') ?? undefined, headers: response.headers });
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > this.#limits.maxResponseBytes) {
      await response.body?.cancel();
      throw new RemoteFetchError(`a response of ${declared} bytes is over the ${this.#limits.maxResponseBytes}-byte limit`);
    }
    return response.body ? capped(response, this.#limits.maxResponseBytes) : response;
  };

  async close(): Promise<void> {
    await this.#agent.close().catch(() => undefined);
  }
}

/** The response with a body that errors once more than `max` bytes have arrived. */
function capped(response: Response, max: number): Response {
  let seen = 0;
  const meter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > max) controller.error(new RemoteFetchError(`a response is over the ${max}-byte limit`));
      else controller.enqueue(chunk);
    },
  });
  return new Response(response.body!.pipeThrough(meter), { status: response.status, statusText: response.statusText, headers: response.headers });
}

function causeCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** Resolves like the system does, then refuses the connection unless every address is public. */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const refused = addresses.find((entry) => !isPublicAddress(entry.address));
    if (addresses.length === 0 || refused) {
      const problem = Object.assign(new Error(`${hostname} resolves to ${refused?.address ?? 'no address'}, which is not public`), { code: 'ESVC_PRIVATE_ADDRESS' });
      return callback(problem, '', 0);
    }
    if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};
