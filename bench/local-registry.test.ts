import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { create as createTar } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanInputs } from '@svc/core';
import { startLocalRegistry, tarballFileName } from './local-registry.mjs';

let scratch: string;
let integrity: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'svc-bench-registry-'));
  const packageDir = path.join(scratch, 'src', 'package');
  await mkdir(path.join(packageDir, 'dist'), { recursive: true });
  await writeFile(path.join(packageDir, 'package.json'), JSON.stringify({ name: '@demo/server', version: '1.0.0' }));
  await writeFile(path.join(packageDir, 'dist', 'index.js'), 'export const answer = 42;\n');
  const tarball = path.join(scratch, 'server.tgz');
  await createTar({ gzip: true, file: tarball, cwd: path.join(scratch, 'src'), portable: true }, ['package']);
  const bytes = await readFile(tarball);
  integrity = `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
  await mkdir(path.join(scratch, 'cache', 'npm'), { recursive: true });
  await writeFile(path.join(scratch, 'cache', 'npm', tarballFileName(integrity)), bytes);
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('startLocalRegistry', () => {
  it('serves the cached corpus on 127.0.0.1 as the npm source asks for it: packument, then the tarball by integrity', async () => {
    const registry = await startLocalRegistry(
      [{ name: '@demo/server', version: '1.0.0', metadata: { integrity, publishedAt: '2026-01-02T03:04:05.000Z' } }],
      path.join(scratch, 'cache', 'npm'),
    );
    try {
      expect(new URL(registry.url).hostname).toBe('127.0.0.1');
      // An empty tarball cache, so the tarball is downloaded from the stand-in too (and its integrity checked).
      const run = await scanInputs(['npm:@demo/server@1.0.0'], { source: { npmRegistry: registry.url, cacheDir: path.join(scratch, 'empty-cache') } });
      expect(run.errors).toEqual([]);
      expect(run.reports[0]?.target).toMatchObject({ name: '@demo/server', version: '1.0.0' });
      expect(run.reports[0]?.stats.files).toBeGreaterThan(0);
      const missing = await scanInputs(['npm:@demo/absent@1.0.0'], { source: { npmRegistry: registry.url } });
      expect(missing.errors).toHaveLength(1);
    } finally {
      await registry.close();
    }
  });
});
