// What a tool's code can do, in both languages: the analyzers call `sinkCapabilities` at every sink of the shared
// catalogue they reach from a handler (whatever the value's origin), and collect the result per tool in a `Reach`.
// The kinds a reviewer cares about beyond the sink kind (a credential store, a persistence location, a security
// switch) are read from the constant path or command text here, once for both front ends.
import { SENSITIVE_STORES } from '../../rules/support/sensitive-targets.js';
import type { Capability, CapabilityKind, CodeFact, SinkKind, SourceLocation, ToolDefinition } from '../model.js';

/**
 * Files whose content runs later without the user asking: shell start-up files, cron tables, launch agents and
 * daemons, systemd units, autostart entries and the Windows Startup folder, SSH `authorized_keys`, git hooks, and
 * the PowerShell profile. A write there survives the tool call.
 */
export const PERSISTENCE_PATH =
  /(^|[/\\])\.(bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|zlogin|kshrc|cshrc|tcshrc)$|[/\\]\.config[/\\]fish[/\\]config\.fish$|(^|[/\\])(crontab|cron\.(d|daily|hourly|weekly|monthly))([/\\]|$)|[/\\]var[/\\]spool[/\\]cron|[/\\]Library[/\\]Launch(Agents|Daemons)([/\\]|$)|[/\\]\.config[/\\]systemd[/\\]user([/\\]|$)|[/\\]etc[/\\]systemd[/\\]system([/\\]|$)|[/\\]\.config[/\\]autostart([/\\]|$)|Start Menu[/\\]Programs[/\\]Startup|(^|[/\\])authorized_keys2?$|[/\\]\.git[/\\]hooks([/\\]|$)|^[/\\]etc[/\\](rc\.local|profile\.d|profile$|bash\.bashrc$)|Microsoft\.PowerShell_profile\.ps1$/i;

