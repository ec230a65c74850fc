// Downloads the benchmark corpus once and keeps each package unpacked under the cache, so later runs measure scanning
// and never the network. The core's own npm source does the fetching (tarball cache, unpack limits), so the bench
// exercises the same code path as `svc scan npm:…`.
import { cp, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Directory name of a package in the cache: `@scope/name@1.2.3` → `@scope+name@1.2.3` (one level, no nesting). */
export function cacheKey({ name, version }) {
  return `${name.replace('/', '+')}@${version}`;
}

export async function readCorpus(corpusPath) {
  const corpus = JSON.parse(await readFile(corpusPath, 'utf8'));
  for (const entry of corpus.packages) {
    if (typeof entry.name !== 'string' || typeof entry.version !== 'string') {
      throw new Error(`corpus entry without name/version: ${JSON.stringify(entry)}`);
    }
  }
  return corpus.packages;
}

/**
 * Makes sure every package is unpacked in `<cacheDir>/unpacked/<key>/` and returns the ones that are, in corpus order.
 * A package that cannot be fetched is reported through `warn` and left out; one failure never stops the others.
 *
 * @param {object} options
 * @param {Array<{name: string, version: string}>} options.packages
 * @param {string} options.cacheDir  root of the bench cache (`.bench-cache`)
 * @param {{ fetchTarget: Function, parseTarget: Function }} options.core  the core's source functions
 * @param {object} [options.sourceOptions]  extra options for fetchTarget (a registry stand-in in tests)
 * @param {(message: string) => void} [options.log]
 * @param {(message: string) => void} [options.warn]
 */
export async function ensureCorpus({ packages, cacheDir, core, sourceOptions = {}, log = () => {}, warn = () => {} }) {
  const unpackedDir = path.join(cacheDir, 'unpacked');
  const tarballDir = path.join(cacheDir, 'tarballs');
  await mkdir(unpackedDir, { recursive: true });

  const ready = [];
  const failed = [];
  for (const entry of packages) {
    const key = cacheKey(entry);
    const root = path.join(unpackedDir, key);
    const metaPath = path.join(unpackedDir, `${key}.meta.json`);
    try {
      // The meta file is written last, so its presence means the unpacked tree is complete.
      const meta = JSON.parse(await readFile(metaPath, 'utf8'));
      await stat(root);
      ready.push({ ...entry, root, metadata: meta.metadata });
      continue;
    } catch {
      // not cached yet
    }

    const started = performance.now();
    let workspace;
    try {
      workspace = await core.fetchTarget(core.parseTarget(`npm:${entry.name}@${entry.version}`), {
        ...sourceOptions,
        cacheDir: tarballDir,
      });
      const staging = `${root}.partial`;
      await rm(staging, { recursive: true, force: true });
      await rm(root, { recursive: true, force: true });
      // verbatimSymlinks: a link inside a package stays a link (the inventory refuses to follow it) instead of being
      // resolved against the temp dir it came from.
      await cp(workspace.root, staging, { recursive: true, verbatimSymlinks: true });
      await rename(staging, root);
      await writeFile(
        metaPath,
        JSON.stringify({ name: entry.name, version: entry.version, metadata: workspace.metadata ?? null }, null, 2),
      );
      ready.push({ ...entry, root, metadata: workspace.metadata ?? undefined });
      log(`fetched ${entry.name}@${entry.version} in ${Math.round(performance.now() - started)} ms`);
    } catch (error) {
      failed.push({ ...entry, error: error instanceof Error ? error.message : String(error) });
      warn(`skipped ${entry.name}@${entry.version}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      await workspace?.dispose();
    }
  }
  return { ready, failed };
}

/** A read-only Workspace over an unpacked cache entry, shaped like the one the npm source returns. */
export function cachedWorkspace(entry) {
  return {
    target: { kind: 'npm', input: `npm:${entry.name}@${entry.version}`, name: entry.name, spec: entry.version },
    root: entry.root,
    name: entry.name,
    version: entry.version,
    ...(entry.metadata ? { metadata: entry.metadata } : {}),
    // The cache outlives the scan: nothing to remove.
    dispose: async () => {},
  };
}
