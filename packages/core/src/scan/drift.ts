// How a server's tools differ from what mcp.lock pinned (scan/lockfile.ts): pure functions over definitions, used by the
// tool-drift rule and open to the daemon (drift between two published versions is driftOf(pinReport(old), newReport)).

import { diffWords } from 'diff';
import { canonicalHash, pinnedItems, type LockEntry, type PinnedDefinition, type PinnedParameter } from './lockfile.js';
import type { ToolDefinition } from './model.js';

/** One difference inside a definition. `widened` is what a rug pull needs: the tool accepts or may do more than it did. */
export interface DriftChange {
  /** Where in the definition: `description`, `inputSchema.path`, `inputSchema.path.enum`, `annotations.destructiveHint`. */
  field: string;
  kind: 'text' | 'widened' | 'narrowed' | 'added' | 'removed' | 'changed';
  /** One line a reader understands without the diff. */
  summary: string;
  /** For text: the word diff, `[-old words-]{+new words+}` (long unchanged stretches shortened). */
  diff?: string;
}

export type Drift =
  | { kind: 'added'; key: string; current: PinnedDefinition }
  | { kind: 'removed'; key: string; pinned: PinnedDefinition }
  | { kind: 'changed'; key: string; pinned: PinnedDefinition; current: PinnedDefinition; changes: DriftChange[] }
  /** The package's version differs from the pinned one (whether or not any item changed). */
  | { kind: 'version'; from?: string; to?: string };

type Definable = Parameters<typeof pinnedItems>[0][number];

/**
 * What changed between a pinned server and its tools now: added, removed and changed items (in `kind:name` order),
 * then the version, if it moved. An unchanged server gives [] (or only the version entry).
 */
export function driftOf(entry: LockEntry, current: { tools: readonly Definable[]; version?: string }): Drift[] {
  const now = pinnedItems(current.tools);
  const drift: Drift[] = [];
  const keys = [...new Set([...Object.keys(entry.items), ...now.keys()])].sort();
  for (const key of keys) {
    const pinned = Object.hasOwn(entry.items, key) ? entry.items[key] : undefined;
    const definition = now.get(key);
    if (!pinned && definition) drift.push({ kind: 'added', key, current: definition });
    else if (pinned && !definition) drift.push({ kind: 'removed', key, pinned: pinned.definition });
    else if (pinned && definition && canonicalHash(definition) !== pinned.hash) {
      drift.push({ kind: 'changed', key, pinned: pinned.definition, current: definition, changes: definitionChanges(pinned.definition, definition) });
    }
  }
  if (entry.target.version !== current.version) drift.push({ kind: 'version', from: entry.target.version, to: current.version });
  return drift;
}

/** Every difference between two definitions of the same item, texts with a word diff. */
export function definitionChanges(before: PinnedDefinition, after: PinnedDefinition): DriftChange[] {
  const changes: DriftChange[] = [];
  for (const field of ['title', 'description', 'uri'] as const) textChange(changes, field, before[field], after[field]);

  const was = before.inputSchema ?? { properties: {}, required: [] };
  const is = after.inputSchema ?? { properties: {}, required: [] };
  for (const name of [...new Set([...Object.keys(was.properties), ...Object.keys(is.properties)])].sort()) {
    const field = `inputSchema.${name}`;
    const old = Object.hasOwn(was.properties, name) ? was.properties[name] : undefined;
    const now = Object.hasOwn(is.properties, name) ? is.properties[name] : undefined;
    if (!old && now) changes.push({ field, kind: 'widened', summary: `new parameter \`${name}\`${now.type ? ` (${now.type})` : ''}` });
    else if (old && !now) changes.push({ field, kind: 'narrowed', summary: `parameter \`${name}\` removed` });
    else if (old && now) parameterChanges(changes, name, old, now);
    const required = [was.required.includes(name), is.required.includes(name)];
    if (old && now && required[0] && !required[1]) changes.push({ field: `${field}.required`, kind: 'widened', summary: `\`${name}\` is no longer required` });
    if (old && now && !required[0] && required[1]) changes.push({ field: `${field}.required`, kind: 'narrowed', summary: `\`${name}\` is now required` });
  }

  const annotations = [before.annotations ?? {}, after.annotations ?? {}] as const;
  for (const key of [...new Set([...Object.keys(annotations[0]), ...Object.keys(annotations[1])])].sort()) {
    const [old, now] = [annotations[0][key], annotations[1][key]];
    const field = `annotations.${key}`;
    if (old === undefined && now !== undefined) changes.push({ field, kind: 'added', summary: `annotation \`${key}\` added: ${show(now)}` });
    else if (old !== undefined && now === undefined) changes.push({ field, kind: 'removed', summary: `annotation \`${key}\` removed (was ${show(old)})` });
    else if (canonicalHash(old) !== canonicalHash(now)) changes.push({ field, kind: 'changed', summary: `annotation \`${key}\`: ${show(old)} → ${show(now)}` });
  }
  return changes;
}

