import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { create as createTar } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchTarget, parseTarget } from '@svc/core';
import { cacheKey, cachedWorkspace, ensureCorpus } from './corpus-cache.mjs';

// A stand-in npm registry on 127.0.0.1 serving one real tarball, so the download path of the bench runs for real
// (packument, tarball, integrity check, unpack) without depending on the public registry.
let server: Server;
let registry: string;
let scratch: string;
const requests: string[] = [];

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'svc-bench-test-'));
  const packageDir = path.join(scratch, 'src', 'package');
  await mkdir(path.join(packageDir, 'dist'), { recursive: true });
  await writeFile(path.join(packageDir, 'package.json'), JSON.stringify({ name: '@demo/server', version: '1.0.0' }));
  await writeFile(path.join(packageDir, 'dist', 'index.js'), 'export const answer = 42;\n');
  const tarball = path.join(scratch, 'server-1.0.0.tgz');
  await createTar({ gzip: true, file: tarball, cwd: path.join(scratch, 'src'), portable: true }, ['package']);
  const bytes = await readFile(tarball);
  const integrity = `sha512-${createHash('sha512').update(bytes).digest('base64')}`;

  server = createServer((request, response) => {
    requests.push(request.url ?? '');
    if (request.url === '/@demo%2fserver') {
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          name: '@demo/server',
          'dist-tags': { latest: '1.0.0' },
          versions: {
            '1.0.0': { name: '@demo/server', version: '1.0.0', dist: { tarball: `${registry}tarballs/server-1.0.0.tgz`, integrity } },
          },
        }),
      );
    } else if (request.url === '/tarballs/server-1.0.0.tgz') {
      response.end(bytes);
    } else {
      response.statusCode = 404;
      response.end('{}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(scratch, { recursive: true, force: true });
});

describe('ensureCorpus', () => {
  it('downloads and unpacks each package once, re-uses the cache later and skips what cannot be fetched', async () => {
    const cacheDir = await mkdtemp(path.join(os.tmpdir(), 'svc-bench-cache-'));
    try {
      const warnings: string[] = [];
      const options = {
        packages: [
          { name: '@demo/server', version: '1.0.0' },
          { name: '@demo/missing', version: '1.0.0' },
        ],
        cacheDir,
        core: { fetchTarget, parseTarget },
        sourceOptions: { npmRegistry: registry },
        warn: (message: string) => warnings.push(message),
      };

      const first = await ensureCorpus(options);
      expect(first.ready.map((entry) => entry.name)).toEqual(['@demo/server']);
      expect(first.failed.map((entry) => entry.name)).toEqual(['@demo/missing']);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('@demo/missing');

      const root = path.join(cacheDir, 'unpacked', cacheKey({ name: '@demo/server', version: '1.0.0' }));
      expect(first.ready[0]?.root).toBe(root);
      expect(await readFile(path.join(root, 'dist', 'index.js'), 'utf8')).toBe('export const answer = 42;\n');
      expect(first.ready[0]?.metadata?.integrity).toMatch(/^sha512-/);
      // The tarball is kept too, keyed by integrity, for the end-to-end measurement.
      expect(await readdir(path.join(cacheDir, 'tarballs', 'npm'))).toHaveLength(1);

      const tarballRequests = requests.filter((url) => url.startsWith('/tarballs/')).length;
      const packumentRequests = requests.filter((url) => url === '/@demo%2fserver').length;
      const second = await ensureCorpus(options);
      expect(second.ready.map((entry) => entry.root)).toEqual([root]);
      expect(requests.filter((url) => url === '/@demo%2fserver')).toHaveLength(packumentRequests);
      expect(requests.filter((url) => url.startsWith('/tarballs/'))).toHaveLength(tarballRequests);
    } finally {
      await rm(cacheDir, { recursive: true, force: true });
    }
  });
});

describe('cachedWorkspace', () => {
  it('describes the unpacked package as the npm target it came from and never deletes the cache', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'svc-bench-ws-'));
    try {
      const workspace = cachedWorkspace({ name: '@demo/server', version: '1.0.0', root });
      expect(workspace.target).toMatchObject({ kind: 'npm', name: '@demo/server', spec: '1.0.0' });
      await workspace.dispose();
      expect(await readdir(root)).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
