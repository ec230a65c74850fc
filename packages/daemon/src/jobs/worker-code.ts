// The scan worker's code, read from disk once when the daemon starts, so that a rebuild (or an upgrade) of dist/
// while the daemon runs cannot break later scans: tsup's clean build deletes dist/ and renames the shared chunks,
// and a worker loading from disk at each scan would find the files missing, or newer than the daemon talking to it.
//
// Why this design: the bundle is ESM that imports a shared chunk and third-party packages by bare name, so the text
// cannot simply run with `eval: true` (a CommonJS script) or from a data: URL (which resolves no package names).
// Long-lived workers would keep their code, but a scan that times out or is cancelled ends its thread, and its
// replacement would load from disk again. Instead each worker registers module hooks that serve the files read at
// start from memory under their original file: URLs; everything else (node: builtins, packages in node_modules,
// which a build does not touch) resolves as usual from dist/'s location.

import { readdirSync, readFileSync } from 'node:fs';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** The worker's entry URL and the text of every module beside it, keyed by file: URL. */
export interface WorkerCode {
  entry: string;
  sources: Record<string, string>;
}

/**
 * Reads the entry's directory (dist/: the entry and the chunks it imports) once. A missing build is not an error
 * here: starting a worker then fails, and the scan with it, as it would have without this snapshot.
 */
export function loadWorkerCode(entry: URL): WorkerCode | undefined {
  try {
    const dir = new URL('.', entry);
    const sources: Record<string, string> = {};
    for (const name of readdirSync(dir)) {
      if (/\.m?js$/.test(name)) sources[new URL(name, dir).href] = readFileSync(new URL(name, dir), 'utf8');
    }
    return entry.href in sources ? { entry: entry.href, sources } : undefined;
  } catch {
    return undefined;
  }
}

/** Module hooks (run on Node's loader thread): the snapshot's URLs resolve and load from memory, all else as usual. */
const HOOKS = `
let sources = {};
export function initialize(data) { sources = data.sources; }
export async function resolve(specifier, context, nextResolve) {
  const url = URL.canParse(specifier, context.parentURL) ? new URL(specifier, context.parentURL).href : undefined;
  if (url !== undefined && Object.hasOwn(sources, url) && (/^\\.{0,2}\\//.test(specifier) || specifier === url)) {
    return { url, format: 'module', shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
export async function load(url, context, nextLoad) {
  if (Object.hasOwn(sources, url)) return { format: 'module', source: sources[url], shortCircuit: true };
  return nextLoad(url, context);
}
`;

/** A CommonJS script (what `eval: true` runs): registers the hooks, then imports the entry through them. */
const BOOT = `
const { register } = require('node:module');
const { workerData } = require('node:worker_threads');
const { entry, sources } = workerData.workerCode;
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}), { data: { sources } });
import(entry).catch((error) => { setImmediate(() => { throw error; }); });
`;

/** Starts a worker running the snapshot; `workerData` gets a `workerCode` field the worker itself ignores. */
export function startWorker(code: WorkerCode, options: WorkerOptions & { workerData: object }): Worker {
  return new Worker(BOOT, { ...options, eval: true, workerData: { ...options.workerData, workerCode: code } });
}
