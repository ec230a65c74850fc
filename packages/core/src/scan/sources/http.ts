// HTTP for the registry sources: JSON documents and archive downloads, with redirects, the user's proxy settings
// (HTTP(S)_PROXY / NO_PROXY) and a checksum computed while the bytes stream to disk.

import { createHash, type Hash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';
import { TargetError } from './errors.js';

let sharedDispatcher: Dispatcher | undefined;

// undici is imported on the first request: a scan of folders never needs it, and loading it costs every thread that
// imports the engine about 120 ms. It drops Authorization when a redirect leaves the origin, so a registry token never
// reaches a CDN host.
async function undici(): Promise<{ request: typeof Undici.request; dispatcher: Dispatcher }> {
  const { EnvHttpProxyAgent, interceptors, request } = await import('undici');
  sharedDispatcher ??= new EnvHttpProxyAgent({ headersTimeout: 30_000, bodyTimeout: 60_000 }).compose(interceptors.redirect({ maxRedirections: 5 }));
  return { request, dispatcher: sharedDispatcher };
}

export interface HttpRequest {
  /** The scan input, so errors name what the user typed. */
  input: string;
  url: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export type JsonResult<T> = { status: 'ok'; data: T } | { status: 'not-found' };

/** A cancelled request stays an abort (the engine stops); anything else means the host could not be reached. */
function unreachable(input: string, url: string, error: unknown): Error {
  if (error instanceof Error && error.name === 'AbortError') return error;
  const code = (error as { code?: string }).code;
  const detail = code ?? (error instanceof Error ? error.message : String(error));
  return new TargetError(input, `cannot reach ${new URL(url).host} (${detail})`, { cause: error });
}

/** One GET through the shared dispatcher; a network failure becomes a TargetError naming the host. */
async function send(req: HttpRequest): Promise<Dispatcher.ResponseData> {
  try {
    const { request, dispatcher } = await undici();
    return await request(req.url, {
      dispatcher,
      headers: { 'user-agent': 'svc-scanner', ...req.headers },
      signal: req.signal,
    });
  } catch (error) {
    throw unreachable(req.input, req.url, error);
  }
}

/** GETs a JSON document; 404 and 410 come back as `not-found` so each source can word its own message. */
export async function getJson<T>(req: HttpRequest): Promise<JsonResult<T>> {
  const response = await send(req);
  if (response.statusCode === 404 || response.statusCode === 410) {
    await response.body.dump();
    return { status: 'not-found' };
  }
  if (response.statusCode !== 200) {
    await response.body.dump();
    throw new TargetError(req.input, `${req.url} answered HTTP ${response.statusCode}`);
  }
  try {
    return { status: 'ok', data: (await response.body.json()) as T };
  } catch (error) {
    throw new TargetError(req.input, `${req.url} did not answer JSON`, { cause: error });
  }
}

export interface Download {
  /** Lower-case hex digests by algorithm name (`sha1`, `sha256`, `sha512`). */
  digests: Record<string, string>;
  bytes: number;
}

/** Streams a URL to `file`, hashing as it goes and refusing bodies over `maxBytes`. */
export async function downloadFile(req: HttpRequest & { file: string; maxBytes: number }): Promise<Download> {
  const response = await send(req);
  if (response.statusCode !== 200) {
    await response.body.dump();
    throw new TargetError(req.input, `download of ${req.url} answered HTTP ${response.statusCode}`);
  }
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > req.maxBytes) {
    await response.body.dump();
    throw new TargetError(req.input, `${req.url} is ${declared} bytes, over the ${req.maxBytes}-byte limit`);
  }
  const hashes: Record<string, Hash> = {
    sha1: createHash('sha1'),
    sha256: createHash('sha256'),
    sha512: createHash('sha512'),
  };
  let bytes = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      if (bytes > req.maxBytes) {
        callback(new TargetError(req.input, `${req.url} is over the ${req.maxBytes}-byte limit`));
        return;
      }
      for (const hash of Object.values(hashes)) hash.update(chunk);
      callback(null, chunk);
    },
  });
  try {
    await pipeline(response.body, meter, createWriteStream(req.file, { mode: 0o600 }), { signal: req.signal });
  } catch (error) {
    if (error instanceof TargetError) throw error;
    throw unreachable(req.input, req.url, error);
  }
  const digests = Object.fromEntries(Object.entries(hashes).map(([name, hash]) => [name, hash.digest('hex')]));
  return { digests, bytes };
}
