import { randomUUID } from 'node:crypto';
import { cp, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '../logger.js';
import { migrate, openDatabase, type SqliteDatabase } from '../store/database.js';
import type { NewScan } from '../store/repositories.js';
import { SqliteScanRepository } from '../store/sqlite-scans.js';
import { TEST_CLOCK_START } from '../test/clock.js';
import { ScanEventHub } from './hub.js';
import { ScanPool, scanWorkerUrl } from './pool.js';
import { BEARER_TOKEN_LOST, ScanRunner } from './runner.js';

// The runner over a real SQLite file and real worker threads: what a daemon restart does to the queue.

const FIXTURE = fileURLToPath(new URL('../../../../fixtures/servers/poisoned-notes-ts', import.meta.url));
const SUPPRESSION_FIXTURE = fileURLToPath(new URL('../../../../fixtures/rules/suppression-without-reason/malicious-ts-bare-ignore', import.meta.url));
const BEHAVE_WORKER = new URL('./test-workers/behave.mjs', import.meta.url);
const quiet: Logger = { info: () => {}, error: () => {} };

let dir: string;
let databaseFile: string;
let open: SqliteDatabase[];

beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(tmpdir(), 'svcd-runner-')));
  databaseFile = path.join(dir, 'svc.db');
  open = [];
});
afterEach(async () => {
  for (const db of open) db.close();
  await rm(dir, { recursive: true, force: true });
});

/** One "daemon process": its own connection to the shared file, its own pool and runner. */
function daemon(workerUrl: URL, scanRoots: readonly string[] = []) {
  const db = openDatabase(databaseFile);
  open.push(db);
  migrate(db);
  const scans = new SqliteScanRepository(db);
  const runner = new ScanRunner({
    scans,
    executor: new ScanPool({ workerUrl, size: 1, timeoutMs: 60_000, scanRoots }),
    hub: new ScanEventHub(),
    logger: quiet,
    clock: () => TEST_CLOCK_START,
    concurrency: 1,
  });
  return { scans, runner };
}

