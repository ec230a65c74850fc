import type { Capability, Severity, ToolDefinition } from '../scan/model.js';
import type { RuleContext } from './create-rule.js';
import { createRule } from './create-rule.js';
import { DECLARES } from './support/declared-behaviour.js';
import { SENSITIVE_STORES } from './support/sensitive-targets.js';

/**
 * Persistence locations, each with the words a tool whose job is that location uses in its name or description (a
 * dotfiles tool says "shell" or "alias"; a scheduler says "cron"). The words describe the kind of location, never a
 * package or a tool.
 */
const PERSISTENCE_DOMAINS: ReadonlyArray<{ location: RegExp; words: RegExp }> = [
  { location: /\.(bash|zsh|ksh|csh|tcsh)?(rc|_profile|_login|profile|env)$|config\.fish$|\/etc\/(profile|bash\.bashrc)|PowerShell_profile/i, words: /\b(shell|bash|zsh|fish|rc\s*files?|\w*rc\b|profiles?|alias(es)?|dotfiles?|environment\s+variables?|PATH|prompt|powershell)\b/i },
  { location: /cron|crontab/i, words: /\b(cron|crontab|schedul\w*|periodic\w*|recurring|every\s+(day|hour|minute))\b/i },
  { location: /Launch(Agents|Daemons)|systemd|autostart|Startup|rc\.local|launchctl|schtasks|\\Run\b/i, words: /\b(launch\s*(agent|daemon)s?|startup|autostart|at\s+login|log\s?in\s+items?|services?|daemons?|systemd|boot|scheduled\s+tasks?)\b/i },
  { location: /authorized_keys/i, words: /\b(ssh|authori[sz]ed[\s_]keys?|public\s+keys?|access\s+keys?|remote\s+access)\b/i },
  { location: /\.git[/\\]hooks/i, words: /\b(git\s+hooks?|hooks?|pre-commit|commit\s+hooks?)\b/i },
];

/** Words of a description that say the tool changes security settings, auditing or history on purpose. */
const SECURITY_WORDS = /\b(firewall|selinux|apparmor|gatekeeper|defender|antivirus|audit\w*|history|tls|ssl|certificates?|insecure|harden\w*|security\s+settings?)\b/i;

/**
 * Temporary, cache and log locations: the server's own scratch space and diagnostics, not the user's environment
 * (docs/capabilities.md). A read-only tool may keep a cache or write a debug log; a `.tmp` file of an atomic write
 * removed afterwards is not a deletion of anything the user has.
 */
const SCRATCH_PATH = /^(\/tmp|\/var\/tmp|\$TMP|%TEMP%)([/\\]|$)|(^|[/\\])(\.?cache|tmp|temp|logs?)([/\\]|$)|\.(log|tmp|temp|lock|bak)$/i;

/**
 * A description's claim that the tool keeps to this machine: "saves the note locally", "works offline", "your data never
 * leaves your computer". Said of a tool whose code talks to the network, it hides where the data goes.
 */
