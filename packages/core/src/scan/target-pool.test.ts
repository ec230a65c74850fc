// The target pool runs the built worker (dist/scan-worker.js): `npm run build -w @svc/core` first, as CI's install does.
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ScanRun } from '../report/schema.js';
import { scanInputs } from './engine.js';
import type { ScanEvent } from './events.js';
import { clonePids, processExists, startStallingGitServer, waitFor } from './sources/git-server-testing.js';
import { killAllProcessGroupsSync } from './sources/process-groups.js';
import { liveTempDirList } from './sources/temp.js';
import { folderBytes, largestFirst } from './target-size.js';

const workerUrl = new URL('../../dist/scan-worker.js', import.meta.url);
const servers = fileURLToPath(new URL('../../../../fixtures/servers/', import.meta.url));
const FIXED = new Date('2026-03-04T05:06:07Z');
const clock = () => FIXED;

/** Everything a report says, but how long its stages took. */
function comparable(run: ScanRun) {
  return {
    reports: run.reports.map(({ timings: _timings, ...report }) => report),
    errors: run.errors,
  };
}

// Small and large fixtures mixed, so largest-first dispatch reorders them and the run must put them back.
const targets = ['clean-files-ts', 'poisoned-notes-ts', 'poisoned-fastmcp-bundle', 'clean-db-py', 'poisoned-mcp-framework-dist'].map((name) =>
  path.join(servers, name),
);

describe('scanInputs on a pool of worker threads', () => {
  let work: string;
  beforeEach(async () => {
    expect(existsSync(workerUrl), 'dist/scan-worker.js is missing: run `npm run build -w @svc/core`').toBe(true);
    work = await mkdtemp(path.join(tmpdir(), 'svc-pool-test-'));
  });
  afterEach(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('gives the reports and errors of a one-at-a-time scan, in input order, with every event', async () => {
    const inputs = [...targets.slice(0, 2), 'npm:not-fetched-here@1.0.0', ...targets.slice(2)];
    const source = { npmRegistry: 'http://127.0.0.1:9/', tempRoot: work };
    const serialEvents: ScanEvent[] = [];
    const serial = await scanInputs(inputs, { clock, source, onEvent: (event) => serialEvents.push(event) });
    const pooledEvents: ScanEvent[] = [];
    const pooled = await scanInputs(inputs, { clock, source, workers: { url: workerUrl, size: 2 }, onEvent: (event) => pooledEvents.push(event) });

    expect(serial.reports).toHaveLength(targets.length);
    expect(serial.errors.map((error) => error.input)).toEqual(['npm:not-fetched-here@1.0.0']);
    expect(serial.reports.some((report) => report.findings.length > 0)).toBe(true);
    expect(comparable(pooled)).toEqual(comparable(serial));

    // The same events per target (progress may interleave across targets, never within one).
    const perTarget = (events: ScanEvent[]) => {
      const byTarget = new Map<string, string[]>();
      for (const event of events) {
        const list = byTarget.get(event.target) ?? [];
        list.push(event.type === 'stage' ? `stage:${event.stage}` : event.type === 'finding' ? `finding:${event.finding.id}` : event.type);
        byTarget.set(event.target, list);
      }
      return byTarget;
    };
    const serialByTarget = perTarget(serialEvents);
    const pooledByTarget = perTarget(pooledEvents);
    expect([...pooledByTarget.keys()].sort()).toEqual([...serialByTarget.keys()].sort());
    for (const [target, events] of serialByTarget) {
      const withoutProgress = (list: string[]) => list.filter((type) => type !== 'progress');
      expect(withoutProgress(pooledByTarget.get(target)!), target).toEqual(withoutProgress(events));
    }
    // Every worker's temp dirs are gone, and so is the folder that held them.
    expect(await readdir(work)).toEqual([]);
  });

  it('scans a target again on the calling thread when its worker dies (here: a heap cap no engine fits in)', async () => {
    const run = await scanInputs(targets.slice(0, 2), { clock, source: { tempRoot: work }, workers: { url: workerUrl, size: 2, heapMb: 16 } });
    const serial = await scanInputs(targets.slice(0, 2), { clock, source: { tempRoot: work } });
    expect(comparable(run)).toEqual(comparable(serial));
    expect(run.errors).toEqual([]);
  });

  it('refuses a heap cap too small for a thread to start (on Node 22 and 24 that would abort the process)', async () => {
    await expect(scanInputs(targets.slice(0, 2), { clock, workers: { url: workerUrl, size: 2, heapMb: 4 } })).rejects.toThrow(/at least 16 MiB/);
  });

  it('stops every worker on abort and leaves no temp dir behind', async () => {
    const controller = new AbortController();
    const started = new Set<string>();
    const scan = scanInputs(targets, {
      clock,
      signal: controller.signal,
      source: { tempRoot: work },
      workers: { url: workerUrl, size: 2 },
      onEvent: (event) => {
        started.add(event.target);
        if (started.size === 2) controller.abort(new DOMException('stopped by the test', 'AbortError'));
      },
    });
    await expect(scan).rejects.toMatchObject({ name: 'AbortError' });
    expect(liveTempDirList()).toEqual([]);
    expect(await readdir(work)).toEqual([]);
  });
});

describe('git clones on pool workers', () => {
  it("are killed by the main thread's exit path (a second Ctrl-C), which the workers do not get to run", async () => {
    const server = await startStallingGitServer();
    const work = await mkdtemp(path.join(tmpdir(), 'svc-pool-test-'));
    const controller = new AbortController();
    try {
      const urls = [`${server.url}/one.git`, `${server.url}/two.git`];
      const scan = scanInputs(
        urls.map((url) => `git+${url}`),
        { clock, signal: controller.signal, source: { tempRoot: work }, workers: { url: workerUrl, size: 2 } },
      ).catch((error: unknown) => error);
      const pids = (await Promise.all(urls.map((url) => clonePids(url)))).flat();
      expect(pids.length).toBeGreaterThanOrEqual(4);
      killAllProcessGroupsSync();
      await waitFor(() => !pids.some(processExists));
      expect(pids.filter(processExists)).toEqual([]);
      controller.abort(new DOMException('stopped by the test', 'AbortError'));
      await scan;
      expect(await readdir(work)).toEqual([]);
    } finally {
      await server.close();
      await rm(work, { recursive: true, force: true });
    }
  });
});

describe('largestFirst', () => {
  it('puts targets of unknown size first, then folders by size, and keeps the order when run one at a time', () => {
    const small = path.join(servers, 'poisoned-fastmcp-bundle');
    const large = path.join(servers, 'clean-files-ts');
    expect(folderBytes(large)).toBeGreaterThan(folderBytes(small));
    const jobs = [
      { target: { kind: 'directory' as const, input: 'a', path: small } },
      { target: { kind: 'npm' as const, input: 'npm:x', name: 'x', spec: '1.0.0' } },
      { target: { kind: 'directory' as const, input: 'b', path: large } },
    ];
    expect(largestFirst(jobs, true).map((job) => job.target.input)).toEqual(['npm:x', 'b', 'a']);
    expect(largestFirst(jobs, false).map((job) => job.target.input)).toEqual(['a', 'npm:x', 'b']);
  });
});