function newScan(input: string): NewScan {
  return { id: randomUUID(), userId: null, orgId: null, keyId: null, input, mode: 'fast', visibility: 'public', source: null, package: null, version: null, bearerTokenGiven: false };
}

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('ScanRunner', () => {
  it('runs, at the next start, the scans a stopped daemon left queued or running', async () => {
    const root = path.join(dir, 'root');
    await cp(FIXTURE, path.join(root, 'server'), { recursive: true });
    const first = daemon(scanWorkerUrl(), [root]);
    const leftRunning = await first.scans.submit({ scan: newScan(path.join(root, 'server')), buckets: [], now: TEST_CLOCK_START });
    const leftQueued = await first.scans.submit({ scan: newScan(path.join(root, 'server')), buckets: [], now: new Date(TEST_CLOCK_START.getTime() + 1) });
    // The first daemon claimed one and died before finishing it (no runner ever started here).
    expect((await first.scans.claimNext(TEST_CLOCK_START))?.id).toBe(leftRunning.scan!.id);

    const second = daemon(scanWorkerUrl(), [root]);
    await second.runner.start();
    await until(async () => (await second.scans.findById(leftRunning.scan!.id))?.status === 'completed' && (await second.scans.findById(leftQueued.scan!.id))?.status === 'completed');
    const rerun = await second.scans.findById(leftRunning.scan!.id);
    expect(rerun?.attempts).toBe(2);
    expect(rerun?.summary?.findingsCount).toBeGreaterThan(0);
    // The events of the interrupted attempt stay; the rerun appends after them and ends with one `completed`.
    const events = await second.scans.eventsAfter(leftRunning.scan!.id, 0);
    expect(events.filter((event) => event.event === 'completed')).toHaveLength(1);
    await second.runner.stop(0);
  });

  it('puts a scan still running at shutdown back in the queue after the grace period, and the next daemon runs it', async () => {
    const first = daemon(BEHAVE_WORKER);
    const { scan } = await first.scans.submit({ scan: newScan('npm:sleep-1500'), buckets: [], now: TEST_CLOCK_START });
    await first.runner.start();
    await until(async () => (await first.scans.findById(scan!.id))?.status === 'running');
    await first.runner.stop(100);
    expect(await first.scans.findById(scan!.id)).toMatchObject({ status: 'queued', attempts: 1, startedAt: null });

    const second = daemon(BEHAVE_WORKER);
    await second.runner.start();
    // The stand-in worker's run has only a target error, so the scan fails, after its second attempt.
    await until(async () => (await second.scans.findById(scan!.id))?.status === 'failed');
    expect(await second.scans.findById(scan!.id)).toMatchObject({ attempts: 2, error: 'npm:sleep-1500: fake' });
    await second.runner.stop(0);
  });

  it('fails, with the reason, a scan whose bearer token was lost at a restart, and still runs one whose token it holds', async () => {
    // The stand-in worker fails every scan it runs with "fake": a scan failed with any other reason never reached it.
    const first = daemon(BEHAVE_WORKER);
    const lost = await first.scans.submit({ scan: { ...newScan('npm:sleep-10'), bearerTokenGiven: true }, buckets: [], now: TEST_CLOCK_START });
    // The first daemon held the token in memory and stopped before running the scan.
    first.runner.holdCredential(lost.scan!.id, 'token-held-by-the-first-daemon');

    const second = daemon(BEHAVE_WORKER);
    const held = { ...newScan('npm:sleep-10'), bearerTokenGiven: true };
    second.runner.holdCredential(held.id, 'token-held-by-the-second-daemon');
    await second.scans.submit({ scan: held, buckets: [], now: new Date(TEST_CLOCK_START.getTime() + 1) });
    await second.runner.start();
    await until(async () => (await second.scans.findById(held.id))?.status === 'failed');
    expect(await second.scans.findById(lost.scan!.id)).toMatchObject({ status: 'failed', error: BEARER_TOKEN_LOST, attempts: 1, summary: null });
    expect(await second.scans.findById(held.id)).toMatchObject({ error: 'npm:sleep-10: fake' });
    const events = await second.scans.eventsAfter(lost.scan!.id, 0);
    expect(events.map((event) => event.event)).toEqual(['failed']);
    await second.runner.stop(0);
  });

  it('lets a running scan finish inside the grace period', async () => {
    const { scans, runner } = daemon(BEHAVE_WORKER);
    const { scan } = await scans.submit({ scan: newScan('npm:sleep-300'), buckets: [], now: TEST_CLOCK_START });
    await runner.start();
    await until(async () => (await scans.findById(scan!.id))?.status === 'running');
    await runner.stop(5_000);
    expect((await scans.findById(scan!.id))?.status).toBe('failed');
    expect(runner.running).toBe(0);
  });

  it('fails a scan in which no server could be scanned (a config of a container image and a loopback endpoint) with the reasons, never a score', async () => {
    const root = path.join(dir, 'root');
    await mkdir(root, { recursive: true });
    const config = path.join(root, 'mcp.json');
    await writeFile(config, JSON.stringify({ mcpServers: { image: { command: 'docker', args: ['run', '-i', 'mcp/server:1'] }, hosted: { url: 'http://127.0.0.1:9/mcp' } } }));
    const { scans, runner } = daemon(scanWorkerUrl(), [root]);
    const submitted = await scans.submit({ scan: newScan(config), buckets: [], now: TEST_CLOCK_START });
    await runner.start();
    await until(async () => (await scans.findById(submitted.scan!.id))?.status === 'failed');
    const failed = await scans.findById(submitted.scan!.id);
    expect(failed?.summary).toBeNull();
    expect(failed?.error).toMatch(/container image mcp\/server:1/);
    expect(failed?.error).toMatch(/127\.0\.0\.1 is not a public address/);
    await runner.stop(0);
  });

  it('applies the repository\'s svc.config.json to a folder scan, as the CLI does', async () => {
    const root = path.join(dir, 'root');
    const server = path.join(root, 'server');
    await cp(SUPPRESSION_FIXTURE, server, { recursive: true });
    await writeFile(path.join(server, 'svc.config.json'), JSON.stringify({ disable: ['suppression-without-reason'], severity: { 'command-injection': 'medium' } }));
    const { scans, runner } = daemon(scanWorkerUrl(), [root]);
    const submitted = await scans.submit({ scan: newScan(server), buckets: [], now: TEST_CLOCK_START });
    await runner.start();
    await until(async () => (await scans.findById(submitted.scan!.id))?.status === 'completed');
    const report = (await scans.result(submitted.scan!.id))!.reports[0]!;
    expect(report.repoConfig).toEqual({ file: 'svc.config.json' });
    expect(report.findings.find((finding) => finding.ruleId === 'command-injection')?.severity).toBe('medium');
    expect(report.suppressed?.map((finding) => [finding.ruleId, finding.suppression?.kind])).toEqual([['suppression-without-reason', 'config']]);
    await runner.stop(0);
  });
});
