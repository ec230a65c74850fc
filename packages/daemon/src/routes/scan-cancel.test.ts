import { afterEach, describe, expect, it } from 'vitest';
import type { ScanView } from '../scan-view.js';
import { call, createKey, expectError, readStream, userWithSession } from '../test/http.js';
import { startTestServer, type TestServer } from '../test/server.js';

// DELETE /api/v1/scan/{id} over a real socket and SQLite file, with the stand-in worker of the pool tests: `npm:loop`
// spins until the pool terminates it, so only the cancel can end it (the pool has one worker, so a second scan waits
// in the queue).

const BEHAVE_WORKER = new URL('../jobs/test-workers/behave.mjs', import.meta.url);

let server: TestServer;
afterEach(async () => {
  await server.close();
});

async function start(): Promise<TestServer> {
  server = await startTestServer(undefined, undefined, { pool: { workerUrl: BEHAVE_WORKER }, streamHeartbeatMs: 200 });
  return server;
}

async function submit(key: string, input: string, visibility: 'public' | 'private' = 'public'): Promise<{ scan: ScanView; remaining: string | null }> {
  const response = await call(server, 'POST', '/api/v1/scan', key, { input, visibility });
  expect(response.status).toBe(202);
  return { scan: (await response.json()) as ScanView, remaining: response.headers.get('x-ratelimit-remaining') };
}

