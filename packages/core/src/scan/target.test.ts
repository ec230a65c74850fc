import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanTarget } from './model.js';
import { expandTarget, fetchTarget, isScannable, parseTarget, TargetError } from './target.js';

const CONFIGS = fileURLToPath(new URL('../../../../fixtures/configs/', import.meta.url));
let work: string;

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'svc-target-test-'));
  await mkdir(path.join(work, 'some-server'));
  await mkdir(path.join(work, 'left-pad'));
  await writeFile(path.join(work, 'notes.txt'), 'hello');
  await writeFile(path.join(work, 'servers.json'), JSON.stringify({ mcpServers: { a: { command: 'npx', args: ['a'] } } }));
  await writeFile(path.join(work, 'other.json'), JSON.stringify({ name: 'not a config' }));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(TargetError);
    return (error as TargetError).reason;
  }
  throw new Error('expected a TargetError');
}

describe('parseTarget', () => {
  it('parses npm specs, prefixed and bare', () => {
    expect(parseTarget('npm:left-pad@1.3.0', work)).toEqual({ kind: 'npm', input: 'npm:left-pad@1.3.0', name: 'left-pad', spec: '1.3.0' });
    expect(parseTarget('npm:@scope/name@^2', work)).toMatchObject({ kind: 'npm', name: '@scope/name', spec: '^2' });
    expect(parseTarget('@modelcontextprotocol/server-everything', work)).toMatchObject({ kind: 'npm', name: '@modelcontextprotocol/server-everything', spec: 'latest' });
    expect(parseTarget('express@next', work)).toMatchObject({ kind: 'npm', name: 'express', spec: 'next' });
  });

  it('prefers an existing local directory over a bare package name', () => {
    expect(parseTarget('left-pad', work)).toEqual({ kind: 'directory', input: 'left-pad', path: path.join(work, 'left-pad') });
    expect(parseTarget('./some-server', work)).toMatchObject({ kind: 'directory', path: path.join(work, 'some-server') });
  });

  it('parses PyPI specs and validates PEP 508 names', () => {
    expect(parseTarget('pypi:mcp-server-fetch==2025.4.7')).toEqual({ kind: 'pypi', input: 'pypi:mcp-server-fetch==2025.4.7', name: 'mcp-server-fetch', version: '2025.4.7' });
    expect(parseTarget('pypi:Some_Project')).toEqual({ kind: 'pypi', input: 'pypi:Some_Project', name: 'some-project' });
    expect(reasonOf(() => parseTarget('pypi:-bad-'))).toMatch(/PEP 508/);
    expect(reasonOf(() => parseTarget('pypi:requests>=2'))).toMatch(/only exact versions/);
  });

  it('parses git URLs and forge shorthands', () => {
    expect(parseTarget('github:owner/repo#v1.2')).toEqual({ kind: 'git', input: 'github:owner/repo#v1.2', url: 'https://github.com/owner/repo.git', ref: 'v1.2' });
    expect(parseTarget('git+https://git.example.com/team/server.git#main')).toMatchObject({ kind: 'git', url: 'https://git.example.com/team/server.git', ref: 'main' });
    expect(parseTarget('git+ssh://git@github.com/owner/private.git')).toMatchObject({ kind: 'git', url: 'ssh://git@github.com/owner/private.git' });
    expect(parseTarget('git+ssh://git@git.corp.example:team/server.git#v2')).toMatchObject({ kind: 'git', url: 'git@git.corp.example:team/server.git', ref: 'v2' });
    expect(parseTarget('ssh://git@git.corp.example/team/server.git#dev')).toMatchObject({ kind: 'git', url: 'ssh://git@git.corp.example/team/server.git', ref: 'dev' });
    expect(parseTarget('file:///srv/repos/server.git')).toMatchObject({ kind: 'git', url: 'file:///srv/repos/server.git' });
    expect(parseTarget('git+file:///srv/repos/server.git#dev')).toMatchObject({ kind: 'git', url: 'file:///srv/repos/server.git', ref: 'dev' });
    expect(parseTarget('https://github.com/owner/repo')).toMatchObject({ kind: 'git', url: 'https://github.com/owner/repo.git' });
  });

  it('treats other http(s) URLs as remote endpoints', () => {
    expect(parseTarget('https://mcp.example.com/mcp')).toEqual({ kind: 'remote', input: 'https://mcp.example.com/mcp', url: 'https://mcp.example.com/mcp' });
    expect(parseTarget('http://127.0.0.1:3000/sse')).toMatchObject({ kind: 'remote' });
    expect(reasonOf(() => parseTarget('ftp://example.com/x'))).toMatch(/unsupported URL scheme/);
  });

  it('recognises MCP client configs by name or by content, and refuses other files', () => {
    expect(parseTarget(path.join(CONFIGS, 'vscode/.vscode/mcp.json'))).toMatchObject({ kind: 'config' });
    expect(parseTarget(path.join(CONFIGS, 'broken/claude_desktop_config.json'))).toMatchObject({ kind: 'config' });
    expect(parseTarget('servers.json', work)).toMatchObject({ kind: 'config', path: path.join(work, 'servers.json') });
    expect(reasonOf(() => parseTarget('other.json', work))).toMatch(/no MCP servers in this JSON file/);
    expect(reasonOf(() => parseTarget('notes.txt', work))).toMatch(/not a directory or an MCP client config file/);
    writeFileSync(path.join(work, 'broken.json'), '{ "mcpServers": { "x": ');
    expect(reasonOf(() => parseTarget('broken.json', work))).toMatch(/^not valid JSON: .* at line 1 column \d+$/);
  });

  it('reports missing directories and malformed input', () => {
    expect(reasonOf(() => parseTarget('./missing-dir', work))).toBe('no such directory');
    expect(reasonOf(() => parseTarget('owner/repo', work))).toBe('no such directory');
    expect(reasonOf(() => parseTarget('missing.json', work))).toBe('no such file');
    expect(reasonOf(() => parseTarget('   '))).toBe('empty target');
    expect(reasonOf(() => parseTarget('npm:./dir'))).toMatch(/not an npm registry package spec/);
    const error = (() => {
      try {
        parseTarget('./nope', work);
      } catch (e) {
        return e as TargetError;
      }
    })();
    expect(error?.message).toBe('./nope: no such directory');
    expect(error?.input).toBe('./nope');
  });
});

