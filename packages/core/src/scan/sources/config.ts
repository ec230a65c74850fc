// MCP client config files (Claude Desktop, Claude Code, Cursor, VS Code, Windsurf): recognise them, read their server
// entries and turn each launch command into the thing it would run (an npm or PyPI package, a git repo, a local
// project, a remote endpoint), without running anything.

import { stat } from 'node:fs/promises';
import { readTreeFileSync } from '../tree-file.js';
import os from 'node:os';
import path from 'node:path';
import { findNodeAtLocation, parse as parseJsonc, parseTree, printParseErrorCode, type ParseError } from 'jsonc-parser';
import type { ConfigOrigin, McpClient, ScanTarget } from '../model.js';
import { TargetError } from './errors.js';
import { gitTarget, npmTarget, pypiTarget } from './specs.js';

/** Client configs are small; a bigger "config" is not one (and /dev/zero or a FIFO given as one must not hang the scan). */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/** A config the user named: a link is followed (dotfile managers link them), but only a regular file of sane size is read. */
function readConfigText(file: string): string {
  return readTreeFileSync(file, MAX_CONFIG_BYTES, { followLinks: true }).toString('utf8');
}

/** One server entry as the clients write it; every field is optional and untrusted. */
interface ServerEntry {
  command?: unknown;
  args?: unknown;
  env?: unknown;
  cwd?: unknown;
  url?: unknown;
  serverUrl?: unknown;
  httpUrl?: unknown;
  /** Request headers for url servers (Claude Code, Cursor, VS Code), values possibly `${env:VAR}` / `${VAR}`. */
  headers?: unknown;
  type?: unknown;
}

export interface ConfiguredServer {
  name: string;
  entry: ServerEntry;
  /** Where the entry sits in the document (`['mcpServers', 'notes']`), to find its line in the file's text. */
  keyPath: string[];
}

/** The client a config file belongs to, judged by its name and folder alone. */
export function clientForPath(file: string): McpClient | undefined {
  const base = path.basename(file).toLowerCase();
  const parent = path.basename(path.dirname(file)).toLowerCase();
  if (base === 'claude_desktop_config.json') return 'claude-desktop';
  if (base === '.claude.json' || base === '.mcp.json') return 'claude-code';
  if (base === 'mcp_config.json') return 'windsurf';
  if (base === 'mcp.json' && parent === '.cursor') return 'cursor';
  if (base === 'mcp.json' && parent === '.vscode') return 'vscode';
  // VS Code's user-level servers: <config dir>/Code/User/mcp.json (also Insiders and VSCodium).
  const product = path.basename(path.dirname(path.dirname(file))).toLowerCase();
  if (base === 'mcp.json' && parent === 'user' && /^(code|code - insiders|vscodium)$/.test(product)) return 'vscode';
  return undefined;
}

// VS Code's user settings.json holds servers under `mcp.servers`; it is only a config when it actually has them.
function isVsCodeSettings(file: string): boolean {
  const base = path.basename(file).toLowerCase();
  const parent = path.basename(path.dirname(file)).toLowerCase();
  return base === 'settings.json' && (parent === 'user' || parent === '.vscode');
}

function parseConfigText(text: string): { data: unknown; errors: ParseError[] } {
  const errors: ParseError[] = [];
  const data: unknown = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  return { data, errors };
}

/**
 * Which client a file is a config of, or undefined when it is not an MCP client config. Known file names are
 * accepted on their name (a broken one is reported by expandTarget with the parse position); any other JSON file
 * counts when it holds a server map.
 */
