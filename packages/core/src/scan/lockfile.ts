// mcp.lock: what a set of MCP servers showed the model when the user pinned them (`svc pin`), so a later scan can tell
// when a server changed its tools after it was approved (a "rug pull"). Pure data and pure functions: the CLI reads
// and writes the file, the engine compares (scan/drift.ts, rule tool-drift), the daemon can reuse both. See docs/pinning.md.

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import canonicalize from 'canonicalize';
import { z } from 'zod';
import { SVC_VERSION } from '../version.js';
import type { ConfigOrigin, ScanReport, ScanTarget, TargetKind, ToolDefinition } from './model.js';
import { describeIssue } from './suppressions.js';

/** The lock format this svc writes and reads; a lock of another version is refused, never half-read. */
export const LOCKFILE_VERSION = 1;
export const LOCKFILE_NAME = 'mcp.lock';

const parameterSchema = z.strictObject({
  type: z.string().optional(),
  description: z.string().optional(),
  enum: z.array(z.string()).optional(),
  default: z.unknown().optional(),
  pattern: z.string().optional(),
  format: z.string().optional(),
  maximum: z.number().optional(),
});

/** Exactly what an MCP client hands the model for one tool, prompt, resource or the instructions, and nothing else. */
const definitionSchema = z.strictObject({
  kind: z.enum(['tool', 'prompt', 'resource', 'instructions']),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  /** The input schema as JSON Schema keeps it: properties by name (order carries no meaning), `required` sorted. */
  inputSchema: z.strictObject({ properties: z.record(z.string(), parameterSchema), required: z.array(z.string()) }).optional(),
  annotations: z.record(z.string(), z.unknown()).optional(),
  uri: z.string().optional(),
});
export type PinnedDefinition = z.infer<typeof definitionSchema>;
export type PinnedParameter = z.infer<typeof parameterSchema>;

const entrySchema = z.strictObject({
  target: z.strictObject({
    kind: z.enum(['directory', 'npm', 'pypi', 'git', 'remote', 'config']),
    input: z.string(),
    name: z.string(),
    version: z.string().optional(),
    contentHash: z.string(),
  }),
  pinnedAt: z.iso.datetime(),
  /** By `kind:name` (`tool:read_file`, `instructions:instructions`). */
  items: z.record(z.string(), z.strictObject({ hash: z.string().regex(/^sha256:[0-9a-f]{64}$/), definition: definitionSchema })),
});
export type LockEntry = z.infer<typeof entrySchema>;

const lockfileSchema = z.strictObject({
  lockfileVersion: z.literal(LOCKFILE_VERSION),
  generator: z.strictObject({ name: z.literal('svc'), version: z.string() }),
  /** By server identity (serverKey). */
  servers: z.record(z.string(), entrySchema),
});
export type Lockfile = z.infer<typeof lockfileSchema>;

/** A lock that cannot be used: names the file and what is wrong with it. */
export class LockfileError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'LockfileError';
  }
}

/**
 * A server's identity across scans: the config's server name (when it came from an MCP client config) and what is
 * scanned, without the version, so upgrading a package compares the new version with the pinned one. Folders are
 * named as given (normalised, never made absolute), so a lock committed to a repository holds on every machine.
 */
export function serverKey(target: { kind: TargetKind; input: string; name: string; origin?: Pick<ConfigOrigin, 'serverName'> }): string {
  const what =
    target.kind === 'npm' || target.kind === 'pypi'
      ? `${target.kind}:${target.name}`
      : target.kind === 'git'
        ? target.input.replace(/#.*$/, '')
        : target.kind === 'directory'
          ? path.posix.normalize(target.input.replaceAll('\\', '/')).replace(/(.)\/$/, '$1')
          : target.input;
  return target.origin ? `${target.origin.serverName} (${what})` : what;
}

/** `kind:name`: one item of a server. */
export function itemKey(definition: Pick<PinnedDefinition, 'kind' | 'name'>): string {
  return `${definition.kind}:${definition.name}`;
}

/** The model-visible part of an extracted definition, in the canonical shape the lock keeps and hashes. */
export function pinnedDefinition(tool: Pick<ToolDefinition, 'kind' | 'name' | 'title' | 'description' | 'parameters' | 'annotations' | 'uri'>): PinnedDefinition {
  const definition: PinnedDefinition = { kind: tool.kind, name: tool.name };
  if (tool.title !== undefined) definition.title = tool.title;
  if (tool.description !== undefined) definition.description = tool.description;
  if (tool.parameters.length > 0) {
    const properties: Record<string, PinnedParameter> = {};
    for (const parameter of tool.parameters) {
      const { name: _name, required: _required, ...rest } = parameter;
      const property: PinnedParameter = { ...rest };
      // Enum order carries no meaning to a client; sorted, so a reordering is not a change.
      if (property.enum) property.enum = [...property.enum].sort();
      properties[parameter.name] = property;
    }
    const required = tool.parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name).sort();
    definition.inputSchema = { properties, required };
  }
  if (tool.annotations !== undefined && Object.keys(tool.annotations).length > 0) definition.annotations = tool.annotations;
  if (tool.uri !== undefined) definition.uri = tool.uri;
  // Through JSON, so what is hashed now is exactly what the lock file gives back later (no undefined members).
  return JSON.parse(JSON.stringify(definition)) as PinnedDefinition;
}

