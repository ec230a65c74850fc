// Real worker threads throughout. The scan worker is the BUILT dist/scan-worker.js: run `npm run build -w @svc/daemon`
// (and `npm run build -w @svc/core` after core changes) before these tests.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ScanEvent } from '@svc/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ScanPool, scanWorkerUrl, type ScanJob, type ScanOutcome, type ScanPoolOptions } from './pool.js';

const SCAN_WORKER = new URL('../../dist/scan-worker.js', import.meta.url);
const BEHAVE_WORKER = new URL('./test-workers/behave.mjs', import.meta.url);
const FIXTURE = fileURLToPath(new URL('../../../../fixtures/servers/poisoned-notes-ts', import.meta.url));

if (!existsSync(SCAN_WORKER)) throw new Error('dist/scan-worker.js is missing: run `npm run build -w @svc/daemon` before these tests');

let base: string;
let root: string;
let pools: ScanPool[] = [];

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'svcd-pool-')));
  root = path.join(base, 'root');
  await mkdir(root);
  await cp(FIXTURE, path.join(root, 'notes'), { recursive: true });
});

afterEach(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
  pools = [];
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function newTempRoot(): Promise<string> {
  return mkdtemp(path.join(base, 'tmp-'));
}

function pool(options: Partial<ScanPoolOptions> & { tempRoot: string }): ScanPool {
  const created = new ScanPool({ workerUrl: SCAN_WORKER, size: 1, timeoutMs: 30_000, scanRoots: [root], ...options });
  pools.push(created);
  return created;
}

const job = (input: string, scanId = input): ScanJob => ({ scanId, input, mode: 'fast' });

function expectFailure(outcome: ScanOutcome, reason: string): string {
  if (outcome.ok || outcome.reason !== reason) throw new Error(`expected ${reason}, got ${JSON.stringify(outcome).slice(0, 300)}`);
  return 'message' in outcome ? outcome.message : '';
}

describe('ScanPool with the real scan worker', () => {
  it('scans a fixture inside the roots: findings in the run, stage and finding events on the way', async () => {
    const tempRoot = await newTempRoot();
    const events: ScanEvent[] = [];
    let started = 0;
    const outcome = await pool({ tempRoot }).run(job(path.join(root, 'notes')), { onEvent: (event) => events.push(event), onStart: () => started++ });
    if (!outcome.ok) throw new Error(JSON.stringify(outcome));
    expect(started).toBe(1);
    expect(outcome.run.errors).toEqual([]);
    const [report] = outcome.run.reports;
    expect(report?.target).toMatchObject({ kind: 'directory', input: path.join(root, 'notes') });
    expect(report?.findings.length).toBeGreaterThan(0);
    expect(events.filter((event) => event.type === 'stage').map((event) => event.type === 'stage' && event.stage)).toEqual([
      'fetch',
      'inventory',
      'analyze',
      'rules',
      'score',
    ]);
    expect(events.filter((event) => event.type === 'finding')).toHaveLength(report?.findings.length ?? -1);
    expect(events.at(-1)).toMatchObject({ type: 'done' });
    expect(await readdir(tempRoot)).toEqual([]);
  });

  it('throttles progress to about one per 100 ms per stage but always passes the last one', async () => {
    const big = path.join(root, 'big');
    await mkdir(path.join(big, 'src'), { recursive: true });
    await writeFile(path.join(big, 'package.json'), '{"name":"big","dependencies":{"@modelcontextprotocol/sdk":"1"}}');
    const files = 600;
    await Promise.all(
      Array.from({ length: files }, (_, i) =>
        writeFile(path.join(big, 'src', `m${i}.ts`), `export function f${i}(a: number): number {\n  return a + ${i};\n}\n`.repeat(40)),
      ),
    );
    const progress: Extract<ScanEvent, { type: 'progress' }>[] = [];
    const started = Date.now();
    const outcome = await pool({ tempRoot: await newTempRoot() }).run(job(big), {
      onEvent: (event) => {
        if (event.type === 'progress') progress.push(event);
      },
    });
    const elapsed = Date.now() - started;
    expect(outcome.ok).toBe(true);
    expect(progress.at(-1)).toMatchObject({ stage: 'analyze', done: files, total: files });
    // One per 100 ms of scanning, plus the last one of the stage.
    expect(progress.length).toBeLessThanOrEqual(Math.ceil(elapsed / 100) + 2);
    expect(progress.length).toBeLessThan(files);
  });

  it('refuses a config server outside the roots inside the worker: an error in the run, nothing scanned there', async () => {
    const outside = path.join(base, 'outside-project');
    await mkdir(outside, { recursive: true });
    await cp(FIXTURE, outside, { recursive: true });
    const configDir = path.join(root, 'client');
    await mkdir(configDir);
    const config = path.join(configDir, 'claude_desktop_config.json');
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          inside: { command: 'node', args: [path.join(root, 'notes', 'src', 'index.ts')] },
          outside: { command: 'node', args: [path.join(outside, 'src', 'index.ts')] },
        },
      }),
    );
    const events: ScanEvent[] = [];
    const outcome = await pool({ tempRoot: await newTempRoot() }).run(job(config), { onEvent: (event) => events.push(event) });
    if (!outcome.ok) throw new Error(JSON.stringify(outcome));
    expect(outcome.run.reports.map((report) => report.target.origin?.serverName)).toEqual(['inside']);
    expect(outcome.run.errors).toEqual([{ input: expect.stringContaining('outside (') as unknown as string, message: expect.stringMatching(/must be inside SVC_SCAN_ROOTS/) as unknown as string }]);
    expect(events.some((event) => event.type === 'error' && event.target.startsWith('outside ('))).toBe(true);
    expect(events.some((event) => event.type === 'stage' && event.target.startsWith('outside ('))).toBe(false);
  });

  it('refuses inside the worker an input the submit route should have refused', async () => {
    const tempRoot = await newTempRoot();
    const message = expectFailure(await pool({ tempRoot }).run(job(path.join(base, 'elsewhere'))), 'refused');
    expect(message).toMatch(/must be inside SVC_SCAN_ROOTS/);
    expect(await readdir(tempRoot)).toEqual([]);
  });

  it('stops a scan at the time limit, names the limit, removes its temp dir and keeps serving', async () => {
    const tempRoot = await newTempRoot();
    const scans = pool({ tempRoot, timeoutMs: 50 });
    const message = expectFailure(await scans.run(job(path.join(root, 'notes'))), 'timeout');
    expect(message).toBe('the scan was stopped after the time limit of 0.05 s (SVC_SCAN_TIMEOUT_SECONDS)');
    expect(await readdir(tempRoot)).toEqual([]);
    expect(scans.active).toBe(0);
  });

  it('aborts a running scan when the caller’s signal fires', async () => {
    const tempRoot = await newTempRoot();
    const controller = new AbortController();
    const outcome = await pool({ tempRoot }).run(job(path.join(root, 'notes')), { signal: controller.signal, onStart: () => controller.abort() });
    expect(outcome).toEqual({ ok: false, reason: 'aborted' });
    expect(await readdir(tempRoot)).toEqual([]);
  });

  it('finds the built worker from source', () => {
    expect(scanWorkerUrl().href).toBe(SCAN_WORKER.href);
  });
});

