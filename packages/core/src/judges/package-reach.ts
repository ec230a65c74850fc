// Which JavaScript files of a package its entry points can load: the manifest's entries (main, module, bin, exports,
// install and start scripts), the modules launch files name (Dockerfile, server.json, served HTML …), and everything
// they name by path or file name, transitively. Judges use it to tell code the package runs from code it only ships
// (example servers, tests, demos). See docs/judges.md, "Code the package runs".
import { existsSync } from 'node:fs';
import path from 'node:path/posix';
import type { Manifest, SourceFile } from '../scan/model.js';
import { fileOf } from './finding-context.js';

export type Reach =
  /** An entry loads the file; `chain` runs from the entry to the file. */
  | { state: 'reached'; chain: string[]; pkg: string }
  /** Every entry resolved and nothing they load names the file by any path. */
  | { state: 'unreached'; entries: string[]; pkg: string }
  /** Reach cannot be shown either way; `why` says what is missing. */
  | { state: 'unknown'; why: string };

const JS_FILE = /\.(?:[cm]?js|jsx|[cm]?ts|tsx)$/i;
/** Extensions Node (and bundlers, for TypeScript sources) try after a specifier without one. */
const SUFFIXES = ['', '.js', '.mjs', '.cjs', '.ts', '.mts', '.cts', '.tsx', '.jsx', '/index.js', '/index.mjs', '/index.cjs', '/index.ts'];
const NOT_CODE = /\.d\.[cm]?ts$|\.(?:json|css|wasm|node|map|md)$/i;
/** Scripts npm runs on the user's machine when it installs the package, and the ones that start it from a checkout. */
const RUN_SCRIPTS = /^(?:preinstall|install|postinstall|start(?::.*)?)$/;
/**
 * Any quoted string that starts with ./ or ../ : import and require specifiers, and also paths handed to fork(),
 * new Worker() or spawn('node', […]). Counting every such string (and every string naming a file of the package, see
 * buildGraph) over-approximates what a file loads, which can only keep a file reachable, never wrongly drop one.
 */
