import { cp, mkdtemp, realpath, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import type { ScanRun } from '@svc/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, userWithSession } from '../../../daemon/src/test/http.js';
import { startTestServer } from '../../../daemon/src/test/server.js';
import type { TestServer } from '../../../daemon/src/test/server.js';
import { captureIo, runSvc } from '../test/io.js';

// svc scan --remote against a real svcd in-process (real socket, real SQLite, the real worker pool) that may scan a
// temp copy of a fixture (SVC_SCAN_ROOTS). The report must be what a local scan of the same folder prints.

const fixture = fileURLToPath(new URL('../../../../fixtures/servers/poisoned-notes-ts', import.meta.url));

let root: string;
let target: string;
let server: TestServer;
let local: { code: number; run: ScanRun };

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'svc-cli-remote-')));
  target = join(root, 'poisoned-notes-ts');
  await cp(fixture, target, { recursive: true });
  server = await startTestServer(undefined, undefined, { scanRoots: [root] });
  const result = await runSvc(['scan', target, '--format', 'json', '--quiet'], captureIo({ SVC_CONFIG_DIR: join(root, 'config') }));
  local = { code: result.code, run: JSON.parse(result.stdout) as ScanRun };
}, 60_000);
afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

function env(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { SVC_CONFIG_DIR: join(root, 'config'), SVC_CREDENTIAL_STORE: 'file', NO_COLOR: '1', ...extra };
}

/** Keys and types of a value, recursively: what "the same shape" means for two reports of the same folder. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shape(value[0])];
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.keys(value).sort().map((key) => [key, shape((value as Record<string, unknown>)[key])]));
  return typeof value;
}

function ruleIds(run: ScanRun): string[] {
  return run.reports.flatMap((report) => report.findings.map((finding) => finding.ruleId)).sort();
}

/** Moves the daemon's clock to the start of the next minute, so a burst never straddles two minutes. */
function toNextMinute(): void {
  server.advance(60_000 - (server.services.clock().getTime() % 60_000) + 1_000);
}

