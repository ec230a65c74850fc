import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { pythonAnalyzer } from './index.js';
import { pythonSources, writeProject } from './test-support.js';

const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

async function analyze(server: string) {
  const root = await writeProject({ 'server.py': server });
  roots.push(root);
  return pythonAnalyzer.analyze(await pythonSources(root), { mode: 'fast' });
}

const HEADER = `
import logging
import os
import sqlite3

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.fastmcp import Context, FastMCP

mcp = FastMCP("x")
db = sqlite3.connect("x.db")
logger = logging.getLogger(__name__)
`;

describe('caller identity of Python tool handlers', () => {
  it('records the identity a handler reads and the parameters it compares with it', async () => {
    const { facts } = await analyze(`${HEADER}
def caller() -> str:
    token = get_access_token()
    return token.client_id


@mcp.tool()
def invoices(account_id: str, invoice_id: str) -> str:
    me = caller()
    if account_id != me:
        raise PermissionError("not yours")
    return str(db.execute("SELECT * FROM invoices WHERE id = ?", (invoice_id,)).fetchall())


@mcp.tool()
async def payments(account_id: str, ctx: Context) -> str:
    await ctx.info("listing payments")
    token = get_access_token()
    return str(db.execute("SELECT * FROM payments WHERE account_id = ?", (account_id,)).fetchall())
`);
    const byTool = Object.fromEntries(facts.filter((fact) => fact.kind === 'caller-identity').map((fact) => [fact.handler?.tool, fact.handler?.params]));
    expect(byTool).toEqual({ invoices: ['account_id'], payments: [] });
  });

  it('records a privilege granted on a caller-stated role, and bound SQL values as guarded flows', async () => {
    const { facts, flows } = await analyze(`${HEADER}
@mcp.tool()
def close_account(account_id: str, role: str = "member") -> str:
    if role != "admin":
        return "admins only"
    db.execute("DELETE FROM accounts WHERE id = ?", (account_id,))
    return "closed"
`);
    expect(facts.filter((fact) => fact.kind === 'caller-stated-role').map((fact) => fact.detail)).toEqual(['role']);
    const bound = flows.find((flow) => flow.sink.kind === 'sql' && flow.origin.param === 'account_id');
    expect(bound?.sanitizers).toContain('parameterised-sql');
  });
});

describe('secrets in Python logs and results', () => {
  it('follows a credential variable by key into results and logs, not a sibling key or a masked slice', async () => {
    const { flows } = await analyze(`${HEADER}
SETTINGS = {"url": os.environ.get("DESK_URL", ""), "api_token": os.getenv("DESK_TOKEN")}


@mcp.tool()
def login(user: str, password: str) -> str:
    logger.info("login %s with %s", user, password)
    return SETTINGS["url"]


@mcp.tool()
def settings_dump() -> str:
    token = SETTINGS["api_token"]
    logging.info("token ends with %s", token[-4:])
    return str(SETTINGS)
`);
    const summary = flows
      .filter((flow) => flow.sink.kind === 'log' || flow.sink.kind === 'tool-result')
      .map((flow) => [flow.sink.kind, flow.origin.param ?? flow.origin.detail, flow.sanitizers.includes('masked')])
      .sort();
    expect(summary).toContainEqual(['log', 'password', false]);
    expect(summary).toContainEqual(['tool-result', 'DESK_TOKEN', false]);
    expect(summary.filter(([kind, what, masked]) => what === 'DESK_TOKEN' && kind === 'log' && !masked)).toEqual([]);
    expect(summary.filter(([kind, what]) => kind === 'tool-result' && what === 'DESK_URL')).toEqual([]);
  });
});