export const RELATIVE_STRING = /(['"`])(\.{1,2}\/[^'"`\s$]*)\1/g;
/** Every short quoted string without spaces: specifiers, path parts, file names. */
const QUOTED_STRING = /(['"`])([^'"`\s$\\]{1,200})\1/g;
/** A load whose specifier is computed (`require(name)`, `import(\`./${x}.js\`)`): any file may be what it loads. */
const COMPUTED_LOAD = /\b(?:require|import)\s*\(\s*(?!['"]|`[^`$]*`\s*\))[^)\s]/;

interface PackageGraph {
  dir: string;
  name: string;
  /** Resolved entry files, or the reason the entries cannot be known. */
  entries: string[] | string;
  /** file → the file it was first reached from (entries map to themselves). */
  parents: Map<string, string>;
  /** Why unreached files may still be loaded (a reached file loads by a computed name, or could not be read). */
  open?: string;
}

const graphsByFiles = new WeakMap<readonly SourceFile[], Map<Manifest, PackageGraph>>();

/** Whether the package containing `file` can load it from its entry points. */
export function packageReach(file: string, files: readonly SourceFile[], manifests: readonly Manifest[] | undefined): Reach {
  if (!JS_FILE.test(file)) return { state: 'unknown', why: `${file} is not a JavaScript or TypeScript module` };
  const manifest = owningManifest(file, manifests ?? []);
  if (!manifest) return { state: 'unknown', why: `no package.json encloses ${file}, so its entry points are unknown` };
  const graph = graphOf(manifest, files);
  if (typeof graph.entries === 'string') return { state: 'unknown', why: graph.entries };
  if (graph.parents.has(file)) return { state: 'reached', chain: chainTo(graph, file), pkg: graph.name };
  if (graph.open) return { state: 'unknown', why: graph.open };
  return { state: 'unreached', entries: graph.entries, pkg: graph.name };
}

function owningManifest(file: string, manifests: readonly Manifest[]): Manifest | undefined {
  let best: Manifest | undefined;
  for (const manifest of manifests) {
    // A nested package.json without a name (`{"type": "module"}` in dist/esm) only sets the module format for its folder.
    if (manifest.kind !== 'package.json' || typeof (manifest.data as { name?: unknown } | null)?.name !== 'string') continue;
    const dir = path.dirname(manifest.path);
    const inside = dir === '.' || file.startsWith(`${dir}/`);
    if (inside && (!best || dir.length > path.dirname(best.path).length)) best = manifest;
  }
  return best;
}

function graphOf(manifest: Manifest, files: readonly SourceFile[]): PackageGraph {
  let graphs = graphsByFiles.get(files);
  if (!graphs) {
    graphs = new Map();
    graphsByFiles.set(files, graphs);
  }
  const cached = graphs.get(manifest);
  if (cached) return cached;
  const graph = buildGraph(manifest, files);
  graphs.set(manifest, graph);
  return graph;
}

function buildGraph(manifest: Manifest, files: readonly SourceFile[]): PackageGraph {
  const dir = path.dirname(manifest.path);
  const data = (manifest.data ?? {}) as Record<string, unknown>;
  const name = typeof data.name === 'string' ? data.name : manifest.path;
  const graph: PackageGraph = { dir, name, entries: [], parents: new Map() };
  const declared = declaredEntries(data);
  // Without main, Node loads index.js; a manifest that names nothing else leaves only that.
  if (declared.length === 0 && data.main === undefined) declared.push('index.js');
  // A checkout of TypeScript sources names its build output (dist/index.js), which the scan maps back to src/.
  const hasTypeScript = files.some((file) => /\.[cm]?tsx?$/.test(file.path) && !file.path.endsWith('.d.ts'));
  const entries: string[] = [];
  for (const entry of declared) {
    const target = path.join(dir, entry);
    const resolved = entry.includes('*') ? patternMatches(entry, dir, files) : resolveFile(target, files) ?? resolveFile(sourceOf(target), files);
    if (resolved === undefined || (Array.isArray(resolved) && resolved.length === 0)) {
      // An entry missing from a JavaScript package loads nothing (Node fails on it). One the scan skipped, or the
      // unbuilt output of TypeScript sources, may load anything.
      if (!entry.includes('*') && !hasTypeScript && !onDisk(target, files)) continue;
      graph.entries = `the entry point ${entry} of ${name} was not scanned, so what it loads is unknown`;
      return graph;
    }
    entries.push(...(Array.isArray(resolved) ? resolved : [resolved]));
  }
  entries.push(...launchedByConfig(dir, files));
  if (entries.length === 0) {
    graph.entries = `no entry point of ${name} is among its files, so what it runs is unknown`;
    return graph;
  }
  graph.entries = [...new Set(entries)];
  // Files by base name, for paths built from literal parts (`resolve(__dirname, '..', 'server', 'index.js')`).
  const byName = new Map<string, string[]>();
  for (const file of files) {
    if (!JS_FILE.test(file.path) || !file.path.startsWith(dir === '.' ? '' : `${dir}/`)) continue;
    const base = path.basename(file.path);
    for (const name of new Set([base, base.replace(/\.[^.]+$/, '')])) byName.set(name, [...(byName.get(name) ?? []), file.path]);
  }
  const queue = [...graph.entries];
  const reach = (target: string | undefined, from: string): void => {
    if (target === undefined || graph.parents.has(target)) return;
    graph.parents.set(target, from);
    queue.push(target);
    // Beside its build output, a package's TypeScript sources are what the scan analyses: they run as that output.
    if (hasTypeScript) reach(resolveFile(sourceOf(target), files), target);
  };
  for (const entry of graph.entries) {
    graph.parents.set(entry, entry);
    if (hasTypeScript) reach(resolveFile(sourceOf(entry), files), entry);
  }
  while (queue.length > 0) {
    const current = queue.shift()!;
    const text = fileOf(files, current)?.text;
    if (text === undefined) {
      // Too large or binary to read: what it loads is unknown.
      graph.open ??= `${current} was not read, so what it loads is unknown`;
      continue;
    }
    if (!graph.open && COMPUTED_LOAD.test(text)) graph.open = `${current} loads a module by a computed name, which may be any file`;
    for (const match of text.matchAll(QUOTED_STRING)) {
      const literal = match[2]!;
      if (/^\.{1,2}\//.test(literal)) reach(resolveFile(path.join(path.dirname(current), literal), files), current);
      // Any string whose last part names a file of the package may be a piece of a path to it.
      const last = literal.slice(literal.lastIndexOf('/') + 1);
      for (const named of byName.get(last) ?? []) reach(named, current);
    }
    // Unquoted or interpolated file names too (`exec node "$DIR/../dist/http.js"` in a bin script).
    for (const [token] of text.matchAll(MODULE_PATH)) for (const named of byName.get(path.basename(token)) ?? []) reach(named, current);
  }
  return graph;
}

/**
 * Paths the manifest says the package runs or lets others load: main, module, bin, the targets of exports and imports
 * (every condition), and files named by install and start scripts. A subpath pattern (`"./*": "./dist/*"`) exports every file under
 * its target, so each of them counts as an entry: the package publishes them for import.
 */
function declaredEntries(data: Record<string, unknown>): string[] {
  const entries: string[] = [];
  for (const key of ['main', 'module']) if (typeof data[key] === 'string') entries.push(data[key]);
  const { bin, exports, scripts } = data;
  if (typeof bin === 'string') entries.push(bin);
  else if (bin && typeof bin === 'object') entries.push(...Object.values(bin).filter((value): value is string => typeof value === 'string'));
  collectExportTargets(exports, entries);
  // `imports` maps #specifiers to files; counting them as entries over-approximates, as everything here does.
  collectExportTargets(data.imports, entries);
  if (scripts && typeof scripts === 'object') {
    for (const [script, command] of Object.entries(scripts)) {
      if (!RUN_SCRIPTS.test(script) || typeof command !== 'string') continue;
      // `node scripts/setup.js --flag`: the tokens that look like files of the package.
      entries.push(...command.split(/\s+/).filter((token) => JS_FILE.test(token) && !token.includes('*')));
    }
  }
  // Type declarations, JSON, styles and native addons are not JavaScript that can load other modules.
  return entries.filter((entry) => !NOT_CODE.test(entry)).map((entry) => entry.replace(/^\.\//, ''));
}

function collectExportTargets(node: unknown, into: string[]): void {
  if (typeof node === 'string') {
    if (node.startsWith('./')) into.push(node);
  } else if (Array.isArray(node)) {
    for (const item of node) collectExportTargets(item, into);
  } else if (node && typeof node === 'object') {
    for (const value of Object.values(node)) collectExportTargets(value, into);
  }
}

/**
 * Files that start the package without going through package.json: a container's CMD, an MCP registry entry
 * (server.json), a desktop-extension manifest, Smithery's config, a Procfile or shell script, and the HTML pages whose
 * scripts a browser runs when the package serves them. Any module path they name is an entry.
 */
const LAUNCH_FILE = /(?:^|\/)(?:Dockerfile[^/]*|Containerfile|Procfile|server\.json|manifest\.json|smithery\.ya?ml|(?:docker-)?compose[^/]*\.ya?ml|[^/]+\.sh|[^/]+\.html?)$/i;
/** A file name in text; a token starts only where a run of path characters starts, so long runs cost linear time. */
const MODULE_PATH = /(?<![\w@./-])[\w@./-]{1,200}?\.[cm]?[jt]sx?\b/g;

function launchedByConfig(dir: string, files: readonly SourceFile[]): string[] {
  const launched: string[] = [];
  for (const file of files) {
    if (!LAUNCH_FILE.test(file.path) || file.text === undefined || !(dir === '.' || file.path.startsWith(`${dir}/`))) continue;
    for (const [token] of file.text.matchAll(MODULE_PATH)) {
      const target = resolveFile(path.join(dir, token), files) ?? resolveFile(path.join(path.dirname(file.path), token), files);
      if (target) launched.push(target);
    }
  }
  return launched;
}

/** Files matching an exports pattern target (`dist/esm/*` or `dist/*.js`), JavaScript only. */
function patternMatches(pattern: string, dir: string, files: readonly SourceFile[]): string[] {
  const [prefix = '', suffix = ''] = path.join(dir, pattern).split('*');
  return files
    .map((file) => file.path)
    .filter((file) => JS_FILE.test(file) && !file.endsWith('.d.ts') && file.startsWith(prefix) && file.endsWith(suffix));
}

export function resolveFile(target: string, files: readonly SourceFile[]): string | undefined {
  const normal = path.normalize(target);
  for (const suffix of SUFFIXES) {
    const candidate = `${normal}${suffix}`;
    if (fileOf(files, candidate)) return candidate;
  }
  // TypeScript sources import `./x.js` meaning `./x.ts`.
  const swapped = normal.replace(/\.[cm]?js$/, '');
  if (swapped !== normal) for (const extension of ['.ts', '.mts', '.cts', '.tsx']) if (fileOf(files, swapped + extension)) return swapped + extension;
  return undefined;
}

/** `dist/server/index.js` → `src/server/index.js` (resolveFile then tries .ts): the usual outDir → rootDir layout. */
function sourceOf(target: string): string {
  return target.replace(/(^|\/)(?:dist|build|lib|out)\//, '$1src/');
}

/** Whether the workspace holds the file at all, scanned or not (the inventory skips some files, e.g. over its limits). */
function onDisk(target: string, files: readonly SourceFile[]): boolean {
  const sample = files[0];
  if (!sample) return true;
  const root = sample.absPath.slice(0, sample.absPath.length - sample.path.length);
  return SUFFIXES.some((suffix) => existsSync(`${root}${path.normalize(target)}${suffix}`));
}

function chainTo(graph: PackageGraph, file: string): string[] {
  const chain = [file];
  let current = file;
  while (graph.parents.get(current) !== current) {
    current = graph.parents.get(current)!;
    chain.unshift(current);
  }
  return chain;
}