async function waitForStatus(id: string, status: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await server.services.scans.findById(id))?.status !== status) {
    if (Date.now() > deadline) throw new Error(`scan ${id} never became ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function waitForIdle(): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (server.services.runner.running > 0) {
    if (Date.now() > deadline) throw new Error('the runner still has a scan in flight');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('DELETE /api/v1/scan/{id}', () => {
  it('stops a running scan: 200 cancelled, worker gone, a final cancelled event, the quota stays spent', async () => {
    await start();
    const { user, token } = await userWithSession(server, 'dev');
    const { key } = await createKey(server, token);
    const { scan, remaining } = await submit(key, 'npm:loop');
    expect(remaining).toBe('9');
    await waitForStatus(scan.id, 'running');

    const response = await call(server, 'DELETE', `/api/v1/scan/${scan.id}`, key);
    expect(response.status).toBe(200);
    expect((await response.json()) as ScanView).toMatchObject({ id: scan.id, status: 'cancelled', user_id: user.id });

    // The busy worker only ends when terminated: the runner being idle means the cancel reached it.
    await waitForIdle();
    const stored = await server.services.scans.findById(scan.id);
    expect(stored).toMatchObject({ status: 'cancelled', error: null });
    expect(stored!.finishedAt).not.toBeNull();
    const stream = await readStream(await call(server, 'GET', `/scan/${scan.id}/stream`));
    expect(stream.events.map((event) => event.event)).toEqual(['snapshot', 'cancelled']);
    expect(JSON.parse(stream.events[1]!.data)).toMatchObject({ scan: { id: scan.id, status: 'cancelled' } });

    // Not refunded: the next submission of the minute sees 8 of 10 left, not 9.
    expect((await submit(key, 'npm:ok')).remaining).toBe('8');
    // Cancelling it again is a conflict, as is cancelling a scan that completed.
    await expectError(await call(server, 'DELETE', `/api/v1/scan/${scan.id}`, key), 409, 'CONFLICT');
  });

  it('cancels a queued scan before it runs, and the queue moves on', async () => {
    await start();
    const { token } = await userWithSession(server, 'dev');
    const { key } = await createKey(server, token);
    const { scan: running } = await submit(key, 'npm:loop');
    await waitForStatus(running.id, 'running');
    const { scan: queued } = await submit(key, 'npm:sleep-10');
    expect((await server.services.scans.findById(queued.id))?.status).toBe('queued');

    const follower = readStream(await call(server, 'GET', `/scan/${queued.id}/stream`), (events) => events.some((event) => event.event === 'cancelled'));
    expect((await call(server, 'DELETE', `/api/v1/scan/${queued.id}`, key)).status).toBe(200);
    expect((await follower).events.map((event) => event.event)).toEqual(['snapshot', 'cancelled']);

    expect((await call(server, 'DELETE', `/api/v1/scan/${running.id}`, key)).status).toBe(200);
    await waitForIdle();
    // The cancelled queued scan never ran.
    expect(await server.services.scans.findById(queued.id)).toMatchObject({ status: 'cancelled', startedAt: null, attempts: 0 });
  });

  it('is for the submitter only: 403 for another user of a public scan, 404 for a private one, 403 without scan:submit, 409 when finished', async () => {
    await start();
    const { token } = await userWithSession(server, 'dev');
    const { key } = await createKey(server, token);
    const { token: otherToken } = await userWithSession(server, 'dev');
    const { key: other } = await createKey(server, otherToken);
    const { key: readOnly } = await createKey(server, token, { scopes: ['scan:read'] });

    const { scan: publicScan } = await submit(key, 'npm:loop');
    await waitForStatus(publicScan.id, 'running');
    const { scan: privateScan } = await submit(key, 'npm:sleep-10', 'private');
    await expectError(await call(server, 'DELETE', `/api/v1/scan/${publicScan.id}`, other), 403, 'FORBIDDEN');
    await expectError(await call(server, 'DELETE', `/api/v1/scan/${privateScan.id}`, other), 404, 'NOT_FOUND');
    await expectError(await call(server, 'DELETE', `/api/v1/scan/${publicScan.id}`, readOnly), 403, 'FORBIDDEN');
    await expectError(await call(server, 'DELETE', '/api/v1/scan/no-such-scan', key), 404, 'NOT_FOUND');
    await expectError(await call(server, 'DELETE', `/api/v1/scan/${publicScan.id}`), 401, 'UNAUTHORIZED');
    expect((await server.services.scans.findById(publicScan.id))?.status).toBe('running');

    expect((await call(server, 'DELETE', `/api/v1/scan/${publicScan.id}`, key)).status).toBe(200);
    await waitForStatus(privateScan.id, 'failed');
    await expectError(await call(server, 'DELETE', `/api/v1/scan/${privateScan.id}`, key), 409, 'CONFLICT');
  });

  it("lets an owner or admin of the team that paid cancel a member's scan, not another member", async () => {
    await start();
    const owner = await userWithSession(server, 'team', 'owner@example.com');
    expect((await call(server, 'POST', '/team', owner.token, { name: 'Acme' })).status).toBe(201);
    const join = async (email: string, role: 'member' | 'admin') => {
      const invited = await call(server, 'POST', '/team/invite', owner.token, { email, role });
      const { invite_token } = ((await invited.json()) as { data: { invite_token: string } }).data;
      const joined = await userWithSession(server, 'dev', email);
      expect((await call(server, 'POST', '/team/invite/accept', joined.token, { invite_token })).status).toBe(200);
      return (await createKey(server, joined.token)).key;
    };
    const submitter = await join('sam@example.com', 'member');
    const admin = await join('ada@example.com', 'admin');
    const member = await join('max@example.com', 'member');

    // Sam's plan ranks below the team's, so the team pays: org_id names it and its members see the private scan.
    const { scan } = await submit(submitter, 'npm:loop', 'private');
    expect(scan.org_id).not.toBeNull();
    await waitForStatus(scan.id, 'running');
    await expectError(await call(server, 'DELETE', `/api/v1/scan/${scan.id}`, member), 403, 'FORBIDDEN');
    const cancelled = await call(server, 'DELETE', `/api/v1/scan/${scan.id}`, admin);
    expect(cancelled.status).toBe(200);
    expect(((await cancelled.json()) as ScanView).status).toBe('cancelled');
    await waitForIdle();
  });

  it('is listed in the OpenAPI document', async () => {
    await start();
    const document = (await (await call(server, 'GET', '/api/v1/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(document.paths['/api/v1/scan/{id}'] ?? {})).toContain('delete');
  });
});
