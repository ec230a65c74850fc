import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientForPath, collectServers, projectRoot, readConfig, serverTarget } from './config.js';
import { TargetError } from './errors.js';

let work: string;
let configPath: string;

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'svc-config-test-'));
  configPath = path.join(work, 'mcp.json');
  await mkdir(path.join(work, 'app/src/server'), { recursive: true });
  await writeFile(path.join(work, 'app/package.json'), '{}');
  await writeFile(path.join(work, 'app/src/server/main.ts'), '');
  await mkdir(path.join(work, 'loose'), { recursive: true });
  await writeFile(path.join(work, 'loose/server.py'), '');
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

function target(entry: Record<string, unknown>): ReturnType<typeof serverTarget> {
  return serverTarget({ name: 'srv', entry, keyPath: ['mcpServers', 'srv'] }, configPath, 'unknown');
}

describe('launch commands → targets', () => {
  it.each([
    [{ command: 'npx', args: ['--yes', 'pkg@1.0.0', '--flag'] }, { kind: 'npm', name: 'pkg', spec: '1.0.0', input: 'npm:pkg@1.0.0' }],
    [{ command: 'npx', args: ['-p', '@scope/tools@^2', 'tools-bin'] }, { kind: 'npm', name: '@scope/tools', spec: '^2' }],
    [{ command: 'C:\\Program Files\\nodejs\\npx.cmd', args: ['-y', 'win-pkg'] }, { kind: 'npm', name: 'win-pkg' }],
    [{ command: 'npm', args: ['exec', '--', 'exec-pkg@latest'] }, { kind: 'npm', name: 'exec-pkg', spec: 'latest' }],
    [{ command: 'pnpm', args: ['dlx', 'dlx-pkg'] }, { kind: 'npm', name: 'dlx-pkg' }],
    [{ command: 'bunx', args: ['bun-pkg@3'] }, { kind: 'npm', name: 'bun-pkg', spec: '3' }],
    [{ command: 'npx', args: ['-y', 'github:owner/repo#main'] }, { kind: 'git', url: 'https://github.com/owner/repo.git', ref: 'main' }],
    [{ command: 'uv', args: ['tool', 'run', 'tool-pkg==0.1'] }, { kind: 'pypi', name: 'tool-pkg', version: '0.1' }],
    [{ command: 'uvx', args: ['--python', '3.12', 'Py_Pkg[cli]@2.0'] }, { kind: 'pypi', name: 'py-pkg', version: '2.0' }],
    [{ command: 'docker', args: ['run', '-i', '--rm', '-e', 'TOKEN', '-v', '/a:/b', 'mcp/server:1.2'] }, { kind: 'remote', url: 'docker:mcp/server:1.2' }],
    [{ command: 'some-binary', args: ['--stdio'] }, { kind: 'remote', url: 'command:some-binary' }],
    [{ command: 'npx', args: ['-c', 'echo hi'] }, { kind: 'remote', url: 'command:npx' }],
    [{ type: 'sse', url: 'https://example.com/sse' }, { kind: 'remote', url: 'https://example.com/sse' }],
  ])('%j', async (entry, expected) => {
    expect(await target(entry)).toMatchObject(expected);
  });

  it('keeps a url server\'s headers as written, for the scan to expand when it connects', async () => {
    const headers = { Authorization: 'Bearer ${env:MCP_TOKEN}', 'X-Team': 'core', bad: 1 };
    expect(await target({ url: 'https://example.com/mcp', headers })).toEqual(
      expect.objectContaining({ kind: 'remote', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${env:MCP_TOKEN}', 'X-Team': 'core' } }),
    );
    expect(await target({ url: 'https://example.com/mcp' })).not.toHaveProperty('headers');
  });

  it('resolves scripts to their project root, relative to cwd or the config folder', async () => {
    expect(await target({ command: 'node', args: ['--import', 'tsx', 'app/src/server/main.ts'] })).toMatchObject({ kind: 'directory', path: path.join(work, 'app') });
    expect(await target({ command: 'deno', args: ['run', '--allow-net', 'src/server/main.ts'], cwd: 'app' })).toMatchObject({ kind: 'directory', path: path.join(work, 'app') });
    expect(await target({ command: 'python3.12', args: ['-u', path.join(work, 'loose/server.py')] })).toMatchObject({ kind: 'directory', path: path.join(work, 'loose') });
    expect(await target({ command: path.join(work, 'app/src/server/main.ts') })).toMatchObject({ kind: 'directory', path: path.join(work, 'app') });
  });

  it('uses cwd for module launches and local npx specs', async () => {
    expect(await target({ command: 'python', args: ['-m', 'server'], cwd: path.join(work, 'loose') })).toMatchObject({ kind: 'directory', path: path.join(work, 'loose') });
    expect(await target({ command: 'python', args: ['-m', 'server'] })).toMatchObject({ kind: 'remote', url: 'command:python' });
    expect(await target({ command: 'npx', args: ['./app'] })).toMatchObject({ kind: 'directory', path: path.join(work, 'app') });
    expect(await target({ command: 'uv', args: ['run', '--project', 'app', 'serve'] })).toMatchObject({ kind: 'directory', path: path.join(work, 'app') });
  });

  it('records the origin without env values', async () => {
    const result = await target({ command: 'npx', args: ['pkg'], env: { API_KEY: 'secret-value', REGION: 'eu' } });
    expect(result).toMatchObject({ origin: { configPath, client: 'unknown', serverName: 'srv', command: 'npx', args: ['pkg'], envKeys: ['API_KEY', 'REGION'] } });
    expect(JSON.stringify(result)).not.toContain('secret-value');
  });

  it('names the config and server when a package spec is malformed', async () => {
    const error = await target({ command: 'uvx', args: ['bad name!'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetError);
    expect((error as TargetError).input).toBe(`${configPath} (server "srv")`);
  });
});

describe('config helpers', () => {
  it('identifies clients by file name and folder', () => {
    expect(clientForPath('/h/.cursor/mcp.json')).toBe('cursor');
    expect(clientForPath('/p/.vscode/mcp.json')).toBe('vscode');
    expect(clientForPath('/h/.config/Code/User/mcp.json')).toBe('vscode');
    expect(clientForPath('/h/Library/Application Support/Claude/claude_desktop_config.json')).toBe('claude-desktop');
    expect(clientForPath('/p/mcp.json')).toBeUndefined();
  });

  it('collects servers from every known map and ignores entries that are not servers', () => {
    const servers = collectServers({
      mcpServers: { a: { command: 'x' }, junk: 42, empty: {} },
      servers: { b: { url: 'https://b.example' } },
      mcp: { servers: { c: { serverUrl: 'https://c.example' } } },
    });
    expect(servers.map((s) => s.name)).toEqual(['a', 'b', 'c']);
    expect(collectServers([1, 2])).toEqual([]);
  });

  it('does not climb to the home directory looking for a project', async () => {
    const home = path.join(work, 'fake-home');
    await mkdir(path.join(home, 'servers/weather'), { recursive: true });
    await writeFile(path.join(home, 'package.json'), '{}');
    const realHome = process.env.HOME;
    process.env.HOME = home;
    try {
      expect(await projectRoot(path.join(home, 'servers/weather/server.js'))).toBe(path.join(home, 'servers/weather'));
    } finally {
      process.env.HOME = realHome;
    }
    // Without the home boundary the same walk does find the manifest.
    expect(await projectRoot(path.join(home, 'servers/weather/server.js'))).toBe(home);
  });
});

describe('readConfig', () => {
  it("records the line of each server's entry, also when its name appears earlier in the file", async () => {
    const file = path.join(work, 'lines.json');
    await writeFile(
      file,
      `{
  // "notes" runs the notes server; "files" the filesystem one
  "mcpServers": {
    "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] },

    "notes": {
      "command": "npx",
      "args": ["-y", "notes-mcp"]
    }
  },
  "projects": { "/work/app": { "mcpServers": { "notes": { "command": "uvx", "args": ["notes-mcp"] } } } }
}`,
    );
    const servers = await readConfig(file);
    expect(servers.map((server) => [server.name, server.line])).toEqual([
      ['files', 4],
      ['notes', 6],
      ['notes (/work/app)', 11],
    ]);
    const target = await serverTarget(servers[1]!, file, 'unknown');
    expect(target.kind === 'config' ? undefined : target.origin).toMatchObject({ serverName: 'notes', line: 6 });
  });
});