const LOCAL_ONLY =
  /\b(?:locally|(?:works?|runs?|available|usable)\s+offline|offline[\s-](?:only|first|mode)|on[\s-]device|local[\s-]only|on\s+(?:your|this|the\s+user'?s)\s+(?:own\s+)?(?:machine|computer|device|disk|laptop)|never\s+(?:leaves?|sent|uploaded|shared)|(?:stays?|kept|remains?)\s+(?:on|in)\s+(?:your|this)\s+(?:machine|computer|device|disk|workspace)|without\s+(?:any\s+)?(?:network|internet)|no\s+(?:network|internet|telemetry|data\s+(?:is\s+)?(?:sent|shared|uploaded)))\b/i;

/** Words beside a local claim that admit a remote side ("also pushed to your sync server", "your cloud account"). */
const ADMITS_REMOTE = /\b(?:push\w*|servers?|cloud|accounts?|hosted|mirror\w*)\b/;

/** Host labels that say nothing about what a service is. */
const GENERIC_HOST_WORDS = new Set(['api', 'www', 'com', 'net', 'org', 'io', 'dev', 'app', 'cloud', 'service', 'services', 'server', 'data', 'static', 'cdn', 'gateway', 'prod', 'v1', 'v2', 'v3', 'co', 'uk', 'de', 'ai', 'us', 'eu']);

/** Creating a folder (`ensureDir` before listing it) changes nothing anyone stored: not a write a read-only tool hides. */
const DIRECTORY_CREATION = /(^|\.)(mkdir|mkdirSync|mkdirp|mkdirs|ensureDir|ensureDirSync|makedirs)$/;

type Hint = 'readOnlyHint' | 'destructiveHint' | 'openWorldHint';

const WRITES: ReadonlySet<Capability['kind']> = new Set(['file-write', 'file-delete', 'persistence']);

export default createRule({
  id: 'tool-hidden-behaviour',
  meta: {
    title: 'Tool does more than its description and annotations say',
    category: 'tool-poisoning',
    severity: 'high',
    description:
      "A tool's code can do something its description and annotations do not admit: a `readOnlyHint: true` tool that " +
      'writes or deletes files, a `destructiveHint: false` tool that deletes, an `openWorldHint: false` tool that talks ' +
      'to the network, a tool that writes a persistence location (shell start-up files, crontab, launch agents, ' +
      '`authorized_keys`, git hooks) or switches off a security control without saying so, one that reads a ' +
      'credential store or sends data to a host unrelated to what it is about, or one that says it keeps to this ' +
      'machine ("stored locally", "works offline", "never leaves your computer") while it talks to the network. ' +
      'Clients and users approve tools by ' +
      'their description and annotations; behaviour hidden behind them is how a trojaned server works.',
    remediation:
      'Make the description and annotations say what the tool does (and set `readOnlyHint`/`destructiveHint`/' +
      '`openWorldHint` truthfully), or remove the behaviour. If the package is third-party, do not run it until the ' +
      'hidden behaviour is explained.',
    cwe: ['CWE-912', 'CWE-506', 'CWE-451'],
    owasp: 'MCP03',
    modes: ['fast', 'deep'],
    confidence: 0.7,
  },
  check(context) {
    for (const tool of context.tools) {
      if (tool.kind !== 'tool' || !tool.capabilities?.length) continue;
      checkAnnotations(tool, tool.capabilities, context);
      checkUndisclosed(tool, tool.capabilities, context);
    }
  },
});

function about(tool: ToolDefinition): string {
  return [tool.name.replace(/[_-]+/g, ' '), tool.title ?? '', tool.description ?? ''].join('\n');
}

function report(context: RuleContext, tool: ToolDefinition, capability: Capability, severity: Severity, message: string, contradicts: string): void {
  context.report({
    message,
    evidence: `${capability.kind}: ${capability.detail} (${capability.location.file}:${capability.location.line}); contradicts ${contradicts}`,
    location: capability.location,
    tool: { name: tool.name, kind: tool.kind, field: contradicts.startsWith('annotation') ? 'annotations' : 'description' },
    severity,
    // A capability may contradict an annotation and the description at once, in several tools: each is its own finding.
    key: `${tool.name}|${contradicts}|${capability.kind}|${capability.detail}`,
  });
}

function hint(tool: ToolDefinition, name: Hint): boolean | undefined {
  const value = tool.annotations?.[name];
  return typeof value === 'boolean' ? value : undefined;
}

function checkAnnotations(tool: ToolDefinition, capabilities: readonly Capability[], context: RuleContext): void {
  if (hint(tool, 'readOnlyHint') === true) {
    // One finding per kind: a read-only tool that writes in five places is one contradiction, cited at its first write.
    const writes = capabilities.filter(
      (capability) => WRITES.has(capability.kind) && !(capability.target && SCRATCH_PATH.test(capability.target)) && !DIRECTORY_CREATION.test(capability.detail.split(' ')[0] ?? ''),
    );
    const first = writes.find((capability) => capability.kind !== 'file-write') ?? writes[0];
    if (first) {
      const what = first.kind === 'file-delete' ? 'deletes files' : first.kind === 'persistence' ? 'installs something that runs later' : 'writes files';
      // Where the path is not constant it may be the server's own state (its config, a lock file): worth a look, not an
      // alarm; a removal of something unknown weighs more than a write.
      const severity: Severity = first.target !== undefined ? 'high' : first.kind === 'file-delete' ? 'medium' : 'low';
      report(context, tool, first, severity, `Tool \`${tool.name}\` is annotated read-only but ${what}: ${first.detail}`, 'annotation readOnlyHint: true');
    }
    // Running a program is no contradiction by itself: `git log` and `ps` only read. It stays in the capability list.
  }
  if (hint(tool, 'destructiveHint') === false && hint(tool, 'readOnlyHint') !== true) {
    const removal = capabilities.find((capability) => capability.kind === 'file-delete' && !(capability.target && SCRATCH_PATH.test(capability.target)));
    if (removal) report(context, tool, removal, 'medium', `Tool \`${tool.name}\` is annotated non-destructive but deletes files: ${removal.detail}`, 'annotation destructiveHint: false');
  }
  if (hint(tool, 'openWorldHint') === false) {
    const network = capabilities.find((capability) => capability.kind === 'network');
    if (network) report(context, tool, network, 'low', `Tool \`${tool.name}\` is annotated closed-world but talks to the network: ${network.detail}`, 'annotation openWorldHint: false');
  }
}

function checkUndisclosed(tool: ToolDefinition, capabilities: readonly Capability[], context: RuleContext): void {
  const text = about(tool);
  const sends = capabilities.some((capability) => capability.kind === 'network');
  for (const capability of capabilities) {
    if (capability.kind === 'persistence') {
      const where = capability.target ?? capability.detail;
      const domain = PERSISTENCE_DOMAINS.find((entry) => entry.location.test(where));
      if (domain?.words.test(text)) continue;
      report(context, tool, capability, 'high', `Tool \`${tool.name}\` writes a persistence location its description does not mention: ${capability.detail}`, 'the description');
    } else if (capability.kind === 'security-off' && !capability.detail.startsWith('TLS verification off')) {
      // TLS switched off is reported on its own by tls-verification-disabled; a command that turns a control off is not.
      if (SECURITY_WORDS.test(text)) continue;
      report(context, tool, capability, 'high', `Tool \`${tool.name}\` switches off a security control its description does not mention: ${capability.detail}`, 'the description');
    } else if (capability.kind === 'credential-read') {
      const store = SENSITIVE_STORES.find((entry) => capability.detail.endsWith(`(${entry.label})`));
      if (!store || store.domain.some((word) => new RegExp(`\\b${word}`, 'i').test(text))) continue;
      report(
        context,
        tool,
        capability,
        sends ? 'high' : 'medium',
        `Tool \`${tool.name}\` reads ${store.label.toLowerCase()} although its description is about something else${sends ? ', and it talks to the network' : ''}: ${capability.detail}`,
        'the description',
      );
    }
  }
  unrelatedHosts(tool, capabilities, text, context);
  localClaim(tool, capabilities, text, context);
}

/**
 * A tool that says it keeps to this machine but talks to another: one finding, at its first request to a host that is
 * not this machine. A description that also speaks of the network (a URL, an API, sync, upload) admits it.
 */
function localClaim(tool: ToolDefinition, capabilities: readonly Capability[], text: string, context: RuleContext): void {
  const claim = LOCAL_ONLY.exec(text);
  const lower = text.toLowerCase();
  if (!claim || DECLARES.network.test(lower) || DECLARES['network-send'].test(lower) || ADMITS_REMOTE.test(lower)) return;
  const remote = capabilities.find((capability) => capability.kind === 'network' && !(capability.target && /^(localhost|127\.|0\.0\.0\.0|\[?::1\]?)/.test(capability.target)));
  if (remote) report(context, tool, remote, 'medium', `Tool \`${tool.name}\` says it keeps to this machine (${JSON.stringify(claim[0])}) but talks to the network: ${remote.detail}`, 'the description');
}

/**
 * A host the tool talks to that has nothing to do with it, judged only against the tool's own words and its other
 * hosts: when one constant host matches what the tool is about (its API), another that matches nothing is suspect.
 * With a single host, or none that matches, there is nothing to compare with and nothing is reported.
 */
function unrelatedHosts(tool: ToolDefinition, capabilities: readonly Capability[], text: string, context: RuleContext): void {
  const hosts = new Map<string, Capability>();
  for (const capability of capabilities) {
    const host = capability.kind === 'network' ? capability.target : undefined;
    if (host && /^[a-z0-9.-]+$/i.test(host) && host.includes('.') && !hosts.has(host)) hosts.set(host, capability);
  }
  if (hosts.size < 2) return;
  const lower = text.toLowerCase();
  const related = (host: string): boolean => {
    if (/^(localhost|127\.|0\.0\.0\.0|\[::1\])/.test(host)) return true;
    const words = host.split(/[.-]/).filter((word) => word.length >= 4 && !GENERIC_HOST_WORDS.has(word));
    return words.some((word) => lower.includes(word)) || lower.includes(host);
  };
  const known = [...hosts.keys()].filter(related);
  if (known.length === 0) return;
  // Hosts of one organisation (`api.x.com`, `auth.x.com`) belong together.
  const organisations = new Set(known.map(organisation));
  for (const [host, capability] of hosts) {
    if (related(host) || organisations.has(organisation(host))) continue;
    report(context, tool, capability, 'medium', `Tool \`${tool.name}\` talks to ${host}, a host unrelated to what it describes (its API is ${known[0]})`, 'the description');
  }
}

/** The last two labels of a host (three for a two-letter second-level domain such as `co.uk`). */
function organisation(host: string): string {
  const labels = host.split('.');
  const take = labels.length > 2 && labels[labels.length - 2]!.length <= 3 && labels[labels.length - 1]!.length === 2 ? 3 : 2;
  return labels.slice(-take).join('.');
}
