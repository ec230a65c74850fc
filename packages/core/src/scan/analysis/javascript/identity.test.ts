import { describe, expect, it } from 'vitest';
import type { SourceFile } from '../../model.js';
import { javascriptAnalyzer } from './index.js';

function source(path: string, text: string): SourceFile {
  return { path, absPath: `/virtual/${path}`, language: 'typescript', role: 'source', size: text.length, text };
}

async function analyze(text: string) {
  return javascriptAnalyzer.analyze([source('src/index.ts', text)], { mode: 'fast' });
}

const HEADER = `
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import pg from 'pg';
const pool = new pg.Pool();
const server = new McpServer({ name: 'x', version: '1' });
`;

describe('caller identity of tool handlers', () => {
  it('records a handler that reads extra.authInfo and which parameters it holds against it', async () => {
    const { facts } = await analyze(`${HEADER}
server.registerTool('get_notes', { inputSchema: { userId: z.string(), noteId: z.string() } }, async ({ userId, noteId }, extra) => {
  const me = extra.authInfo?.clientId;
  if (userId !== me) throw new Error('forbidden');
  return { content: [{ type: 'text', text: String(await pool.query('select 1 where id = $1', [noteId])) }] };
});`);
    const identity = facts.find((fact) => fact.kind === 'caller-identity');
    expect(identity?.handler).toEqual({ tool: 'get_notes', params: ['userId'] });
    expect(identity?.detail).toBe('extra.authInfo.clientId');
  });

  it('counts a scope check of the identity as authorising every argument, and a presence check as nothing', async () => {
    const { facts } = await analyze(`${HEADER}
server.registerTool('purge', { inputSchema: { userId: z.string() } }, async ({ userId }, extra) => {
  if (!extra.authInfo?.scopes.includes('admin')) throw new Error('forbidden');
  await pool.query('delete from notes where owner = $1', [userId]);
  return { content: [] };
});
server.registerTool('peek', { inputSchema: { userId: z.string() } }, async ({ userId }, extra) => {
  if (!extra.authInfo) throw new Error('sign in first');
  await pool.query('select * from notes where owner = $1', [userId]);
  return { content: [] };
});`);
    const byTool = Object.fromEntries(facts.filter((fact) => fact.kind === 'caller-identity').map((fact) => [fact.handler?.tool, fact.handler?.params]));
    expect(byTool).toEqual({ purge: ['userId'], peek: [] });
  });

  it('records a privilege granted on a caller-stated flag or role, not a role checked on the token', async () => {
    const { facts } = await analyze(`${HEADER}
server.registerTool('wipe', { inputSchema: { isAdmin: z.boolean() } }, async ({ isAdmin }) => {
  if (!isAdmin) throw new Error('admins only');
  return { content: [] };
});
server.registerTool('invite', { inputSchema: { role: z.string() } }, async (args) => {
  if (args.role === 'owner') throw new Error('cannot invite owners');
  return { content: [] };
});
server.registerTool('label', { inputSchema: { role: z.string() } }, async ({ role }, extra) => {
  if (role === 'admin' && extra.authInfo?.scopes.includes('admin')) return { content: [] };
  return { content: [] };
});`);
    expect(facts.filter((fact) => fact.kind === 'caller-stated-role').map((fact) => [fact.handler?.tool, fact.detail])).toEqual([
      ['wipe', 'isAdmin'],
      ['invite', 'role'],
    ]);
  });

  it('passes bound SQL values as guarded sql flows', async () => {
    const { flows } = await analyze(`${HEADER}
server.registerTool('notes', { inputSchema: { ownerId: z.string() } }, async ({ ownerId }) => {
  const rows = await pool.query('select * from notes where owner = $1', [ownerId]);
  return { content: [{ type: 'text', text: JSON.stringify(rows) }] };
});`);
    const bound = flows.find((flow) => flow.sink.kind === 'sql' && flow.origin.param === 'ownerId');
    expect(bound?.sanitizers).toContain('parameterised-sql');
  });
});

describe('secrets in logs and results', () => {
  it('follows a credential variable into a log line and a returned object, not through a client built with it', async () => {
    const { flows } = await analyze(`${HEADER}
import { Client } from 'some-api';
const config = { url: process.env.API_URL, apiKey: process.env.ACME_API_KEY };
const client = makeClient(config.apiKey);
function makeClient(key: string) { return new Client({ key }); }
console.error('starting with', config);
console.error('key ends with', config.apiKey.slice(-4), Boolean(process.env.ACME_API_KEY));
server.registerTool('status', { inputSchema: {} }, async () => {
  const answer = await client.search('x');
  return { content: [{ type: 'text', text: JSON.stringify({ config, answer }) }] };
});
server.registerTool('ping', { inputSchema: {} }, async () => ({ content: [{ type: 'text', text: config.url ?? '' }] }));`);
    const secret = flows.filter((flow) => flow.origin.detail === 'process.env.ACME_API_KEY');
    // Line 13 logs a masked form and whether the key is set: no flow.
    expect(secret.map((flow) => [flow.sink.kind, flow.sink.location.line])).toEqual([
      ['log', 12],
      ['tool-result', 16],
    ]);
  });

  it('reads a tool parameter written by console or a logger as a log flow', async () => {
    const { flows } = await analyze(`${HEADER}
import logger from './logger.js';
server.registerTool('login', { inputSchema: { password: z.string() } }, async ({ password }) => {
  logger.info(\`login with \${password}\`);
  return { content: [] };
});`);
    expect(flows.some((flow) => flow.sink.kind === 'log' && flow.origin.param === 'password')).toBe(true);
  });
});

describe('isSecretName', () => {
  it('reads credentials from names, and not where or what they are called', async () => {
    const { isSecretName } = await import('../catalog.js');
    const secret = ['OPENAI_API_KEY', 'apiKey', 'dbPassword', 'client_secret', 'authToken', 'STRIPE_KEY', 'passphrase', 'GITHUB_TOKEN'];
    const notSecret = ['TOKEN_URL', 'apiKeyHeader', 'passwordHash', 'pageToken', 'max_tokens', 'progressToken', 'key', 'cacheKey', 'AWS_ACCESS_KEY_ID', 'keyword'];
    expect(secret.filter((name) => !isSecretName(name))).toEqual([]);
    expect(notSecret.filter((name) => isSecretName(name))).toEqual([]);
  });
});

describe('credential headers in logs', () => {
  it('records the Authorization header of a request written to a log', async () => {
    const { flows } = await javascriptAnalyzer.analyze(
      [
        source(
          'src/http.ts',
          `import express from 'express';
const app = express();
app.post('/mcp', (req, res) => {
  console.log('incoming', req.method, req.headers.authorization);
  res.status(202).end();
});
app.listen(3000, '127.0.0.1');`,
        ),
      ],
      { mode: 'fast' },
    );
    expect(flows.filter((flow) => flow.sink.kind === 'log').map((flow) => flow.origin.detail)).toEqual(['req.headers.authorization']);
  });
});