describe('svc scan --remote', () => {
  it('the local scan of the fixture has findings at or above high (exit 1)', () => {
    expect(local.code).toBe(1);
    expect(local.run.reports[0]!.findings.length).toBeGreaterThan(0);
  });

  it('with an API key: the live progress on stderr, the same JSON report as a local scan, the same exit code', async () => {
    const { token } = await userWithSession(server, 'dev');
    const { key } = await createKey(server, token);
    const result = await runSvc(['scan', '--remote', '--server', server.url, target, '--format', 'json'], captureIo(env({ SVC_API_KEY: key })));
    expect(result.code).toBe(1);
    const run = JSON.parse(result.stdout) as ScanRun;
    expect(shape(run)).toEqual(shape(local.run));
    expect(run.reports[0]!.findings.length).toBe(local.run.reports[0]!.findings.length);
    expect(ruleIds(run)).toEqual(ruleIds(local.run));
    expect(run.reports[0]!.score).toBe(local.run.reports[0]!.score);
    expect(run.errors).toEqual([]);
    // Plain progress (stderr is not a terminal) from the translated stream events, then the final per-target line.
    const lines = result.stderr.split('\n');
    expect(lines).toContain(`[${target}] stage fetch`);
    expect(lines.filter((line) => line.startsWith(`[${target}] finding `)).length).toBe(run.reports[0]!.findings.length);
    expect(lines).toContain(`[${target}] done ${run.reports[0]!.findings.length} finding(s), score ${run.reports[0]!.score}/100 grade ${run.reports[0]!.grade}`);
  });

  it('with a session and no key: the private scan is reported from the stream, findings and exit code as local, and stderr says so', async () => {
    const { token } = await userWithSession(server, 'dev');
    const result = await runSvc(['scan', '--remote', '--server', server.url, target, '--format', 'json', '--fail-on', 'critical'], captureIo(env({ SVC_TOKEN: token })));
    const run = JSON.parse(result.stdout) as ScanRun;
    expect(ruleIds(run)).toEqual(ruleIds(local.run));
    expect(run.reports[0]!.score).toBe(local.run.reports[0]!.score);
    expect(run.reports[0]!.grade).toBe(local.run.reports[0]!.grade);
    const localCritical = await runSvc(['scan', target, '--format', 'json', '--quiet', '--fail-on', 'critical'], captureIo(env({})));
    expect(result.code).toBe(localCritical.code);
    expect(result.stderr).toContain('svc: a private scan read with a session: the report is built from the event stream');
  });

  it('on a terminal the stream drives the same Ink live view as a local scan', async () => {
    const { token } = await userWithSession(server, 'dev');
    const { key } = await createKey(server, token);
    const io = captureIo(env({ SVC_API_KEY: key }));
    Object.assign(io.stderr, { isTTY: true, columns: 120, rows: 40 });
    const result = await runSvc(['scan', '--remote', '--server', server.url, target, '--format', 'json'], io);
    expect(result.code).toBe(1);
    const view = stripVTControlCharacters(result.stderr);
    expect(view).toContain('poisoned-notes-ts');
    // Not the plain lines of a pipe.
    expect(view).not.toContain('] stage fetch');
    for (const ruleId of new Set(ruleIds(local.run))) expect(view).toContain(ruleId);
    expect(view).toContain(`${local.run.reports[0]!.score}`);
  });

  it('the text report is the same reporter output as a local scan', async () => {
    const { token } = await userWithSession(server, 'dev');
    const { key } = await createKey(server, token);
    const remote = await runSvc(['scan', '--remote', '--server', server.url, target, '--quiet'], captureIo(env({ SVC_API_KEY: key })));
    const here = await runSvc(['scan', target, '--quiet'], captureIo(env({})));
    // Timings differ between two runs; everything else is the same text.
    const withoutTimes = (text: string) => text.replace(/\d+(\.\d+)? ?(ms|s)\b/g, 'T');
    expect(withoutTimes(remote.stdout)).toBe(withoutTimes(here.stdout));
    expect(remote.code).toBe(here.code);
  });

  it('a 429 prints the wait and the limit on one line and exits 2; nothing is queued for it', async () => {
    const { token } = await userWithSession(server, 'dev');
    const { key } = await createKey(server, token);
    toNextMinute();
    for (let i = 0; i < 10; i++) expect((await call(server, 'POST', '/api/v1/scan', key, { input: 'npm:left-pad@1.3.0' })).status).toBe(202);
    const before = server.db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM scans').get()?.n;
    const result = await runSvc(['scan', '--remote', '--server', server.url, target], captureIo(env({ SVC_API_KEY: key })));
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(result.stderr).toMatch(/^svc: .+ \(RATE_LIMITED: 10 of 10 in the minute window on the dev tier; retry in \d+ s\)\n$/);
    expect(server.db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM scans').get()?.n).toBe(before);
  });

  it('an unreachable server, an expired session, no credential and a refused input are one line each and exit 2', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const unreachable = await runSvc(['scan', '--remote', '--server', `http://127.0.0.1:${port}`, target], captureIo(env({ SVC_API_KEY: 'svc_x' })));
    expect(unreachable).toEqual({ code: 2, stdout: '', stderr: `svc: cannot reach http://127.0.0.1:${port}: ECONNREFUSED\n` });

    const { token } = await userWithSession(server, 'dev');
    server.advance(13 * 3600_000);
    const expired = await runSvc(['scan', '--remote', '--server', server.url, target], captureIo(env({ SVC_TOKEN: token })));
    expect(expired).toEqual({ code: 2, stdout: '', stderr: 'svc: the session token in SVC_TOKEN has expired or was refused: unset SVC_TOKEN (then `svc login`) or renew it\n' });

    const none = await runSvc(['scan', '--remote', '--server', server.url, target], captureIo(env({})));
    expect(none).toEqual({ code: 2, stdout: '', stderr: `svc: not signed in to ${server.url}: run \`svc login\`\n` });

    const fresh = await userWithSession(server, 'dev');
    const { key } = await createKey(server, fresh.token);
    const outside = await runSvc(['scan', '--remote', '--server', server.url, tmpdir()], captureIo(env({ SVC_API_KEY: key })));
    expect(outside.code).toBe(2);
    expect(outside.stderr).toMatch(/^svc: .+ \(INVALID_FIELD\)\n$/);

    const discover = await runSvc(['scan', '--remote', '--discover'], captureIo(env({})));
    expect(discover.code).toBe(2);
    expect(discover.stderr).toContain('--discover finds configs on this machine');
  });
});

describe('svc scan --remote interrupted', () => {
  it('cancels the scan on the server (DELETE /api/v1/scan/{id}) and exits 130', async () => {
    // The pool tests' stand-in worker: `npm:loop` spins until the pool terminates it, so only a cancel ends it.
    const daemon = await startTestServer(undefined, undefined, { pool: { workerUrl: new URL('../../../daemon/src/jobs/test-workers/behave.mjs', import.meta.url) } });
    try {
      const { token } = await userWithSession(daemon, 'dev');
      const { key } = await createKey(daemon, token);
      const interrupt = new AbortController();
      const io = captureIo(env({ SVC_API_KEY: key }), { signal: interrupt.signal });
      const scanning = runSvc(['scan', '--remote', '--server', daemon.url, 'npm:loop'], io);
      const running = async () => daemon.db.prepare<[], { id: string }>("SELECT id FROM scans WHERE status = 'running'").get();
      for (let waited = 0; (await running()) === undefined; waited += 20) {
        if (waited > 10_000) throw new Error('the scan never started');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const { id } = (await running())!;
      interrupt.abort(new Error('interrupted'));
      const result = await scanning;
      expect(result.code).toBe(130);
      expect(result.stderr.match(/svc: interrupted/g)).toHaveLength(1);
      expect(result.stderr).toContain(`svc: interrupted; scan ${id} was cancelled on ${daemon.url}`);
      expect((await daemon.services.scans.findById(id))?.status).toBe('cancelled');
    } finally {
      await daemon.close();
    }
  });
});
