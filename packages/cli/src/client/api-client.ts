import { parseErrorEnvelope, SVC_VERSION, type ErrorDetails } from '@svc/core';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

// The CLI's one way to talk to a daemon or the hosted service (DESIGN.md: client/ parses the error envelope). Every
// account, team, billing and remote-scan command goes through ApiClient, so errors look the same everywhere.

/** An answer of the server that is an error: its envelope's code, message and details, and the HTTP status. */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetails,
    /** Seconds from Retry-After on a 429. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** The server could not be reached at all (refused, DNS, TLS, timeout): nothing was answered. */
export class ServerUnreachableError extends Error {
  override readonly name = 'ServerUnreachableError';

  constructor(
    readonly server: string,
    reason: string,
  ) {
    super(`cannot reach ${server}: ${reason}`);
  }
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  signal?: AbortSignal;
}

/** How long a request may take before the CLI gives up (streams have no limit). */
const REQUEST_TIMEOUT_MS = 30_000;

export class ApiClient {
  /**
   * `server`: base URL (`http://127.0.0.1:7878`); `token`: the bearer credential (session JWT or API key) or none.
   * `fetchImpl` is there for a proxy-aware fetch, not for tests: tests talk to a real svcd.
   */
  constructor(
    readonly server: string,
    private readonly token?: string,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  /**
   * Sends one request and returns the data: the bare body on /api/v1/* and the envelope's `data` elsewhere
   * (DESIGN.md "Bodies"). Throws ApiError for an error answer and ServerUnreachableError when there is none.
   */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.send(method, path, options, { accept: 'application/json' });
    const body = await readJson(response);
    if (!response.ok) throw toApiError(response, body);
    if (path.startsWith('/api/v1/')) return body as T;
    if (typeof body !== 'object' || body === null || !('data' in body)) {
      throw new ApiError(response.status, 'BAD_RESPONSE', `${this.server} answered ${method} ${path} with something that is not the svc envelope`);
    }
    return (body as { data: T }).data;
  }

  /**
   * The server-sent events of `path`, in order, until the server ends the stream or `signal` aborts. A dropped
   * connection is resumed with Last-Event-ID (up to `retries` times in a row), so no event is lost or repeated.
   */
  async *events(path: string, options: { signal?: AbortSignal; retries?: number } = {}): AsyncGenerator<EventSourceMessage> {
    let lastEventId: string | undefined;
    let failures = 0;
    for (;;) {
      const queue: EventSourceMessage[] = [];
      const parser = createParser({ onEvent: (event) => queue.push(event) });
      let ended = false;
      try {
        const response = await this.send('GET', path, { signal: options.signal }, {
          accept: 'text/event-stream',
          ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
        }, false);
        if (!response.ok) throw toApiError(response, await readJson(response));
        const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          parser.feed(value);
          failures = 0;
          for (let event = queue.shift(); event !== undefined; event = queue.shift()) {
            if (event.id !== undefined) lastEventId = event.id;
            yield event;
          }
        }
        ended = true;
      } catch (error) {
        if (error instanceof ApiError || options.signal?.aborted === true || ++failures > (options.retries ?? 3)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500 * failures));
      }
      if (ended) return;
    }
  }

  private async send(
    method: string,
    path: string,
    { body, query, signal }: RequestOptions,
    headers: Record<string, string>,
    timeout = true,
  ): Promise<Response> {
    const url = new URL(path, this.server);
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const signals = [signal, timeout ? AbortSignal.timeout(REQUEST_TIMEOUT_MS) : undefined].filter((s): s is AbortSignal => s !== undefined);
    try {
      return await this.fetchImpl(url, {
        method,
        headers: {
          'user-agent': `svc/${SVC_VERSION}`,
          ...headers,
          ...(this.token === undefined ? {} : { authorization: `Bearer ${this.token}` }),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: signals.length === 0 ? undefined : AbortSignal.any(signals),
      });
    } catch (error) {
      if (signal?.aborted === true) throw error;
      throw new ServerUnreachableError(this.server, describeFetchError(error));
    }
  }
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function toApiError(response: Response, body: unknown): ApiError {
  const parsed = parseErrorEnvelope(body);
  const retryAfter = Number(response.headers.get('retry-after'));
  const retryAfterSeconds = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined;
  if (parsed !== undefined) return new ApiError(response.status, parsed.code, parsed.message, parsed.details, retryAfterSeconds);
  // Not our envelope: a proxy's error page or another service on that port.
  return new ApiError(response.status, `HTTP_${response.status}`, `the server answered HTTP ${response.status} ${response.statusText} without an svc error body`, undefined, retryAfterSeconds);
}

/** fetch's TypeError hides the reason in `cause` (ECONNREFUSED, ENOTFOUND, a certificate error). */
function describeFetchError(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  if (cause?.code !== undefined) return cause.code;
  if (cause?.message !== undefined) return cause.message;
  return error instanceof Error ? error.message : String(error);
}
