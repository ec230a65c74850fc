// Where MCP clients keep their configs on Linux, macOS and Windows. Every known location is checked whatever the
// platform we run on (a home directory synced or mounted from another OS has the other layout), and only files that
// exist are returned.

import { stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { McpClient } from './model.js';
import { recogniseConfig } from './sources/config.js';

export interface DiscoveredConfig {
  path: string;
  client: McpClient;
}

interface Candidate {
  path: string;
  client: McpClient;
  /** VS Code's settings.json is only a config when it has `mcp.servers`. */
  needsServers?: boolean;
}

function candidates(home: string, cwd: string): Candidate[] {
  const appData = path.join(home, 'AppData', 'Roaming');
  const macSupport = path.join(home, 'Library', 'Application Support');
  const xdgConfig = path.join(home, '.config');
  const vsCodeUserDirs = ['Code', 'Code - Insiders', 'VSCodium'].flatMap((product) => [
    path.join(xdgConfig, product, 'User'),
    path.join(macSupport, product, 'User'),
    path.join(appData, product, 'User'),
  ]);
  return [
    { path: path.join(macSupport, 'Claude', 'claude_desktop_config.json'), client: 'claude-desktop' },
    { path: path.join(xdgConfig, 'Claude', 'claude_desktop_config.json'), client: 'claude-desktop' },
    { path: path.join(appData, 'Claude', 'claude_desktop_config.json'), client: 'claude-desktop' },
    { path: path.join(home, '.claude.json'), client: 'claude-code' },
    { path: path.join(cwd, '.mcp.json'), client: 'claude-code' },
    { path: path.join(home, '.cursor', 'mcp.json'), client: 'cursor' },
    { path: path.join(cwd, '.cursor', 'mcp.json'), client: 'cursor' },
    { path: path.join(cwd, '.vscode', 'mcp.json'), client: 'vscode' },
    ...vsCodeUserDirs.map((dir) => ({ path: path.join(dir, 'mcp.json'), client: 'vscode' as const })),
    ...vsCodeUserDirs.map((dir) => ({ path: path.join(dir, 'settings.json'), client: 'vscode' as const, needsServers: true })),
    { path: path.join(home, '.codeium', 'windsurf', 'mcp_config.json'), client: 'windsurf' },
  ];
}

/** The MCP client config files that exist for this user and project, each once, in a stable order. */
export async function discoverConfigs(
  home: string = os.homedir(),
  cwd: string = process.cwd(),
): Promise<DiscoveredConfig[]> {
  const found: DiscoveredConfig[] = [];
  const seen = new Set<string>();
  for (const candidate of candidates(home, cwd)) {
    const resolved = path.resolve(candidate.path);
    // When cwd is home, `<cwd>/.cursor/mcp.json` and `~/.cursor/mcp.json` are the same file.
    if (seen.has(resolved)) continue;
    seen.add(resolved);
    const info = await stat(resolved).catch(() => undefined);
    if (!info?.isFile()) continue;
    if (candidate.needsServers && recogniseConfig(resolved) === undefined) continue;
    found.push({ path: resolved, client: candidate.client });
  }
  return found;
}
