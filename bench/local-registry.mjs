// The corpus served from the bench cache by an npm registry on 127.0.0.1, so the end-to-end pass (`svc scan
// npm:name@version` as a user runs it: packument request, tarball, unpack, scan) never leaves this machine and
// measures the scanner, not the network. Only the corpus download on a first run talks to the real registry.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';

/** `sha512-<base64>` → the cache's file name for that tarball (`sha512-<hex>.tgz`, as the core's npm source keeps it). */
export function tarballFileName(integrity) {
  const [algorithm, digest] = integrity.split('-', 2);
  return `${algorithm}-${Buffer.from(digest, 'base64').toString('hex')}.tgz`;
}

/**
 * Serves a packument per corpus package (the pinned versions, with their integrity and publish time) and the cached
 * tarballs. Resolves to the registry's base URL and a close function.
 *
 * @param {Array<{name: string, version: string, metadata: {integrity: string, publishedAt?: string}}>} entries
 * @param {string} tarballDir  the cache's `tarballs/npm` folder
 */
export async function startLocalRegistry(entries, tarballDir) {
  // The corpus pins some packages at two versions (a current one and an older one the accuracy corpus uses).
  const byName = new Map();
  for (const entry of entries) byName.set(entry.name, [...(byName.get(entry.name) ?? []), entry]);
  let base = '';
  const server = createServer(async (request, response) => {
    const url = decodeURIComponent(new URL(request.url ?? '/', 'http://127.0.0.1').pathname).slice(1);
    try {
      if (url.startsWith('-/tarballs/')) {
        const file = path.join(tarballDir, path.basename(url));
        const info = await stat(file);
        response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': info.size });
        createReadStream(file).pipe(response);
        return;
      }
      const versions = byName.get(url);
      if (!versions) {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
        return;
      }
      const packument = {
        name: url,
        'dist-tags': { latest: versions.at(-1).version },
        versions: Object.fromEntries(
          versions.map(({ name, version, metadata }) => [
            version,
            { name, version, dist: { integrity: metadata.integrity, tarball: `${base}/-/tarballs/${tarballFileName(metadata.integrity)}` } },
          ]),
        ),
        time: Object.fromEntries(versions.flatMap(({ version, metadata }) => (metadata.publishedAt ? [[version, metadata.publishedAt]] : []))),
      };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packument));
    } catch {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
  return {
    url: base,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(resolve);
    }),
  };
}