describe('expandTarget', () => {
  it('expands a Claude Desktop config into one target per server, with origins', async () => {
    const configPath = path.join(CONFIGS, 'claude-desktop/claude_desktop_config.json');
    const targets = await expandTarget(parseTarget(configPath));
    const byServer = new Map(targets.map((t) => ['origin' in t ? t.origin?.serverName : undefined, t]));
    expect(targets).toHaveLength(6);
    expect(byServer.get('filesystem')).toMatchObject({
      kind: 'npm',
      name: '@modelcontextprotocol/server-filesystem',
      spec: '2025.8.21',
      origin: { configPath, client: 'claude-desktop', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem@2025.8.21', '/Users/someone/Desktop'] },
    });
    expect(byServer.get('fetch')).toMatchObject({ kind: 'pypi', name: 'mcp-server-fetch', version: '2025.4.7', input: 'pypi:mcp-server-fetch==2025.4.7' });
    expect(byServer.get('github')).toMatchObject({ kind: 'remote', url: 'docker:ghcr.io/github/github-mcp-server', origin: { envKeys: ['GITHUB_PERSONAL_ACCESS_TOKEN'] } });
    expect(byServer.get('notes')).toMatchObject({ kind: 'directory', path: path.join(CONFIGS, 'local-servers/node-server') });
    expect(byServer.get('weather')).toMatchObject({ kind: 'directory', path: path.join(CONFIGS, 'local-servers/py-server') });
    expect(byServer.get('windows-wrapped')).toMatchObject({ kind: 'npm', name: 'mcp-remote-helper', spec: '1.2.0' });
    // Values of env entries never travel into the target.
    expect(JSON.stringify(targets)).not.toContain('<redacted>');
  });

  it('reads VS Code JSONC with comments, trailing commas and the `servers` key', async () => {
    const targets = await expandTarget(parseTarget(path.join(CONFIGS, 'vscode/.vscode/mcp.json')));
    expect(targets.map((t) => t.kind)).toEqual(['pypi', 'remote']);
    expect(targets[0]).toMatchObject({ name: 'mcp-server-sqlite', version: '0.6.2', origin: { client: 'vscode', serverName: 'sqlite', envKeys: ['API_KEY'] } });
    expect(targets[1]).toMatchObject({ url: 'https://docs.example.com/mcp', origin: { client: 'vscode' } });
  });

  it('handles Cursor, Windsurf and Claude Code configs', async () => {
    const cursor = await expandTarget(parseTarget(path.join(CONFIGS, 'cursor/.cursor/mcp.json')));
    expect(cursor).toMatchObject([
      { kind: 'npm', name: '@modelcontextprotocol/server-everything', spec: 'latest', origin: { client: 'cursor' } },
      { kind: 'remote', url: 'https://mcp.linear.app/sse' },
      { kind: 'git', url: 'https://github.com/example/mcp-git-server.git', ref: 'v1.0.0' },
    ]);
    const windsurf = await expandTarget(parseTarget(path.join(CONFIGS, 'windsurf/mcp_config.json')));
    expect(windsurf).toMatchObject([
      { kind: 'remote', url: 'https://mcp.example.com/sse', origin: { client: 'windsurf' } },
      { kind: 'pypi', name: 'mcp-server-time' },
    ]);
    const claudeCode = await expandTarget(parseTarget(path.join(CONFIGS, 'claude-code/.mcp.json')));
    expect(claudeCode).toMatchObject([
      { kind: 'npm', name: '@modelcontextprotocol/server-puppeteer', spec: '^2025.5.0', origin: { client: 'claude-code' } },
      { kind: 'remote', url: 'command:python' },
      { kind: 'remote', url: 'https://mcp.sentry.dev/sse' },
    ]);
  });

  it('expands Claude Code per-project servers from ~/.claude.json', async () => {
    const file = path.join(work, '.claude.json');
    await writeFile(
      file,
      JSON.stringify({
        mcpServers: { global: { command: 'npx', args: ['-y', 'global-server'] } },
        projects: { '/home/me/app': { mcpServers: { local: { command: 'uvx', args: ['local-server@1.0'] } } } },
      }),
    );
    const targets = await expandTarget(parseTarget(file));
    expect(targets).toMatchObject([
      { kind: 'npm', name: 'global-server', origin: { serverName: 'global', client: 'claude-code' } },
      { kind: 'pypi', name: 'local-server', version: '1.0', origin: { serverName: 'local (/home/me/app)' } },
    ]);
  });

  it('names the file and the parse position of a broken config', async () => {
    const configPath = path.join(CONFIGS, 'broken/claude_desktop_config.json');
    const error = await expandTarget(parseTarget(configPath)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetError);
    expect((error as TargetError).message).toBe(`${configPath}: not valid JSON: CommaExpected at line 5 column 7`);
  });

  it('leaves non-config targets as they are', async () => {
    const target: ScanTarget = { kind: 'npm', input: 'x', name: 'x', spec: 'latest' };
    expect(await expandTarget(target)).toEqual([target]);
  });
});

describe('fetchTarget', () => {
  it('scans local directories in place and reads their manifest', async () => {
    const dir = path.join(CONFIGS, 'local-servers/node-server');
    const workspace = await fetchTarget(parseTarget(dir));
    expect(workspace).toMatchObject({ root: dir, name: 'notes-mcp-server', version: '0.1.0' });
    await workspace.dispose();
    const py = await fetchTarget(parseTarget(path.join(CONFIGS, 'local-servers/py-server')));
    expect(py).toMatchObject({ name: 'weather-mcp', version: '0.2.0' });
  });

  it('refuses a directory target that has gone, and remote targets', async () => {
    const gone: ScanTarget = { kind: 'directory', input: './gone', path: path.join(work, 'gone') };
    await expect(fetchTarget(gone)).rejects.toThrow('./gone: no such directory');
    const remote = parseTarget('https://mcp.example.com/mcp');
    expect(isScannable(remote)).toBe(false);
    expect(isScannable(gone)).toBe(true);
    await expect(fetchTarget(remote)).rejects.toThrow(/a remote endpoint has no files: it is listed live/);
  });
});
