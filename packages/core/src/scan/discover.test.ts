import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverConfigs } from './discover.js';

let home: string;
let cwd: string;

async function put(file: string, content: unknown): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

beforeEach(async () => {
  const base = await mkdtemp(path.join(os.tmpdir(), 'svc-discover-test-'));
  home = path.join(base, 'home');
  cwd = path.join(base, 'project');
  await mkdir(home);
  await mkdir(cwd);
});

afterEach(async () => {
  await rm(path.dirname(home), { recursive: true, force: true });
});

describe('discoverConfigs', () => {
  it('finds nothing in an empty home and project', async () => {
    expect(await discoverConfigs(home, cwd)).toEqual([]);
  });

  it('finds each client config in its usual place on Linux, macOS and Windows', async () => {
    const servers = { mcpServers: { a: { command: 'npx', args: ['a'] } } };
    const expected = [
      { path: await put(path.join(home, 'Library/Application Support/Claude/claude_desktop_config.json'), servers), client: 'claude-desktop' },
      { path: await put(path.join(home, '.config/Claude/claude_desktop_config.json'), servers), client: 'claude-desktop' },
      { path: await put(path.join(home, 'AppData/Roaming/Claude/claude_desktop_config.json'), servers), client: 'claude-desktop' },
      { path: await put(path.join(home, '.claude.json'), servers), client: 'claude-code' },
      { path: await put(path.join(cwd, '.mcp.json'), servers), client: 'claude-code' },
      { path: await put(path.join(home, '.cursor/mcp.json'), servers), client: 'cursor' },
      { path: await put(path.join(cwd, '.cursor/mcp.json'), servers), client: 'cursor' },
      { path: await put(path.join(cwd, '.vscode/mcp.json'), '// jsonc\n{ "servers": {} }'), client: 'vscode' },
      { path: await put(path.join(home, '.config/Code/User/settings.json'), '{ "mcp": { "servers": { "s": { "url": "https://x.example/mcp" } } }, }'), client: 'vscode' },
      { path: await put(path.join(home, '.codeium/windsurf/mcp_config.json'), servers), client: 'windsurf' },
    ];
    expect(await discoverConfigs(home, cwd)).toEqual(expected);
  });

  it('skips VS Code settings without MCP servers and lists a file once when cwd is home', async () => {
    await put(path.join(home, '.config/Code/User/settings.json'), { 'editor.fontSize': 14 });
    const cursor = await put(path.join(home, '.cursor/mcp.json'), { mcpServers: {} });
    expect(await discoverConfigs(home, home)).toEqual([{ path: cursor, client: 'cursor' }]);
  });
});