describe('ScanPool with misbehaving workers', () => {
  const behave = (options: Partial<ScanPoolOptions> & { tempRoot: string }) => pool({ workerUrl: BEHAVE_WORKER, ...options });

  it('never runs more than `size` jobs and starts them in submission order', async () => {
    const scans = behave({ tempRoot: await newTempRoot(), size: 1 });
    const starts: string[] = [];
    let maxActive = 0;
    const outcomes = await Promise.all(
      ['sleep:60', 'sleep:20', 'sleep:1'].map((input, i) =>
        scans.run(job(input, `scan-${i}`), {
          onStart: () => {
            starts.push(`scan-${i}`);
            maxActive = Math.max(maxActive, scans.active);
          },
        }),
      ),
    );
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    expect(starts).toEqual(['scan-0', 'scan-1', 'scan-2']);
    expect(maxActive).toBe(1);
    expect(scans.active).toBe(0);
  });

  it('runs up to `size` jobs at once', async () => {
    const scans = behave({ tempRoot: await newTempRoot(), size: 2 });
    let maxActive = 0;
    const track = { onStart: () => (maxActive = Math.max(maxActive, scans.active)) };
    await Promise.all([scans.run(job('sleep:150'), track), scans.run(job('sleep:150'), track), scans.run(job('sleep:1'), track)]);
    expect(maxActive).toBe(2);
  });

  it('terminates a worker stuck in a loop at the time limit, then runs the next job', async () => {
    const tempRoot = await newTempRoot();
    const scans = behave({ tempRoot, timeoutMs: 300 });
    expect(expectFailure(await scans.run(job('loop')), 'timeout')).toMatch(/time limit of 0\.3 s/);
    expect(await readdir(tempRoot)).toEqual([]);
    expect((await scans.run(job('result'))).ok).toBe(true);
  });

  it('reports a worker that throws or exits as crashed, without its stack, and keeps serving', async () => {
    const tempRoot = await newTempRoot();
    const scans = behave({ tempRoot });
    const thrown = expectFailure(await scans.run(job('throw')), 'crashed');
    expect(thrown).toBe('the scan worker crashed');
    expect(await readdir(tempRoot)).toEqual([]);
    expect(expectFailure(await scans.run(job('exit')), 'crashed')).toBe('the scan worker exited (code 1) without a result');
    expect(expectFailure(await scans.run(job('silent')), 'crashed')).toBe('the scan worker exited (code 0) without a result');
    expect(await readdir(tempRoot)).toEqual([]);
    expect((await scans.run(job('result'))).ok).toBe(true);
  });

  it('caps the heap: a worker that eats memory is stopped, the daemon is not', async () => {
    const tempRoot = await newTempRoot();
    const scans = behave({ tempRoot, maxHeapMb: 32 });
    expect(expectFailure(await scans.run(job('oom')), 'crashed')).toBe('the scan ran out of memory (limit 32 MB) and was stopped');
    expect(await readdir(tempRoot)).toEqual([]);
    expect((await scans.run(job('result'))).ok).toBe(true);
  });

  it('drops a queued job whose signal fires before it starts', async () => {
    const scans = behave({ tempRoot: await newTempRoot() });
    const controller = new AbortController();
    let secondStarted = false;
    const first = scans.run(job('sleep:100'));
    const second = scans.run(job('result'), { signal: controller.signal, onStart: () => (secondStarted = true) });
    controller.abort();
    expect(await second).toEqual({ ok: false, reason: 'aborted' });
    expect((await first).ok).toBe(true);
    expect(secondStarted).toBe(false);
    expect(await scans.run(job('result'), { signal: AbortSignal.abort() })).toEqual({ ok: false, reason: 'aborted' });
  });

  it('close() aborts running and queued jobs, removes their temp dirs and refuses new ones', async () => {
    const tempRoot = await newTempRoot();
    const scans = behave({ tempRoot });
    let running!: () => void;
    const startedLoop = new Promise<void>((resolve) => (running = resolve));
    const looping = scans.run(job('loop'), { onStart: running });
    const queued = scans.run(job('result'));
    await startedLoop;
    await scans.close();
    expect(await looping).toEqual({ ok: false, reason: 'aborted' });
    expect(await queued).toEqual({ ok: false, reason: 'aborted' });
    expect(scans.active).toBe(0);
    expect(await readdir(tempRoot)).toEqual([]);
    expect(await scans.run(job('result'))).toEqual({ ok: false, reason: 'aborted' });
  });

  it('turns a throwing event hook into a failed scan instead of an uncaught exception', async () => {
    const scans = behave({ tempRoot: await newTempRoot() });
    const outcome = await scans.run(job('sleep:50'), {
      onEvent: () => {
        throw new Error('database is locked');
      },
    });
    expect(expectFailure(outcome, 'failed')).toBe('recording a scan event failed: database is locked');
  });

  it('fails a job whose temp dir cannot be made, and frees its slot', async () => {
    const scans = behave({ tempRoot: path.join(base, 'no-such-temp-root') });
    expect(expectFailure(await scans.run(job('result')), 'failed')).toBe("cannot create the scan's temp dir (ENOENT)");
    expect(scans.active).toBe(0);
  });

  it('refuses a pool without a slot or a time limit', async () => {
    const tempRoot = await newTempRoot();
    expect(() => new ScanPool({ workerUrl: BEHAVE_WORKER, size: 0, timeoutMs: 1000, scanRoots: [], tempRoot })).toThrow(RangeError);
    expect(() => new ScanPool({ workerUrl: BEHAVE_WORKER, size: 1, timeoutMs: 0, scanRoots: [], tempRoot })).toThrow(RangeError);
  });
});

