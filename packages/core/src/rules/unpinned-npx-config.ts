import { parse as parseJsonc } from 'jsonc-parser';
import npa from 'npm-package-arg';
import { createRule } from './create-rule.js';
import type { RuleContext } from './create-rule.js';
import type { SourceLocation } from '../scan/model.js';
import { clientForPath, collectServers, serverEntryPosition } from '../scan/sources/config.js';

type Launcher = 'npm' | 'uv' | 'pipx';

interface LaunchSpec {
  launcher: Launcher;
  spec: string;
}

/** Options of the launchers that take a value, so the value is not mistaken for the package. */
const NPX_VALUE_OPTIONS = new Set(['-p', '--package', '-c', '--call', '--registry', '--cache', '--userconfig', '-w', '--workspace']);
const UVX_VALUE_OPTIONS = new Set(['--from', '--with', '-w', '--with-editable', '--with-requirements', '--python', '-p', '--index', '--index-url', '-i', '--extra-index-url', '--default-index', '--find-links', '-f', '--constraints', '-c', '--overrides', '--refresh-package', '--reinstall-package', '--upgrade-package', '-P']);
const PIPX_VALUE_OPTIONS = new Set(['--spec', '--python', '--pip-args', '--index-url', '-i']);

function positionals(args: readonly string[], valueOptions: ReadonlySet<string>): { first?: string; options: Map<string, string[]> } {
  const options = new Map<string, string[]>();
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg === '--') return { first: args[i + 1], options };
    if (arg.startsWith('-')) {
      const [flag, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
      if (inline !== undefined) options.set(flag, [...(options.get(flag) ?? []), inline]);
      else if (valueOptions.has(flag)) {
        options.set(flag, [...(options.get(flag) ?? []), args[i + 1] ?? '']);
        i += 1;
      }
      continue;
    }
    return { first: arg, options };
  }
  return { options };
}

/** The package a configured launch installs and runs, if the command is a run-from-registry launcher. */
export function launchSpecs(command: string, args: readonly string[]): LaunchSpec[] {
  const name = command.split(/[\\/]/).pop()!.toLowerCase().replace(/\.(?:cmd|exe|bat|ps1)$/, '');
  // Windows configs wrap the launcher: `cmd /c npx -y pkg`.
  if (name === 'cmd' && args[0]?.toLowerCase() === '/c' && args[1]) return launchSpecs(args[1], args.slice(2));
  if (name === 'npx' || name === 'bunx' || ((name === 'pnpm' || name === 'yarn' || name === 'bun') && (args[0] === 'dlx' || args[0] === 'x'))) {
    const rest = name === 'npx' || name === 'bunx' ? args : args.slice(1);
    const { first, options } = positionals(rest, NPX_VALUE_OPTIONS);
    const packages = [...(options.get('-p') ?? []), ...(options.get('--package') ?? [])];
    return (packages.length > 0 ? packages : first ? [first] : []).map((spec) => ({ launcher: 'npm', spec }));
  }
  if (name === 'uvx' || (name === 'uv' && args[0] === 'tool' && args[1] === 'run')) {
    const { first, options } = positionals(name === 'uvx' ? args : args.slice(2), UVX_VALUE_OPTIONS);
    const from = options.get('--from')?.[0];
    return from ? [{ launcher: 'uv', spec: from }] : first ? [{ launcher: 'uv', spec: first }] : [];
  }
  if (name === 'pipx' && args[0] === 'run') {
    const { first, options } = positionals(args.slice(1), PIPX_VALUE_OPTIONS);
    const spec = options.get('--spec')?.[0] ?? first;
    return spec ? [{ launcher: 'pipx', spec }] : [];
  }
  return [];
}

