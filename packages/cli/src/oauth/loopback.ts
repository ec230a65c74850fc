import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// The redirect end of an OAuth sign-in (RFC 8252 §7.3): a listener on 127.0.0.1 and a port the system picks, which
// takes the one answer at /callback, checks its `state`, and closes. Only the loopback interface is bound, so no other
// machine can deliver a code; the state check turns away a redirect this sign-in did not start.

export interface Loopback {
  /** `http://127.0.0.1:<port>/callback`, registered with the authorization server and sent in the request. */
  redirectUrl: string;
  /** The authorization code, once the browser comes back with it; rejects on an error answer, a state mismatch, the timeout or Ctrl-C. */
  code: Promise<string>;
  close(): Promise<void>;
}

export class SignInError extends Error {
  override name = 'SignInError';
}

/** How long the browser has to come back: a person signs in, perhaps with a second factor. */
export const SIGN_IN_TIMEOUT_MS = 5 * 60_000;

export async function startLoopback(options: { state: string; signal: AbortSignal; timeoutMs?: number }): Promise<Loopback> {
  let settle: { resolve: (code: string) => void; reject: (error: Error) => void };
  const code = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  // Awaited later by the caller; this keeps an early failure (Ctrl-C before the browser opens) from being unhandled.
  code.catch(() => undefined);

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    // A browser may also ask for /favicon.ico; only the callback counts.
    if (req.method !== 'GET' || url.pathname !== '/callback') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    const outcome = callbackOutcome(url.searchParams, options.state);
    // Plain text: nothing the authorization server sent is rendered as markup.
    res.writeHead(outcome instanceof Error ? 400 : 200, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
    res.end(outcome instanceof Error ? `svc: sign-in failed: ${outcome.message}\n` : 'svc: signed in. You can close this tab and go back to the terminal.\n');
    if (outcome instanceof Error) settle.reject(outcome);
    else settle.resolve(outcome);
    server.close();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });

  const timeoutMs = options.timeoutMs ?? SIGN_IN_TIMEOUT_MS;
  const timer = setTimeout(() => settle.reject(new SignInError(`no answer from the browser within ${timeoutMs / 60_000} minutes`)), timeoutMs);
  timer.unref();
  const onAbort = () => settle.reject(new SignInError('interrupted'));
  options.signal.addEventListener('abort', onAbort, { once: true });
  if (options.signal.aborted) onAbort();

  const { port } = server.address() as AddressInfo;
  return {
    redirectUrl: `http://127.0.0.1:${port}/callback`,
    code,
    close: async () => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The code from the redirect's query, or why there is none (RFC 6749 §4.1.2: `code` and `state`, or `error`). */
function callbackOutcome(params: URLSearchParams, state: string): string | SignInError {
  if (params.get('state') !== state) return new SignInError('the answer does not carry the state this sign-in sent (a stale or forged redirect)');
  const error = params.get('error');
  if (error !== null) {
    const description = params.get('error_description');
    return new SignInError(`the authorization server answered ${clip(error)}${description ? `: ${clip(description)}` : ''}`);
  }
  const code = params.get('code');
  return code ? code : new SignInError('the answer has no authorization code');
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