describe('job folders a killed daemon left behind', () => {
  it('are removed at start when their process is gone; folders of live processes and other files stay', async () => {
    const tempRoot = await newTempRoot();
    // The pid of a process that has exited: the shape of what `kill -9` of a daemon leaves.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    const orphan = path.join(tempRoot, `svcd-job-${dead}-a1b2c3`);
    await mkdir(path.join(orphan, 'svc-scan-x', 'package'), { recursive: true });
    await writeFile(path.join(orphan, 'svc-scan-x', 'package', 'big.bin'), Buffer.alloc(1024));
    const live = path.join(tempRoot, `svcd-job-${process.pid}-d4e5f6`);
    await mkdir(live);
    await mkdir(path.join(tempRoot, 'someone-else'));
    const removed = await pool({ tempRoot }).removeOrphanedJobDirs();
    expect(removed).toEqual([`svcd-job-${dead}-a1b2c3`]);
    expect((await readdir(tempRoot)).sort()).toEqual(['someone-else', `svcd-job-${process.pid}-d4e5f6`]);
  });
});

describe("the worker's code, read once when the pool is made", () => {
  it('still runs scans after dist/ is rebuilt or removed under the running daemon', async () => {
    // A copy of the build, as an installed svcd: packages resolve from beside it (a node_modules link here).
    const install = path.join(base, 'installed');
    const dist = path.join(install, 'dist');
    await mkdir(dist, { recursive: true });
    const built = fileURLToPath(new URL('.', SCAN_WORKER));
    for (const name of await readdir(built)) if (name.endsWith('.js')) await cp(path.join(built, name), path.join(dist, name));
    await symlink(fileURLToPath(new URL('../../../../node_modules', import.meta.url)), path.join(install, 'node_modules'));
    await writeFile(path.join(install, 'package.json'), JSON.stringify({ name: '@svc/daemon', type: 'module' }));
    const scans = pool({ tempRoot: await newTempRoot(), workerUrl: pathToFileURL(path.join(dist, 'scan-worker.js')) });

    // A rebuild: the clean build removes dist/ (the old chunks with it) and writes a worker this daemon does not know.
    await rm(dist, { recursive: true });
    await mkdir(dist);
    await writeFile(path.join(dist, 'scan-worker.js'), "throw new Error('a newer build than the running daemon');\n");
    for (const scanId of ['after-rebuild-1', 'after-rebuild-2']) {
      const outcome = await scans.run(job(path.join(root, 'notes'), scanId));
      if (!outcome.ok) throw new Error(JSON.stringify(outcome));
      expect(outcome.run.reports[0]?.findings.length).toBeGreaterThan(0);
    }
    await rm(dist, { recursive: true });
    expect(await scans.run(job(path.join(root, 'notes'), 'after-removal'))).toMatchObject({ ok: true });
  });
});