/**
 * SHA-256 of the RFC 8785 (JCS) canonical JSON of a definition: key order and whitespace make no difference, any
 * change of what the model reads does.
 */
export function canonicalHash(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('cannot hash a value with no JSON form');
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/**
 * The items of a definition list by `kind:name`. Two definitions of one name (a tool registered in two files) keep the
 * first, in the extractors' order, which is stable for the same files.
 */
export function pinnedItems(tools: readonly Parameters<typeof pinnedDefinition>[0][]): Map<string, PinnedDefinition> {
  const items = new Map<string, PinnedDefinition>();
  for (const tool of tools) {
    const definition = pinnedDefinition(tool);
    if (!items.has(itemKey(definition))) items.set(itemKey(definition), definition);
  }
  return items;
}

/** What `svc pin` records for one scanned server. */
export function pinReport(report: Pick<ScanReport, 'target' | 'tools'>, pinnedAt: Date): LockEntry {
  const { kind, input, name, version, contentHash } = report.target;
  const items: LockEntry['items'] = {};
  for (const [key, definition] of [...pinnedItems(report.tools)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    items[key] = { hash: canonicalHash(definition), definition };
  }
  return { target: { kind, input, name, ...(version !== undefined ? { version } : {}), contentHash }, pinnedAt: pinnedAt.toISOString(), items };
}

/**
 * A lock holding `entries` over `previous`: the servers pinned now replace their old entries, the others stay (pinning
 * one server again after reviewing its change must not forget the rest). Keys are sorted so the file diffs well.
 */
export function createLockfile(entries: ReadonlyMap<string, LockEntry>, previous?: Lockfile): Lockfile {
  const servers = { ...previous?.servers, ...Object.fromEntries(entries) };
  const sorted = Object.fromEntries(Object.keys(servers).sort().map((key) => [key, servers[key]!]));
  return { lockfileVersion: LOCKFILE_VERSION, generator: { name: 'svc', version: SVC_VERSION }, servers: sorted };
}

/** The entry pinned for a scanned target, if any. */
export function lockEntryFor(lock: Lockfile, target: Parameters<typeof serverKey>[0]): LockEntry | undefined {
  return Object.hasOwn(lock.servers, serverKey(target)) ? lock.servers[serverKey(target)] : undefined;
}

/** The `pinned` entry the rules get for a scanned target (a folder, a package, a remote endpoint), if the lock has one. */
export function pinnedEntry(lock: Lockfile | undefined, workspace: { name: string; target: ScanTarget }): { pinned?: LockEntry } {
  const target = workspace.target;
  const pinned = lock && lockEntryFor(lock, { kind: target.kind, input: target.input, name: workspace.name, ...('origin' in target ? { origin: target.origin } : {}) });
  return pinned ? { pinned } : {};
}

/** Parses and validates a lock's text; anything wrong is a LockfileError naming the file and the problem. */
export function parseLockfile(text: string, file: string): Lockfile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new LockfileError(file, `not valid JSON (${(error as Error).message})`);
  }
  const version = typeof data === 'object' && data !== null ? (data as Record<string, unknown>).lockfileVersion : undefined;
  if (version === undefined) throw new LockfileError(file, 'not an mcp.lock: it has no lockfileVersion');
  if (version !== LOCKFILE_VERSION) {
    throw new LockfileError(file, `lockfileVersion ${JSON.stringify(version)} is not one this svc reads (it reads ${LOCKFILE_VERSION}); upgrade svc, or pin again with \`svc pin\``);
  }
  const parsed = lockfileSchema.safeParse(data);
  if (!parsed.success) throw new LockfileError(file, `not a valid mcp.lock: ${describeIssue(parsed.error)}`);
  return parsed.data;
}

/** Reads a lock file; a missing or unreadable file is a LockfileError too (the caller decides whether absence is fine). */
export async function readLockfile(file: string): Promise<Lockfile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new LockfileError(file, code === 'ENOENT' ? 'no such file' : `cannot read it (${code ?? (error as Error).message})`);
  }
  return parseLockfile(text, file);
}

export function formatLockfile(lock: Lockfile): string {
  return `${JSON.stringify(lock, null, 2)}\n`;
}