/** Why a spec is not pinned to one immutable release, or undefined when it is (or is local). */
export function unpinnedReason(launch: LaunchSpec): string | undefined {
  const { spec } = launch;
  if (launch.launcher === 'npm') {
    let parsed: npa.Result;
    try {
      parsed = npa(spec);
    } catch {
      return undefined;
    }
    if (parsed.type === 'version' || parsed.type === 'file' || parsed.type === 'directory') return undefined;
    if (parsed.type === 'alias') return unpinnedReason({ launcher: 'npm', spec: (parsed as npa.AliasResult).subSpec.raw });
    if (parsed.type === 'git') {
      return /^[0-9a-f]{40}$/i.test((parsed as npa.URLResult).gitCommittish ?? '') ? undefined : 'a git reference that is not a commit';
    }
    if (parsed.type === 'remote') return 'a tarball URL without integrity';
    if (parsed.type === 'tag') return `the moving tag \`${parsed.fetchSpec ?? parsed.rawSpec}\``;
    return parsed.rawSpec === '*' || parsed.rawSpec === '' ? 'no version' : `the range \`${parsed.rawSpec}\``;
  }
  if (/^(?:\.{0,2}\/|[A-Za-z]:\\|file:)/.test(spec)) return undefined;
  if (/^git\+/.test(spec)) return /@[0-9a-f]{40}(?:#|$)/i.test(spec) ? undefined : 'a git reference that is not a commit';
  if (/^[A-Za-z0-9][\w.-]*(?:\[[^\]]*\])?==[\w.+!-]+$/.test(spec) && !spec.includes('*')) return undefined;
  const uvVersion = /^[A-Za-z0-9][\w.-]*(?:\[[^\]]*\])?@(.+)$/.exec(spec)?.[1];
  if (launch.launcher === 'uv' && uvVersion !== undefined) return uvVersion === 'latest' ? 'the moving tag `latest`' : /^[\d.]+[\w.+!-]*$/.test(uvVersion) ? undefined : `the version \`${uvVersion}\``;
  const range = /(~=|>=|<=|!=|>|<|===?)/.exec(spec);
  return range ? `the range \`${spec.slice(range.index)}\`` : 'no version';
}

interface Launch {
  configPath: string;
  serverName: string;
  command: string;
  args: string[];
  location: SourceLocation;
}

/** The launch this target was expanded from, when the scan started from a client config. */
function launchFromOrigin(context: RuleContext): Launch[] {
  const { target } = context.workspace;
  const origin = target.kind === 'config' ? undefined : target.origin;
  if (!origin?.command) return [];
  // The origin keeps the line of the server's entry (an older report's origin may lack it: the top of the file).
  const location = { file: origin.configPath, line: origin.line ?? 1, column: 1 };
  return [{ configPath: origin.configPath, serverName: origin.serverName, command: origin.command, args: origin.args ?? [], location }];
}

/** Client configs checked into the project (`.cursor/mcp.json`, `.vscode/mcp.json`, `.mcp.json`): every clone runs them. */
function launchesInProjectConfigs(context: RuleContext): Launch[] {
  const launches: Launch[] = [];
  for (const file of context.files) {
    if (file.text === undefined || file.role === 'vendored' || !clientForPath(file.path)) continue;
    for (const server of collectServers(parseJsonc(file.text, [], { allowTrailingComma: true }))) {
      const { command, args } = server.entry;
      if (typeof command !== 'string') continue;
      const argv = Array.isArray(args) ? args.filter((arg): arg is string => typeof arg === 'string') : [];
      launches.push({
        configPath: file.path,
        serverName: server.name,
        command,
        args: argv,
        location: { file: file.path, ...(serverEntryPosition(file.text, server) ?? { line: 1, column: 1 }) },
      });
    }
  }
  return launches;
}

export default createRule({
  id: 'unpinned-npx-config',
  meta: {
    title: 'MCP client config runs a package without a pinned version',
    category: 'supply-chain',
    severity: 'medium',
    description:
      'An MCP client configuration (the one a scan started from, or one checked into the project such as ' +
      '`.cursor/mcp.json`, `.vscode/mcp.json` or `.mcp.json`) launches a server with `npx -y <pkg>`, `uvx <pkg>`, `pipx run <pkg>` (or ' +
      '`bunx`, `pnpm dlx`) without an exact version: no version, `@latest`, a range or a branch. Every start of the ' +
      'client may download whatever was published last, so one compromised maintainer account or a hijacked package ' +
      'name reaches every user at the next restart, with no review in between.',
    remediation:
      'Pin an exact version (`npx -y @modelcontextprotocol/server-filesystem@2025.8.21`, `uvx mcp-server-fetch==0.6.3`, ' +
      '`uvx --from git+https://…@<commit>`), review updates before changing it, or install the server once and run ' +
      'the installed binary.',
    cwe: ['CWE-494', 'CWE-829'],
    owasp: 'MCP04',
    modes: ['fast', 'deep'],
    confidence: 0.9,
  },
  check(context) {
    for (const launch of [...launchFromOrigin(context), ...launchesInProjectConfigs(context)]) {
      for (const spec of launchSpecs(launch.command, launch.args)) {
        const reason = unpinnedReason(spec);
        if (!reason) continue;
        context.report({
          key: `${launch.configPath}:${launch.serverName}:${spec.spec}`,
          location: launch.location,
          message:
            `Server \`${launch.serverName}\` in ${launch.configPath} runs \`${spec.spec}\` with ${reason}: ` +
            'each launch may fetch a different release',
          evidence: [launch.command, ...launch.args].join(' '),
        });
      }
    }
  },
});
