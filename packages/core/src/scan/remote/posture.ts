// What connecting showed about a remote endpoint's transport and access control. Each observation becomes a finding
// of its own rule (rules/remote-*.ts); the checks here only look, they never call a tool.

import type { RemoteObservation } from '../model.js';
import { isLoopbackHost } from '../sources/addresses.js';
import { initializeBody } from './client.js';
import type { Exchange, GuardedFetch } from './fetch.js';

/** The Origin a DNS-rebinding page would send: a site that is not the server's and not the user's client. */
export const FOREIGN_ORIGIN = 'https://evil.example';

const SESSION_PARAMETER = /^(session[-_]?id|sessionid|session|sid|mcp[-_]?session[-_]?id)$/i;

/** Checks on the URL alone: plain HTTP off this machine, a session id in the query. */
export function urlObservations(url: URL, shown: string): RemoteObservation[] {
  const observations: RemoteObservation[] = [];
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    observations.push({ kind: 'plaintext-http', url: shown, detail: `${url.protocol}//${url.host}` });
  }
  const session = [...url.searchParams.keys()].find((name) => SESSION_PARAMETER.test(name));
  if (session) observations.push({ kind: 'session-id-in-url', url: shown, detail: `query parameter ${session}` });
  return observations;
}

/** The server answered `initialize` although the request carried no credential, on a host other than this machine. */
export function noAuthObservation(url: URL, shown: string, credentials: boolean): RemoteObservation[] {
  if (credentials || isLoopbackHost(url.hostname)) return [];
  return [{ kind: 'no-auth', url: shown, detail: 'initialize succeeded without any Authorization header' }];
}

/** `Access-Control-Allow-Origin: *` (or the foreign origin echoed) with `Access-Control-Allow-Credentials: true`. */
export function corsObservations(exchanges: readonly Exchange[], shown: string): RemoteObservation[] {
  for (const exchange of exchanges) {
    const allowOrigin = exchange.headers.get('access-control-allow-origin')?.trim();
    const credentials = exchange.headers.get('access-control-allow-credentials')?.trim().toLowerCase() === 'true';
    const anyOrigin = allowOrigin === '*' || (allowOrigin !== undefined && allowOrigin === exchange.origin && exchange.origin === FOREIGN_ORIGIN);
    if (anyOrigin && credentials) {
      return [
        {
          kind: 'cors-credentials-wildcard',
          url: shown,
          detail: `Access-Control-Allow-Origin: ${allowOrigin}, Access-Control-Allow-Credentials: true (${exchange.method} answered ${exchange.status})`,
        },
      ];
    }
  }
  return [];
}

/**
 * Sends one more `initialize` as a page on another site would (DNS rebinding): with `Origin: https://evil.example`.
 * A server that accepts it does not validate Origin, which the MCP transport spec requires. The session it may have
 * opened is ended straight away.
 */
export async function probeForeignOrigin(url: URL, shown: string, headers: Record<string, string>, guard: GuardedFetch): Promise<RemoteObservation[]> {
  let response: Response;
  try {
    response = await guard.fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin: FOREIGN_ORIGIN },
      body: initializeBody(),
    });
  } catch {
    return []; // No answer to the probe says nothing about the server's Origin check.
  }
  await response.body?.cancel().catch(() => undefined);
  const session = response.headers.get('mcp-session-id');
  if (session) {
    await guard
      .fetch(url, { method: 'DELETE', headers: { ...headers, 'mcp-session-id': session } })
      .then((answer) => answer.body?.cancel())
      .catch(() => undefined);
  }
  if (response.status < 200 || response.status >= 300) return [];
  return [{ kind: 'foreign-origin-accepted', url: shown, detail: `initialize with Origin: ${FOREIGN_ORIGIN} answered HTTP ${response.status}` }];
}