export function recogniseConfig(file: string): McpClient | undefined {
  const byName = clientForPath(file);
  if (byName) return byName;
  if (!/\.(json|jsonc)$/i.test(file)) return undefined;
  let text: string;
  try {
    text = readConfigText(file);
  } catch {
    return undefined;
  }
  const { data, errors } = parseConfigText(text);
  if (errors.length > 0 || collectServers(data).length === 0) return undefined;
  return isVsCodeSettings(file) ? 'vscode' : 'unknown';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function looksLikeServer(value: unknown): value is ServerEntry {
  return isRecord(value) && (typeof value.command === 'string' || typeof value.url === 'string' || typeof value.serverUrl === 'string' || typeof value.httpUrl === 'string');
}

function serversIn(map: unknown, mapPath: string[], prefix = ''): ConfiguredServer[] {
  if (!isRecord(map)) return [];
  return Object.entries(map)
    .filter(([, entry]) => looksLikeServer(entry))
    .map(([name, entry]) => ({ name: prefix ? `${name} (${prefix})` : name, entry: entry as ServerEntry, keyPath: [...mapPath, name] }));
}

/**
 * The line and column of a server entry's key in the config text (1-based), so a finding about the launch points
 * at the server, not at the top of the file; undefined when the text does not hold it.
 */
export function serverEntryPosition(text: string, server: ConfiguredServer): { line: number; column: number } | undefined {
  const root = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  const value = root === undefined ? undefined : findNodeAtLocation(root, server.keyPath);
  const key = value?.parent?.type === 'property' ? value.parent.children?.[0] : undefined;
  return key === undefined ? undefined : lineAndColumn(text, key.offset);
}

/**
 * Every server map the clients use: `mcpServers` (Claude, Cursor, Windsurf), `servers` (VS Code mcp.json),
 * `mcp.servers` (VS Code settings.json) and Claude Code's per-project `projects.<path>.mcpServers`.
 */
export function collectServers(document: unknown): ConfiguredServer[] {
  if (!isRecord(document)) return [];
  const servers = [
    ...serversIn(document.mcpServers, ['mcpServers']),
    ...serversIn(document.servers, ['servers']),
    ...serversIn(isRecord(document.mcp) ? document.mcp.servers : undefined, ['mcp', 'servers']),
    ...serversIn(document['mcp.servers'], ['mcp.servers']),
  ];
  if (isRecord(document.projects)) {
    for (const [project, settings] of Object.entries(document.projects)) {
      if (isRecord(settings)) servers.push(...serversIn(settings.mcpServers, ['projects', project, 'mcpServers'], project));
    }
  }
  return servers;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split(/\r\n|\r|\n/);
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

/**
 * Why a file given as a target is not an MCP client config, in words the user can act on: the JSON error and its
 * position, or the keys a config would have.
 */
export function explainNotConfig(file: string): string {
  if (!/\.(json|jsonc)$/i.test(file)) return 'not a directory or an MCP client config file (.json)';
  let text: string;
  try {
    text = readConfigText(file);
  } catch (error) {
    return `cannot read file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
  }
  const { errors } = parseConfigText(text);
  const first = errors[0];
  if (first) {
    const { line, column } = lineAndColumn(text, first.offset);
    return `not valid JSON: ${printParseErrorCode(first.error)} at line ${line} column ${column}`;
  }
  return 'no MCP servers in this JSON file (expected "mcpServers", "servers" or "mcp.servers" entries with a command or url)';
}

export async function readConfig(configPath: string): Promise<Array<ConfiguredServer & { line?: number }>> {
  let text: string;
  try {
    text = readConfigText(configPath);
  } catch (error) {
    throw new TargetError(configPath, `cannot read config (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const { data, errors } = parseConfigText(text);
  const first = errors[0];
  if (first) {
    const { line, column } = lineAndColumn(text, first.offset);
    throw new TargetError(
      configPath,
      `not valid JSON: ${printParseErrorCode(first.error)} at line ${line} column ${column}`,
    );
  }
  return collectServers(data).map((server) => {
    const line = serverEntryPosition(text, server)?.line;
    return line === undefined ? server : { ...server, line };
  });
}

/** One target per configured server, each carrying where it came from. */
export async function expandConfig(target: Extract<ScanTarget, { kind: 'config' }>): Promise<ScanTarget[]> {
  const configPath = path.resolve(target.path);
  const client = clientForPath(configPath) ?? (isVsCodeSettings(configPath) ? 'vscode' : 'unknown');
  const servers = await readConfig(configPath);
  const targets: ScanTarget[] = [];
  for (const server of servers) {
    targets.push(await serverTarget(server, configPath, client));
  }
  return targets;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

export async function serverTarget(server: ConfiguredServer & { line?: number }, configPath: string, client: McpClient): Promise<ScanTarget> {
  const { entry } = server;
  const command = optionalString(entry.command);
  const args = strings(entry.args);
  const url = optionalString(entry.url) ?? optionalString(entry.serverUrl) ?? optionalString(entry.httpUrl);
  const envKeys = isRecord(entry.env) ? Object.keys(entry.env) : [];
  const origin: ConfigOrigin = {
    configPath,
    client,
    serverName: server.name,
    ...(server.line === undefined ? {} : { line: server.line }),
    ...(command ? { command, args } : {}),
    ...(url ? { url } : {}),
    ...(envKeys.length > 0 ? { envKeys } : {}),
  };
  if (url && !command) {
    // Headers stay as written (`${env:TOKEN}`): the scan expands them when it connects, and only where allowed.
    const headers = isRecord(entry.headers)
      ? Object.fromEntries(Object.entries(entry.headers).filter((pair): pair is [string, string] => typeof pair[1] === 'string'))
      : {};
    return { kind: 'remote', input: url, url, origin, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
  }
  if (!command) return { kind: 'remote', input: `${server.name}: no command or url`, url: 'none:', origin };
  const cwd = optionalString(entry.cwd);
  const baseDir = cwd ? path.resolve(path.dirname(configPath), cwd) : path.dirname(configPath);
  const launched = await launchTarget(command, args, { baseDir, hasCwd: cwd !== undefined, configPath, serverName: server.name });
  return { ...launched, origin } as ScanTarget;
}

type Launched = Exclude<ScanTarget, { kind: 'config' }>;

interface LaunchContext {
  /** Where relative script paths resolve: the server's `cwd`, else the config file's folder. */
  baseDir: string;
  hasCwd: boolean;
  configPath: string;
  serverName: string;
}

function commandName(command: string): string {
  return path.basename(command.replace(/\\/g, '/')).toLowerCase().replace(/\.(cmd|exe|bat|ps1)$/, '');
}

/** Flags that take a separate value, per launcher, so the value is not mistaken for the package. */
const NPX_VALUE_FLAGS = new Set(['-p', '--package', '-c', '--call', '-w', '--workspace', '--registry', '--cache', '--userconfig', '--prefix', '--loglevel', '--node-options']);
const UVX_VALUE_FLAGS = new Set([
  '--from', '--with', '--with-editable', '--with-requirements', '-w', '--python', '-p', '--index', '--index-url', '-i',
  '--extra-index-url', '--default-index', '--find-links', '-f', '--directory', '--project', '--config-file', '--cache-dir',
  '--python-preference', '--constraints', '-c', '--overrides', '--build-constraints', '-b', '--refresh-package',
  '--reinstall-package', '--upgrade-package', '-P', '--env-file', '--color', '--index-strategy', '--keyring-provider',
  '--resolution', '--prerelease', '--exclude-newer', '--link-mode', '--allow-insecure-host', '--python-platform',
  '--package', '--extra', '--group', '--only-group', '--no-group', '--with-editable',
]);
const PIPX_VALUE_FLAGS = new Set(['--spec', '--python', '--index-url', '-i', '--pip-args', '--backend']);
const DOCKER_VALUE_FLAGS = new Set([
  '-e', '--env', '--env-file', '-v', '--volume', '--mount', '-p', '--publish', '--name', '--network', '--net', '-w',
  '--workdir', '-u', '--user', '--entrypoint', '-l', '--label', '--platform', '--pull', '--add-host', '--device',
  '--cpus', '-m', '--memory', '--restart', '--cap-add', '--cap-drop', '--security-opt', '-h', '--hostname', '--ulimit',
  '--log-driver', '--log-opt', '--tmpfs', '--ipc', '--pid', '--runtime', '--gpus', '--dns', '--label-file', '--group-add',
]);
const NODE_VALUE_FLAGS = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '--env-file', '--conditions', '-C', '--tsconfig']);
const PYTHON_VALUE_FLAGS = new Set(['-X', '-W', '--check-hash-based-pycs']);

const SCRIPT_RUNNERS = new Set(['node', 'nodejs', 'deno', 'bun', 'tsx', 'ts-node', 'python', 'python3', 'python2', 'py', 'pythonw']);

interface ParsedArgs {
  /** Flag values by flag name (last one wins). */
  flags: Map<string, string>;
  positionals: string[];
}

/** Splits launcher arguments up to the first positional run: `--flag value`, `--flag=value`, `-y`, `--`. */
function parseArgs(args: string[], valueFlags: Set<string>): ParsedArgs {
  const flags = new Map<string, string>();
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? '';
    if (positionals.length > 0 || arg === '--') {
      positionals.push(...(arg === '--' && positionals.length === 0 ? args.slice(i + 1) : args.slice(i)));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const equals = arg.indexOf('=');
    if (equals > 0) {
      flags.set(arg.slice(0, equals), arg.slice(equals + 1));
    } else if (valueFlags.has(arg)) {
      flags.set(arg, args[i + 1] ?? '');
      i += 1;
    } else {
      flags.set(arg, '');
    }
  }
  return { flags, positionals };
}

function flag(parsed: ParsedArgs, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = parsed.flags.get(name);
    if (value) return value;
  }
  return undefined;
}

function notScanned(what: string): Launched {
  return { kind: 'remote', input: what, url: what };
}

async function launchTarget(rawCommand: string, rawArgs: string[], context: LaunchContext): Promise<Launched> {
  let command = rawCommand;
  let args = rawArgs;
  // Windows configs wrap launchers as `cmd /c npx …`.
  if (commandName(command) === 'cmd' && /^\/c$/i.test(args[0] ?? '')) {
    command = args[1] ?? '';
    args = args.slice(2);
  }
  const name = commandName(command);
  const first = args[0];
  if (name === 'npx' || name === 'bunx') return npmLauncher(args, context);
  if (name === 'npm' && (first === 'exec' || first === 'x')) return npmLauncher(args.slice(1), context);
  if ((name === 'pnpm' || name === 'yarn') && first === 'dlx') return npmLauncher(args.slice(1), context);
  if (name === 'uvx') return pythonLauncher(args, UVX_VALUE_FLAGS, ['--from'], context);
  if (name === 'uv') return uvLauncher(args, context);
  if (name === 'pipx' && first === 'run') return pythonLauncher(args.slice(1), PIPX_VALUE_FLAGS, ['--spec'], context);
  if ((name === 'docker' || name === 'podman') && first === 'run') {
    const image = parseArgs(args.slice(1), DOCKER_VALUE_FLAGS).positionals[0];
    return notScanned(`docker:${image ?? 'unknown'}`);
  }
  if (SCRIPT_RUNNERS.has(name) || /^python\d(\.\d+)?$/.test(name)) return scriptRunner(name, args, context);
  // A command given as a path (a venv's console script, a built binary) runs code from the project it sits in.
  if (/[\\/]/.test(command)) {
    const script = path.resolve(context.baseDir, command);
    return { kind: 'directory', input: script, path: await projectRoot(script) };
  }
  return notScanned(`command:${name}`);
}

/** The package spec npx & co. would install: `--package` wins, else the first positional. */
async function npmLauncher(args: string[], context: LaunchContext): Promise<Launched> {
  const parsed = parseArgs(args, NPX_VALUE_FLAGS);
  const spec = flag(parsed, '-p', '--package') ?? (parsed.flags.has('-c') || parsed.flags.has('--call') ? undefined : parsed.positionals[0]);
  if (!spec) return notScanned('command:npx');
  return packageSpecTarget(spec, 'npm', context);
}

function pythonLauncher(args: string[], valueFlags: Set<string>, fromFlags: string[], context: LaunchContext): Promise<Launched> {
  const parsed = parseArgs(args, valueFlags);
  const spec = flag(parsed, ...fromFlags) ?? parsed.positionals[0];
  if (!spec) return Promise.resolve(notScanned('command:uvx'));
  return packageSpecTarget(spec, 'pypi', context);
}

// `uv tool run` is uvx; `uv run` runs a local project (`--directory`/`--project`) or a script in one.
async function uvLauncher(args: string[], context: LaunchContext): Promise<Launched> {
  const parsed = parseArgs(args, UVX_VALUE_FLAGS);
  const [subcommand, ...rest] = parsed.positionals;
  if (subcommand === 'tool' && rest[0] === 'run') return pythonLauncher(rest.slice(1), UVX_VALUE_FLAGS, ['--from'], context);
  if (subcommand !== 'run') return notScanned('command:uv');
  const runParsed = parseArgs(rest, UVX_VALUE_FLAGS);
  const directory = flag(runParsed, '--directory', '--project') ?? flag(parsed, '--directory', '--project');
  if (directory) {
    const dir = path.resolve(context.baseDir, directory);
    return { kind: 'directory', input: dir, path: dir };
  }
  const script = runParsed.positionals[0];
  if (script && /\.py$/i.test(script)) {
    const file = path.resolve(context.baseDir, script);
    return { kind: 'directory', input: file, path: await projectRoot(file) };
  }
  if (context.hasCwd) return { kind: 'directory', input: context.baseDir, path: context.baseDir };
  return notScanned('command:uv');
}

async function scriptRunner(name: string, args: string[], context: LaunchContext): Promise<Launched> {
  const isPython = name.startsWith('py');
  let rest = args;
  if ((name === 'deno' || name === 'bun') && rest[0] === 'run') rest = rest.slice(1);
  const parsed = parseArgs(rest, isPython ? PYTHON_VALUE_FLAGS : NODE_VALUE_FLAGS);
  // `python -m module` / `python -c code` / `node -e code` run no file we can point at, except via the server's cwd.
  const inline = ['-m', '-c', '-e', '--eval', '-p', '--print'].some((f) => parsed.flags.has(f));
  const script = inline ? undefined : parsed.positionals[0];
  if (script && !/^[a-z][a-z0-9+.-]*:\/\//i.test(script)) {
    const file = path.resolve(context.baseDir, script);
    return { kind: 'directory', input: file, path: await projectRoot(file) };
  }
  if (context.hasCwd) return { kind: 'directory', input: context.baseDir, path: context.baseDir };
  return notScanned(`command:${name}`);
}

function looksLikePath(spec: string): boolean {
  return /^(\.{1,2}[\\/]|[\\/]|~[\\/]|[a-zA-Z]:[\\/])/.test(spec);
}

async function packageSpecTarget(spec: string, registry: 'npm' | 'pypi', context: LaunchContext): Promise<Launched> {
  const label = `${context.configPath} (server "${context.serverName}")`;
  // uv and pip name a git ref as `git+https://host/repo@ref`; npm-style parsing wants `#ref`.
  const gitSpec = registry === 'pypi' ? spec.replace(/^(git\+[^#]*\/[^/@#]+)@([^/@#]+)$/, '$1#$2') : spec;
  const git = gitTarget(gitSpec, spec);
  if (git) return git;
  if (looksLikePath(spec)) {
    const dir = path.resolve(context.baseDir, spec);
    return { kind: 'directory', input: dir, path: dir };
  }
  try {
    if (registry === 'npm') {
      const target = npmTarget(spec, spec);
      return { ...target, input: `npm:${target.name}@${target.spec}` };
    }
    const target = pypiTarget(spec, spec);
    return { ...target, input: `pypi:${target.name}${target.version ? `==${target.version}` : ''}` };
  } catch (error) {
    if (error instanceof TargetError) throw new TargetError(label, `${error.reason}: ${spec}`, { cause: error });
    throw error;
  }
}

const PROJECT_MARKERS = ['package.json', 'pyproject.toml', 'setup.py', 'setup.cfg'];
const MAX_LEVELS_UP = 6;

/**
 * The nearest folder upward from a script that has a project manifest, else the script's own folder. The walk never
 * climbs to the home directory or the filesystem root: a stray ~/package.json must not turn a scan into a scan of home.
 */
export async function projectRoot(script: string): Promise<string> {
  const start = path.dirname(script);
  const home = os.homedir();
  let dir = start;
  for (let level = 0; level <= MAX_LEVELS_UP; level += 1) {
    if (level > 0 && (dir === home || path.dirname(dir) === dir)) break;
    for (const marker of PROJECT_MARKERS) {
      const info = await stat(path.join(dir, marker)).catch(() => undefined);
      if (info?.isFile()) return dir;
    }
    dir = path.dirname(dir);
  }
  return start;
}
