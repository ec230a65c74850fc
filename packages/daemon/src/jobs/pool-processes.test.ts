// Hole 5 of issue 12: a scan's git processes must not outlive it. Real worker threads running the BUILT
// dist/scan-worker.js (`npm run build` first), the built svcd for a graceful shutdown, real git cloning from a server on 127.0.0.1 that stalls mid-clone, and
// the clone's processes looked up in /proc by the URL in their command line (git and git-remote-http).
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clonePids, processExists, startStallingGitServer, waitFor, type StallingGitServer } from '../../../core/src/scan/sources/git-server-testing.js';
import { CLEAN_ENV, startSvcdProcess } from '../test/process.js';
import { ScanPool, type ScanOutcome, type ScanPoolOptions } from './pool.js';

const SCAN_WORKER = new URL('../../dist/scan-worker.js', import.meta.url);
if (!existsSync(SCAN_WORKER)) throw new Error('dist/scan-worker.js is missing: run `npm run build` before these tests');

let base: string;
let server: StallingGitServer;
let pools: ScanPool[] = [];

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'svcd-procs-')));
  server = await startStallingGitServer();
});

afterEach(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
  pools = [];
});

afterAll(async () => {
  await server.close();
  await rm(base, { recursive: true, force: true });
});

async function pool(options: Partial<ScanPoolOptions> = {}): Promise<{ pool: ScanPool; tempRoot: string }> {
  const tempRoot = await mkdtemp(path.join(base, 'tmp-'));
  // The test server is plain http on loopback, which the default policy refuses.
  const created = new ScanPool({
    workerUrl: SCAN_WORKER,
    size: 1,
    timeoutMs: 60_000,
    scanRoots: [],
    git: { protocols: ['http'], allowPrivate: true, hosts: [] },
    tempRoot,
    ...options,
  });
  pools.push(created);
  return { pool: created, tempRoot };
}

/** Starts a scan of a stalling repository and resolves once its git and git-remote-http are running. */
async function stalledScan(scanPool: ScanPool, name: string, signal?: AbortSignal): Promise<{ outcome: Promise<ScanOutcome>; pids: number[] }> {
  const url = `${server.url}/${name}.git`;
  const outcome = scanPool.run({ scanId: name, input: `git+${url}`, mode: 'fast' }, { signal });
  const pids = await clonePids(url);
  expect(pids.length).toBeGreaterThanOrEqual(2);
  return { outcome, pids };
}

/** No process of the clone left, not even a zombie: the worker reaped what it killed before its thread ended. */
async function expectGone(pids: number[]): Promise<void> {
  await waitFor(() => !pids.some(processExists));
  expect(pids.filter(processExists)).toEqual([]);
}

describe("a scan's git processes end with the scan", () => {
  it('at the scan time limit', async () => {
    // Long enough for the worker to load and git to connect; the test waits for both before the limit matters.
    const { pool: scanPool, tempRoot } = await pool({ timeoutMs: 6_000 });
    const { outcome, pids } = await stalledScan(scanPool, 'timeout');
    expect(await outcome).toMatchObject({ ok: false, reason: 'timeout' });
    await expectGone(pids);
    expect(await readdir(tempRoot)).toEqual([]);
  });

  it('when the scan is cancelled', async () => {
    const { pool: scanPool, tempRoot } = await pool();
    const cancel = new AbortController();
    const { outcome, pids } = await stalledScan(scanPool, 'cancel', cancel.signal);
    cancel.abort();
    expect(await outcome).toEqual({ ok: false, reason: 'aborted' });
    await expectGone(pids);
    expect(await readdir(tempRoot)).toEqual([]);
  });

  it('when the daemon shuts down (the pool closes)', async () => {
    const { pool: scanPool } = await pool();
    const { outcome, pids } = await stalledScan(scanPool, 'shutdown');
    await scanPool.close();
    expect(await outcome).toEqual({ ok: false, reason: 'aborted' });
    await expectGone(pids);
  });
});

describe('a graceful SIGTERM of svcd', () => {
  it("leaves none of a running scan's git processes behind", async () => {
    const work = await mkdtemp(path.join(base, 'svcd-'));
    const daemon = await startSvcdProcess({
      ...CLEAN_ENV,
      SVC_DATA_DIR: path.join(work, 'data'),
      TMPDIR: work,
      SVC_GIT_PROTOCOLS: 'http',
      SVC_GIT_ALLOW_PRIVATE: '1',
      SVC_SCAN_WORKERS: '1',
    });
    try {
      const url = `${server.url}/sigterm.git`;
      const submitted = await fetch(`${daemon.url}/scan`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: `git+${url}`, visibility: 'public' }),
      });
      expect(submitted.status).toBe(202);
      const pids = await clonePids(url);
      expect(pids.length).toBeGreaterThanOrEqual(2);
      // svcd gives running scans 10 s to finish, then stops them (they go back to the queue) and exits.
      await daemon.stop();
      await expectGone(pids);
    } finally {
      await daemon.stop();
    }
  }, 60_000);
});
