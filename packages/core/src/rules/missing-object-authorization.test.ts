import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scanWorkspace } from '../scan/engine.js';

const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

async function findings(files: Record<string, string>) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'svc-authz-'));
  roots.push(root);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), text);
  }
  const report = await scanWorkspace({ target: { kind: 'directory', input: root, path: root }, root, name: 'x', dispose: async () => {} }, { mode: 'fast' });
  return report.findings.filter((finding) => finding.ruleId === 'missing-object-authorization').map((finding) => `${finding.severity} ${finding.message}`);
}

const PACKAGE = JSON.stringify({ name: 'x', version: '1.0.0', type: 'module', dependencies: { '@modelcontextprotocol/sdk': '^1.17.0', pg: '^8.0.0' } });

describe('missing-object-authorization', () => {
  it('stays quiet on a local stdio server that takes a user id for its own database', async () => {
    expect(
      await findings({
        'package.json': PACKAGE,
        'src/index.ts': `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import pg from 'pg';
import { z } from 'zod';
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
const server = new McpServer({ name: 'crm', version: '1' });
server.registerTool('orders_of', { inputSchema: { customerId: z.string() } }, async ({ customerId }) => {
  const { rows } = await pool.query('SELECT * FROM orders WHERE customer_id = $1', [customerId]);
  return { content: [{ type: 'text', text: JSON.stringify(rows) }] };
});
await server.connect(new StdioServerTransport());
// A metrics endpoint behind a bearer check: the server authenticates something, but its MCP tools serve one user.
import http from 'node:http';
http.createServer((req, res) => {
  if (req.headers.authorization !== \`Bearer \${process.env.METRICS_TOKEN}\`) return void res.writeHead(401).end();
  res.end('ok');
}).listen(9464, '127.0.0.1');`,
      }),
    ).toEqual([]);
  });

  it("stays quiet when the owner goes to a third-party API that the caller's own token scopes", async () => {
    expect(
      await findings({
        'package.json': PACKAGE,
        'src/index.ts': `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
const server = new McpServer({ name: 'gh', version: '1' });
server.registerTool('repos_of', { inputSchema: { username: z.string() } }, async ({ username }, extra) => {
  const response = await fetch(\`https://api.github.com/users/\${username}/repos\`, { headers: { Authorization: \`Bearer \${extra.authInfo?.token}\` } });
  return { content: [{ type: 'text', text: await response.text() }] };
});`,
      }),
    ).toEqual([]);
  });
});