/** Command lines that install something to run later: a cron table, a launch agent, a user unit, a Run key, a scheduled task. */
export const PERSISTENCE_COMMAND =
  /(^|[\s;&|(])(crontab\s+(?!-l\b)\S|launchctl\s+(load|bootstrap|enable)\b|systemctl\s+--user\s+enable\b|schtasks(\.exe)?\s+\/create\b|reg(\.exe)?\s+add\s+\S*\\(Run|RunOnce)\b)/i;

/** Command lines that switch off a security control, auditing or the shell's history. */
export const SECURITY_OFF_COMMAND =
  /\b(setenforce\s+0|ufw\s+disable|auditctl\s+-e\s*0|spctl\s+--master-disable|csrutil\s+disable|Set-MpPreference\s+-Disable\w+|netsh\s+advfirewall\s+set\s+\w+\s+state\s+off|systemctl\s+(stop|disable|mask)\s+(auditd|firewalld|apparmor|ufw|rsyslog|syslog)|git\s+config\s+[^;|&]*http\.sslVerify\s+false|npm\s+config\s+set\s+strict-ssl\s+false|unset\s+HISTFILE|history\s+-c)\b/i;

/** Shell and REPL history files: removing or truncating one erases the record of what was run. */
const HISTORY_PATH = /(^|[/\\])\.(bash|zsh|sh|ksh|python|psql|mysql|sqlite|node_repl|lesshst)_?history$|(^|[/\\])\.zhistory$|ConsoleHost_history\.txt$/i;

/** Callees of the file-write sinks that remove rather than write. */
const DELETE_CALLEE = /(^|\.)(unlink|unlinkSync|rm|rmSync|rmdir|rmdirSync|remove|removeSync|removedirs|rmtree|emptyDir|emptyDirSync|truncate|truncateSync)$/;

/** Bounds a tool's list (a dispatcher reaching a large client library would otherwise list hundreds of calls). */
export const MAX_CAPABILITIES = 60;

/** The capabilities reached from one function (or one tool): keyed so a site reached twice is listed once. */
export interface Reach {
  capabilities: Map<string, Capability>;
  /** `file:firstLine:lastLine` of every function walked, to attribute code facts (TLS switched off) to the tool. */
  functions: Set<string>;
}

export function newReach(): Reach {
  return { capabilities: new Map(), functions: new Set() };
}

export function addCapability(reach: Reach, capability: Capability): void {
  const key = `${capability.kind}|${capability.location.file}|${capability.location.line}|${capability.detail}`;
  if (!reach.capabilities.has(key) && reach.capabilities.size < MAX_CAPABILITIES) reach.capabilities.set(key, capability);
}

/**
 * A request in a helper whose URL is one of the helper's parameters (`request(url)`): the host is only known at each
 * call site, which fills it in (the parameter's index, counted as the front end counts arguments).
 */
export const URL_PARAMS = new WeakMap<Capability, number>();

/**
 * A callee's capability as seen from a call: with the host filled in when the call passes a constant URL for the
 * helper's URL parameter (cited at the call, where the host is written), or still waiting for a host from the
 * caller's own caller when the call passes one of its parameters on.
 */
export function atCall(capability: Capability, argumentText: (index: number) => string | undefined, forwarded: (index: number) => number | undefined, location: SourceLocation): Capability {
  const param = URL_PARAMS.get(capability);
  if (param === undefined) return capability;
  const host = hostOf(argumentText(param));
  if (host) return { ...capability, detail: `${capability.detail} ${host}`, target: host, location };
  const outer = forwarded(param);
  const copy = { ...capability };
  if (outer !== undefined) URL_PARAMS.set(copy, outer);
  return copy;
}

/** Adds what a callee reaches to its caller's reach. */
export function mergeReach(into: Reach, from: Reach): void {
  if (into === from) return;
  for (const capability of from.capabilities.values()) addCapability(into, capability);
  for (const fn of from.functions) into.functions.add(fn);
}

/** The host of a URL (or the text itself when it is a bare host); undefined for a relative or unreadable target. */
export function hostOf(target: string | undefined): string | undefined {
  if (!target) return undefined;
  const match = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#\s]*@)?([^/?#:\s]+)/i.exec(target);
  if (match) return match[1]!.toLowerCase();
  return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(target) ? target.toLowerCase() : undefined;
}

/** The credential store a constant path names (`SSH keys` for `~/.ssh/id_rsa`), from the shared sensitive-target list. */
export function credentialStore(path: string | undefined): string | undefined {
  if (!path || !/[A-Za-z]/.test(path.replace(/\*/g, ''))) return undefined;
  const normalised = path.replace(/\\/g, '/');
  return SENSITIVE_STORES.find((store) => store.pattern.test(normalised))?.label;
}

export interface SinkFacts {
  kind: SinkKind;
  callee: string;
  location: SourceLocation;
  /** The path argument as far as it is constant (`~` for the home directory, `*` for the rest). */
  path?: string;
  /** The URL or host of a network sink, when constant. */
  target?: string;
  /** The program of a command sink, when constant. */
  program?: string;
  /** The command line (or its constant words) of a command sink. */
  command?: string;
}

/** What one sink reached from a tool means as capabilities (several for a persistence write: it is a write too). */
export function sinkCapabilities(sink: SinkFacts): Capability[] {
  const at = (kind: CapabilityKind, detail: string, target?: string): Capability => ({
    kind,
    detail: detail.length > 160 ? `${detail.slice(0, 157)}…` : detail,
    ...(target !== undefined && { target }),
    location: { file: sink.location.file, line: sink.location.line, column: sink.location.column },
  });
  const path = sink.path !== undefined && /[A-Za-z0-9~]/.test(sink.path) ? sink.path : undefined;
  const withPath = path ? `${sink.callee} ${path}` : sink.callee;
  switch (sink.kind) {
    case 'command': {
      const command = sink.command ?? sink.program;
      const out = [at('process', command ? `${sink.callee} ${command}` : sink.callee, command)];
      if (command && PERSISTENCE_COMMAND.test(command)) out.push(at('persistence', `${sink.callee} ${command}`, command));
      if (command && SECURITY_OFF_COMMAND.test(command)) out.push(at('security-off', `${sink.callee} ${command}`, command));
      return out;
    }
    case 'file-read': {
      const store = credentialStore(path);
      return store ? [at('credential-read', `${withPath} (${store})`, path)] : [at('file-read', withPath, path)];
    }
    case 'file-write': {
      const remove = DELETE_CALLEE.test(sink.callee);
      const out = [at(remove ? 'file-delete' : 'file-write', withPath, path)];
      if (!remove && path && PERSISTENCE_PATH.test(path.replace(/\\/g, '/'))) out.push(at('persistence', withPath, path));
      if (path && HISTORY_PATH.test(path)) out.push(at('security-off', `${withPath} (erases shell history)`, path));
      return out;
    }
    case 'network':
    case 'network-send': {
      const host = hostOf(sink.target);
      return [at('network', host ? `${sink.callee} ${host}` : sink.callee, host ?? sink.target)];
    }
    case 'email':
      return [at('network', `${sink.callee} (mail)`, sink.target)];
    default:
      return [];
  }
}

/** The environment read by a tool: one entry per place, not per variable. */
export function envCapability(detail: string, location: SourceLocation): Capability {
  return { kind: 'env', detail, location: { file: location.file, line: location.line, column: location.column } };
}

/**
 * Code facts that switch a security control off (TLS verification), attributed to every tool whose walk entered the
 * function they are written in.
 */
export function securityOffFromFacts(reach: Reach, facts: readonly CodeFact[]): void {
  if (reach.functions.size === 0) return;
  for (const fact of facts) {
    if (fact.kind !== 'tls-verification-disabled') continue;
    const { file, line } = fact.location;
    for (const fn of reach.functions) {
      const [fnFile, first, last] = splitRange(fn);
      if (fnFile === file && line >= first && line <= last) {
        addCapability(reach, { kind: 'security-off', detail: `TLS verification off: ${fact.snippet.slice(0, 100)}`, location: { file, line, column: fact.location.column } });
        break;
      }
    }
  }
}

export function functionRange(file: string, firstLine: number, lastLine: number): string {
  return `${file}:${firstLine}:${lastLine}`;
}

function splitRange(range: string): [string, number, number] {
  const last = range.lastIndexOf(':');
  const middle = range.lastIndexOf(':', last - 1);
  return [range.slice(0, middle), Number(range.slice(middle + 1, last)), Number(range.slice(last + 1))];
}

/**
 * Sets each tool's capabilities from what its handler reached (tools without a handler the extractors linked are
 * left without the field: nothing is known about them).
 */
export function attachCapabilities(tools: readonly ToolDefinition[], reach: ReadonlyMap<string, Reach>, facts: readonly CodeFact[]): void {
  for (const reached of reach.values()) securityOffFromFacts(reached, facts);
  for (const tool of tools) {
    if (tool.kind !== 'tool' || tool.handlerId === undefined) continue;
    tool.capabilities = capabilityList(reach.get(tool.name));
  }
}

/** The capabilities of a reach, in source order, for the report. */
export function capabilityList(reach: Reach | undefined): Capability[] {
  if (!reach) return [];
  return [...reach.capabilities.values()].sort((a, b) => a.location.file.localeCompare(b.location.file) || a.location.line - b.location.line || a.kind.localeCompare(b.kind));
}
