import { describe, expect, it } from 'vitest';
import rule, { launchSpecs, unpinnedReason } from './unpinned-npx-config.js';
import type { ScanTarget } from '../scan/model.js';
import { runRule } from './support/test-context.js';

function fromConfig(command: string, args: string[]): ScanTarget {
  const origin = { configPath: '/home/u/.cursor/mcp.json', client: 'cursor' as const, serverName: 'files', command, args };
  return { kind: 'npm', input: args.join(' '), name: 'x', spec: 'x', origin };
}

describe('unpinned-npx-config', () => {
  it.each([
    ['npx', ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], /no version/],
    ['npx', ['-y', '@modelcontextprotocol/server-filesystem@latest', '/tmp'], /moving tag `latest`/],
    ['npx', ['--yes', 'mcp-remote@^0.1.0', 'https://example.com/mcp'], /range `\^0\.1\.0`/],
    ['npx', ['-y', '--package=@playwright/mcp', 'mcp'], /no version/],
    ['npx', ['-y', 'github:acme/mcp-server'], /not a commit/],
    ['C:\\Program Files\\nodejs\\npx.cmd', ['-y', 'tavily-mcp'], /no version/],
    ['cmd', ['/c', 'npx', '-y', 'firecrawl-mcp'], /no version/],
    ['bunx', ['exa-mcp-server'], /no version/],
    ['pnpm', ['dlx', 'exa-mcp-server@1'], /range `1`/],
    ['uvx', ['mcp-server-fetch'], /no version/],
    ['uvx', ['mcp-server-time@latest', '--local-timezone=UTC'], /latest/],
    ['uvx', ['--from', 'mcp-server-git>=0.6', 'mcp-server-git'], /range `>=0\.6`/],
    ['uvx', ['--python', '3.12', 'mcp-server-sqlite'], /no version/],
    ['uv', ['tool', 'run', 'mcp-server-fetch'], /no version/],
    ['pipx', ['run', 'mcp-server-fetch'], /no version/],
  ])('reports %s %j', (command, args, reason) => {
    const findings = runRule(rule, { target: fromConfig(command, args) });
    expect(findings).toHaveLength(1);
    expect(findings[0]?.severity).toBe('medium');
    expect(findings[0]?.message).toMatch(reason);
    expect(findings[0]?.message).toContain('/home/u/.cursor/mcp.json');
  });

  it.each([
    ['npx', ['-y', '@modelcontextprotocol/server-filesystem@2025.8.21', '/tmp']],
    ['npx', ['-y', 'github:acme/mcp-server#0123456789abcdef0123456789abcdef01234567']],
    ['npx', ['./local-server']],
    ['uvx', ['mcp-server-fetch==0.6.3']],
    ['uvx', ['mcp-server-time@2025.1.1']],
    ['uvx', ['--from', 'git+https://github.com/acme/srv@0123456789abcdef0123456789abcdef01234567', 'srv']],
    ['pipx', ['run', '--spec', 'mcp-server-fetch==0.6.3', 'mcp-server-fetch']],
    ['node', ['/opt/servers/index.js']],
    ['python', ['-m', 'mcp_server_fetch']],
    ['docker', ['run', '-i', '--rm', 'mcp/fetch']],
  ])('leaves %s %j alone', (command, args) => {
    expect(runRule(rule, { target: fromConfig(command, args) })).toEqual([]);
  });

  it('does nothing for targets that did not come from a config', () => {
    expect(runRule(rule, { target: { kind: 'npm', input: 'x', name: 'x', spec: 'x' } })).toEqual([]);
  });

  it('exposes its parsing for reuse', () => {
    expect(launchSpecs('npx', ['-y', '-p', 'a@1.0.0', '-p', 'b', 'cmd'])).toEqual([
      { launcher: 'npm', spec: 'a@1.0.0' },
      { launcher: 'npm', spec: 'b' },
    ]);
    expect(unpinnedReason({ launcher: 'npm', spec: 'alias@npm:real@1.2.3' })).toBeUndefined();
  });
});

describe('unpinned-npx-config in project configs', () => {
  it('reports unpinned launches in a checked-in .cursor/mcp.json at the server entry, and not pinned ones', () => {
    const text = `{
  // comments are allowed
  "mcpServers": {
    "pinned": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory@2025.8.4"] },
    "browser": { "command": "npx", "args": ["-y", "@playwright/mcp@latest"] },
    "remote": { "url": "https://example.com/mcp" },
  }
}`;
    const findings = runRule(rule, { files: [{ path: '.cursor/mcp.json', text, role: 'config' }] });
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ severity: 'medium', location: { file: '.cursor/mcp.json', line: 5 } });
    expect(findings[0]?.evidence).toBe('npx -y @playwright/mcp@latest');
  });

  it('points at the entry itself when the server name appears earlier in the file', () => {
    const text = `{
  "_comment": "browser: the playwright server, see below",
  "mcpServers": {
    "browser": {
      "command": "npx",
      "args": ["-y", "@playwright/mcp"]
    }
  }
}`;
    const findings = runRule(rule, { files: [{ path: '.mcp.json', text, role: 'config' }] });
    expect(findings.map((finding) => finding.location)).toEqual([{ file: '.mcp.json', line: 4, column: 5 }]);
  });

  it("points at the server's line in the config a scan started from", () => {
    const target = fromConfig('npx', ['-y', 'tavily-mcp']) as Extract<ScanTarget, { kind: 'npm' }>;
    const withLine: ScanTarget = { ...target, origin: { ...target.origin!, line: 12 } };
    expect(runRule(rule, { target: withLine })[0]?.location).toEqual({ file: '/home/u/.cursor/mcp.json', line: 12, column: 1 });
  });

  it('ignores JSON files that are not client configs', () => {
    const text = '{ "mcpServers": { "x": { "command": "npx", "args": ["-y", "pkg"] } } }';
    expect(runRule(rule, { files: [{ path: 'docs/example.json', text }] })).toEqual([]);
  });
});
