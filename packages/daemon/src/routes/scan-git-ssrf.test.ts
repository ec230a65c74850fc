// SSRF through git URLs: a caller must not make the daemon's git connect to its own network, nor learn from git's
// error text which ports answer. A listener on 127.0.0.1 stands for an internal service and counts connections.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_GIT_POLICY, GIT_FETCH_FAILED, type GitPolicy } from '../jobs/git-destination.js';
import type { ScanView } from '../scan-view.js';
import { call, expectError } from '../test/http.js';
import { startTestServer, type TestServer } from '../test/server.js';

let internal: Server;
let port: number;
const requests: string[] = [];
let server: TestServer;

beforeAll(async () => {
  internal = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.statusCode = 404;
    res.end('internal service');
  });
  await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
  port = (internal.address() as AddressInfo).port;
});
afterAll(async () => {
  internal.closeAllConnections();
  await new Promise((resolve) => internal.close(resolve));
});
afterEach(async () => {
  await server.close();
  requests.length = 0;
});

async function waitForEnd(id: string): Promise<ScanView & { result?: { errors: Array<{ input: string; message: string }> } }> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const response = await call(server, 'GET', `/scan/${id}`);
    const view = ((await response.json()) as { data: ScanView & { result?: { errors: Array<{ input: string; message: string }> } } }).data;
    if (['completed', 'failed'].includes(view.status)) return view;
    if (Date.now() > deadline) throw new Error(`scan ${id} still ${view.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function submitPublic(input: string): Promise<Response> {
  return call(server, 'POST', '/scan', undefined, { input, visibility: 'public' });
}

/** The id of a queued scan, whichever envelope the route answers with. */
async function queuedId(response: Response): Promise<string> {
  const body = (await response.json()) as { id?: string; data?: { id: string } };
  return body.data?.id ?? body.id!;
}

const failureOf = (view: Awaited<ReturnType<typeof waitForEnd>>) => view.error ?? view.result?.errors.map((error) => error.message).join('; ');

describe('git URLs submitted to the daemon', () => {
  it('refuses loopback, decimal and credential-bearing URLs and other transports at submit, anonymously too, without connecting', async () => {
    server = await startTestServer(undefined, undefined, { git: DEFAULT_GIT_POLICY });
    for (const input of [
      `git+http://127.0.0.1:${port}/anon.git`,
      `git+https://127.0.0.1:${port}/anon.git`,
      `git+https://2130706433:${port}/anon.git`,
      `git+https://[::1]:${port}/anon.git`,
      `git+https://scanner:secret@localhost:${port}/anon.git`,
      `git+ssh://git@127.0.0.1:${port}/anon.git`,
    ]) {
      const body = await expectError(await submitPublic(input), 400, 'INVALID_FIELD');
      expect(body.details, input).toEqual({ field: 'input' });
    }
    expect(requests).toEqual([]);
  });

  it('resolves a host name in the worker and refuses one that points inside, without connecting', async () => {
    server = await startTestServer(undefined, undefined, { git: { ...DEFAULT_GIT_POLICY, protocols: ['https', 'http'] } });
    const response = await submitPublic(`git+http://localhost:${port}/api/delete?user=admin#main`);
    expect(response.status).toBe(202);
    const view = await waitForEnd(await queuedId(response));
    expect(failureOf(view)).toMatch(/public address/);
    expect(requests).toEqual([]);
  });

  it('clones from a host the operator allows, pinned to the address it checked, and reports a failure without git\'s text', async () => {
    const policy: GitPolicy = { protocols: ['http'], allowPrivate: false, hosts: ['localhost'] };
    server = await startTestServer(undefined, undefined, { git: policy });
    const response = await submitPublic(`git+http://localhost:${port}/team/server.git`);
    expect(response.status).toBe(202);
    const view = await waitForEnd(await queuedId(response));
    expect(requests).toEqual(['GET /team/server.git/info/refs?service=git-upload-pack']);
    const failure = failureOf(view) ?? '';
    expect(failure).toContain(GIT_FETCH_FAILED);
    // The caller's own URL names the target; nothing else of git's answer (status, its error line, the address) does.
    expect(failure.replaceAll(`git+http://localhost:${port}/team/server.git`, '<input>')).toBe(`<input>: ${GIT_FETCH_FAILED}`);
  });
});