function parameterChanges(changes: DriftChange[], name: string, old: PinnedParameter, now: PinnedParameter): void {
  const field = `inputSchema.${name}`;
  textChange(changes, `${field}.description`, old.description, now.description);

  const types = [typeSet(old.type), typeSet(now.type)] as const;
  if (old.type !== now.type) {
    const widened = types[1] === undefined || (types[0] !== undefined && [...types[1]].some((type) => !types[0]!.has(type)));
    const narrowed = !widened && types[1] !== undefined && (types[0] === undefined || [...types[0]].some((type) => !types[1]!.has(type)));
    changes.push({ field: `${field}.type`, kind: widened ? 'widened' : narrowed ? 'narrowed' : 'changed', summary: `type of \`${name}\`: ${old.type ?? 'any'} → ${now.type ?? 'any'}` });
  }

  if (old.enum && !now.enum) changes.push({ field: `${field}.enum`, kind: 'widened', summary: `\`${name}\` is no longer limited to ${old.enum.map(show).join(', ')}` });
  else if (!old.enum && now.enum) changes.push({ field: `${field}.enum`, kind: 'narrowed', summary: `\`${name}\` is now limited to ${now.enum.map(show).join(', ')}` });
  else if (old.enum && now.enum) {
    const added = now.enum.filter((value) => !old.enum!.includes(value));
    const removed = old.enum.filter((value) => !now.enum!.includes(value));
    if (added.length > 0) changes.push({ field: `${field}.enum`, kind: 'widened', summary: `\`${name}\` accepts new values: ${added.map(show).join(', ')}` });
    if (removed.length > 0) changes.push({ field: `${field}.enum`, kind: 'narrowed', summary: `\`${name}\` no longer accepts ${removed.map(show).join(', ')}` });
  }

  for (const key of ['pattern', 'format'] as const) {
    if (old[key] === now[key]) continue;
    const kind = now[key] === undefined ? 'widened' : old[key] === undefined ? 'narrowed' : 'changed';
    changes.push({ field: `${field}.${key}`, kind, summary: `${key} of \`${name}\`: ${old[key] === undefined ? 'none' : show(old[key])} → ${now[key] === undefined ? 'none' : show(now[key])}` });
  }
  if (old.maximum !== now.maximum) {
    const widened = now.maximum === undefined || (old.maximum !== undefined && now.maximum > old.maximum);
    changes.push({ field: `${field}.maximum`, kind: widened ? 'widened' : 'narrowed', summary: `upper bound of \`${name}\`: ${old.maximum ?? 'none'} → ${now.maximum ?? 'none'}` });
  }
  if (canonicalHash(old.default ?? null) !== canonicalHash(now.default ?? null)) {
    changes.push({ field: `${field}.default`, kind: 'changed', summary: `default of \`${name}\`: ${show(old.default)} → ${show(now.default)}` });
  }
}

function textChange(changes: DriftChange[], field: string, old: string | undefined, now: string | undefined): void {
  if (old === now) return;
  const summary = old === undefined ? `${field} added` : now === undefined ? `${field} removed` : `${field} changed`;
  changes.push({ field, kind: 'text', summary, diff: wordDiff(old ?? '', now ?? '') });
}

/** Extractors write types as TS/JSON-schema/Python spell them (`integer | null`, `str`): compared as sets of one spelling. */
function typeSet(type: string | undefined): Set<string> | undefined {
  if (type === undefined || type.trim() === '' || type === 'any' || type === 'unknown') return undefined;
  const spelling: Record<string, string> = { str: 'string', int: 'integer', float: 'number', bool: 'boolean', dict: 'object', list: 'array', None: 'null' };
  return new Set(type.split(/\s*[|,]\s*/).map((part) => spelling[part.trim()] ?? part.trim()));
}

const KEEP_WORDS = 6;

/**
 * A readable word diff in git's plain `--word-diff` notation: `[-removed-]{+added+}`. Unchanged stretches of more
 * than three times KEEP_WORDS words keep KEEP_WORDS at each end around an ellipsis, so the change is what one reads.
 */
export function wordDiff(before: string, after: string): string {
  return diffWords(before, after)
    .map((part) => {
      if (part.added) return `{+${part.value}+}`;
      if (part.removed) return `[-${part.value}-]`;
      if (part.value.trim().split(/\s+/).length <= 3 * KEEP_WORDS) return part.value;
      const ends = new RegExp(String.raw`^(\s*(?:\S+\s+){${KEEP_WORDS}})[\s\S]*?((?:\s+\S+){${KEEP_WORDS}}\s*)$`).exec(part.value);
      return ends ? `${ends[1]}…${ends[2]}` : part.value;
    })
    .join('');
}

function show(value: unknown): string {
  return value === undefined ? 'none' : JSON.stringify(value);
}

/** A pinned definition as the rules read definitions, placed at `location` (rules/tool-drift re-reads pinned texts). */
export function toToolDefinition(definition: PinnedDefinition, location: ToolDefinition['location']): ToolDefinition {
  const schema = definition.inputSchema;
  return {
    kind: definition.kind,
    name: definition.name,
    ...(definition.title !== undefined ? { title: definition.title } : {}),
    ...(definition.description !== undefined ? { description: definition.description } : {}),
    parameters: schema ? Object.entries(schema.properties).map(([name, parameter]) => ({ name, ...parameter, required: schema.required.includes(name) })) : [],
    ...(definition.annotations ? { annotations: definition.annotations } : {}),
    ...(definition.uri !== undefined ? { uri: definition.uri } : {}),
    location,
    extractor: 'manifest',
  };
}

