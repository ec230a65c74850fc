// The safety side of live remote scans: TLS errors, redirects off the origin, oversized answers and paginated
// listings, against real servers on 127.0.0.1.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { scanInputs, scanTarget } from '../engine.js';
import { parseTarget } from '../target.js';
import { startTestServer } from './testing.js';

const clock = () => new Date('2026-01-01T00:00:00Z');
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function listen(server: HttpServer): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('remote scan safety', () => {
  it.skipIf(!hasOpenssl())('reports a self-signed certificate as a finding and the endpoint as not scanned, never connecting past it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-tls-'));
    try {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
      let requests = 0;
      const server = createHttpsServer({ key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) }, (_req, res) => {
        requests++;
        res.end();
      });
      const host = await listen(server as unknown as HttpServer);
      const report = await scanTarget(parseTarget(`https://${host}/mcp`), { clock });
      expect(report.coverage.status).toBe('not-scanned');
      expect(report.coverage.reasons[0]).toMatch(/^TLS error \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\)/);
      expect(report.findings.map((finding) => finding.ruleId)).toEqual(['remote-tls-error']);
      expect(report.grade).toBeNull();
      expect(requests).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a redirect to another origin', async () => {
    let elsewhere = 0;
    const other = await listen(createHttpServer((_req, res) => (elsewhere++, res.end())));
    const host = await listen(createHttpServer((_req, res) => res.writeHead(307, { location: `http://${other}/mcp` }).end()));
    const run = await scanInputs([`http://${host}/mcp`], { clock });
    expect(run.reports).toEqual([]);
    expect(run.errors[0]!.message).toMatch(/cannot list the endpoint/);
    expect(elsewhere).toBe(0);
  });

  it('says what the endpoint answered when neither transport is accepted (an API-key gate answering 400)', async () => {
    const seen: string[] = [];
    const host = await listen(
      createHttpServer((req, res) => {
        seen.push(`${req.method} ${req.url}`);
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'missing X-Api-Key header' }));
      }),
    );
    const run = await scanInputs([`http://${host}/mcp`], { clock });
    expect(run.reports).toEqual([]);
    expect(seen).toEqual(['POST /mcp', 'GET /mcp']);
    expect(run.errors[0]!.message).toMatch(
      /^cannot list the endpoint: it answered the Streamable HTTP initialize with HTTP 400 \(.*missing X-Api-Key header.*\) and the legacy HTTP\+SSE transport failed too \(.*\): a gateway that wants a credential may answer this way/,
    );
  });

  it('does not grade an endpoint whose tool list is over the byte limit', async () => {
    const server = await startTestServer({ tools: [{ name: 'big', description: 'x'.repeat(50_000) }] });
    closers.push(() => server.close());
    const report = await scanTarget(parseTarget(server.url), { clock, source: { remote: { limits: { maxResponseBytes: 10_000 } } } });
    expect(report.coverage).toEqual({ status: 'not-scanned', reasons: [expect.stringMatching(/^tools\/list failed on page 1: .*over the 10000-byte limit/)] });
    expect(report.grade).toBeNull();
  });

  it('follows nextCursor through every page, and calls a listing past the page limit partial', async () => {
    const pages = 3;
    const handle = async (req: IncomingMessage, res: ServerResponse) => {
      const server = new Server({ name: 'paged', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, (request) => {
        const page = Number(request.params?.cursor ?? 0);
        return {
          tools: [{ name: `tool_${page}`, description: `Tool on page ${page}.`, inputSchema: { type: 'object' as const } }],
          ...(page + 1 < pages ? { nextCursor: String(page + 1) } : {}),
        };
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close());
      await server.connect(transport);
      await transport.handleRequest(req, res);
    };
    const host = await listen(createHttpServer((req, res) => void handle(req, res)));
    const report = await scanTarget(parseTarget(`http://${host}/mcp`), { clock });
    expect(report.tools.map((tool) => tool.name)).toEqual(['tool_0', 'tool_1', 'tool_2']);
    expect(report.coverage.status).toBe('scanned');

    const cut = await scanTarget(parseTarget(`http://${host}/mcp`), { clock, source: { remote: { limits: { maxPages: 2 } } } });
    expect(cut.tools.map((tool) => tool.name)).toEqual(['tool_0', 'tool_1']);
    expect(cut.coverage).toEqual({ status: 'partial', reasons: ['tools/list has more than 2 pages; only the first 2 were scanned'] });
  });
});
