import path from 'node:path';
import { isDeclarationFile } from './inventory.js';
import type { Manifest, ScopedOutFile, SourceFile } from './model.js';

/**
 * Which code files the analyzers skip, and why. Every skipped file is listed in the report (`scopedOut`), so what
 * was not analysed is never shown as analysed. The text rules (secrets, hidden characters) still read all of them.
 *
 * - Declarations (.d.ts, .d.mts, .d.cts) hold types only; nothing in them runs.
 * - Front-end build output: JavaScript below a folder holding an `index.html` (a web client's page with its bundles
 *   and `assets/` chunks) runs in a browser, not in the server. A folder is taken for a web client only when none
 *   of its scripts loads a Node built-in, no entry point of a package.json (main, module, bin, exports) points into
 *   it and no code outside it imports from it; otherwise all of it is analysed as server code.
 * - Dual CommonJS/ESM builds (`cjs/` beside `esm/`, `x.cjs` beside `x.js` or `x.mjs`, `x.js` beside `x.mjs`): the
 *   ESM copy is analysed, the CommonJS twin is not, so each finding is reported once. A pair counts as twins only
 *   when the CommonJS copy uses no word the ESM copy lacks, other than module-system glue (see `isGlueWord`); a copy
 *   that does something more is analysed too.
 */
export interface CodeScope {
  /** Paths of `source`/`bundle` files the analyzers must not receive. */
  skipped: Set<string>;
  scopedOut: ScopedOutFile[];
}

export function scopeCode(files: readonly SourceFile[], manifests: readonly Manifest[]): CodeScope {
  const skipped = new Set<string>();
  const scopedOut: ScopedOutFile[] = [];
  const code = files.filter((file) => (file.role === 'source' || file.role === 'bundle') && file.language !== undefined);

  for (const file of files) {
    if (isDeclarationFile(file.path)) scopedOut.push({ path: file.path, reason: 'declaration', detail: 'type declarations: no runtime code' });
  }

  for (const { root, files: clientFiles } of webClients(files, code, manifests)) {
    for (const file of clientFiles) {
      skipped.add(file.path);
      scopedOut.push({ path: file.path, reason: 'browser-build', detail: `web client beside ${root}/index.html` });
    }
  }

  const byPath = new Map(code.filter((file) => !skipped.has(file.path)).map((file) => [file.path, file]));
  const words = new Map<SourceFile, TwinWords>();
  const wordsOfFile = (file: SourceFile) => words.get(file) ?? words.set(file, twinWords(file.text ?? '')).get(file)!;
  for (const file of byPath.values()) {
    if (file.text === undefined) continue;
    const twin = esmTwinCandidates(file.path, byPath).find(
      (candidate) => candidate.text !== undefined && sameProgram(wordsOfFile(file), wordsOfFile(candidate)),
    );
    if (!twin) continue;
    skipped.add(file.path);
    scopedOut.push({ path: file.path, reason: 'dual-build-twin', detail: `CommonJS twin of ${twin.path}, which is analysed` });
  }

  scopedOut.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { skipped, scopedOut };
}

/** A script that loads a Node built-in (`fs`, `child_process`, `node:*` …) is server code wherever it sits. */
const NODE_BUILTIN =
  /\b(?:require\s*\(\s*|from\s*|import\s*\(\s*)["'](?:node:[\w/]+|child_process|fs|fs\/promises|net|http|https|http2|os|worker_threads|cluster|dgram|dns|tls|vm|readline|module|inspector|v8)["']/;

function webClients(
  files: readonly SourceFile[],
  code: readonly SourceFile[],
  manifests: readonly Manifest[],
): Array<{ root: string; files: SourceFile[] }> {
  // The workspace root itself is never a web client: that would put the whole package out of scope.
  const roots = files
    .filter((file) => path.posix.basename(file.path) === 'index.html' && file.path.includes('/'))
    .map((file) => path.posix.dirname(file.path));
  if (roots.length === 0) return [];
  const entries = entryPoints(manifests);
  const imports = relativeImports(code);
  const clients: Array<{ root: string; files: SourceFile[] }> = [];
  for (const root of roots) {
    // A web client inside another one (a nested page) is part of the outer one.
    if (roots.some((other) => other !== root && root.startsWith(`${other}/`))) continue;
    const inside = (filePath: string) => filePath.startsWith(`${root}/`);
    // Server code that runs it or imports from it makes the folder part of the server.
    if (entries.some(inside) || imports.some(({ from, to }) => !inside(from) && inside(to))) continue;
    const scripts = code.filter((file) => inside(file.path));
    if (scripts.length === 0 || scripts.some((file) => file.language !== 'javascript' || NODE_BUILTIN.test(file.text ?? ''))) continue;
    clients.push({ root, files: scripts });
  }
  return clients;
}

/** Every relative import and require of the files, as workspace paths: which file points at which. */
function relativeImports(files: readonly SourceFile[]): Array<{ from: string; to: string }> {
  const imports: Array<{ from: string; to: string }> = [];
  for (const file of files) {
    for (const match of (file.text ?? '').matchAll(MODULE_SPECIFIER)) {
      const specifier = match[0].slice(match[1]!.length + 1, -1);
      if (specifier.startsWith('./') || specifier.startsWith('../')) {
        imports.push({ from: file.path, to: path.posix.join(path.posix.dirname(file.path), specifier) });
      }
    }
  }
  return imports;
}

/** Workspace paths that package.json files name as code to run or import (main, module, bin, exports). */
function entryPoints(manifests: readonly Manifest[]): string[] {
  const found: string[] = [];
  const collect = (base: string, value: unknown): void => {
    if (typeof value === 'string') found.push(path.posix.join(base, value));
    else if (Array.isArray(value)) for (const item of value) collect(base, item);
    else if (value && typeof value === 'object') for (const item of Object.values(value)) collect(base, item);
  };
  for (const manifest of manifests) {
    if (manifest.kind !== 'package.json' || !manifest.data || typeof manifest.data !== 'object') continue;
    const data = manifest.data as Record<string, unknown>;
    const base = path.posix.dirname(manifest.path);
    for (const key of ['main', 'module', 'bin', 'exports']) collect(base, data[key]);
  }
  return found;
}

const TWIN_DIRECTORIES: ReadonlyArray<[cjs: string, esm: string]> = [
  ['cjs', 'esm'],
  ['commonjs', 'esm'],
  ['commonjs', 'module'],
];

/** Bundlers name shared chunks `<name>-<8-character hash>`, and the two builds of one chunk get different hashes. */
const CHUNK_HASH = /-[A-Za-z0-9_-]{8}$/;

/** The files that may be the ESM copy of a CommonJS build file, best first; the content check picks among them. */
function esmTwinCandidates(filePath: string, byPath: ReadonlyMap<string, SourceFile>): SourceFile[] {
  const candidates: string[] = [];
  const segments = filePath.split('/');
  for (const [cjs, esm] of TWIN_DIRECTORIES) {
    const at = segments.lastIndexOf(cjs);
    if (at === -1 || at === segments.length - 1) continue;
    const twin = [...segments.slice(0, at), esm, ...segments.slice(at + 1)].join('/');
    const stem = twin.replace(/\.[cm]?js$/, '');
    candidates.push(twin, `${stem}.js`, `${stem}.mjs`);
  }
  const extension = /\.(cjs|js)$/.exec(filePath)?.[1];
  if (extension) {
    const stem = filePath.slice(0, -extension.length - 1);
    // x.cjs pairs with x.mjs or x.js; x.js pairs with x.mjs only (beside x.cjs, x.js is the ESM copy).
    candidates.push(...(extension === 'cjs' ? [`${stem}.mjs`, `${stem}.js`] : [`${stem}.mjs`]));
    if (extension === 'cjs' && CHUNK_HASH.test(stem)) {
      const chunk = stem.replace(CHUNK_HASH, '');
      for (const other of byPath.keys()) {
        if (/\.m?js$/.test(other) && other.replace(/\.m?js$/, '').replace(CHUNK_HASH, '') === chunk && CHUNK_HASH.test(other.replace(/\.m?js$/, ''))) {
          candidates.push(other);
        }
      }
    }
  }
  return [...new Set(candidates)].filter((candidate) => candidate !== filePath).flatMap((candidate) => byPath.get(candidate) ?? []);
}

/** Module specifiers (`require("./x.cjs")`, `from "./x.js"`): twins name their own copies, which differ by design. */
const MODULE_SPECIFIER = /\b(require\s*\(\s*|from\s*|import\s*\(\s*|import\s+)(["'])[^"'\n]*\2/g;
const WORD = /[A-Za-z_$][\w$]*/g;

/** The source map comment names the file's own (hashed) name. */
const SOURCE_MAP_COMMENT = /^\/\/# sourceMappingURL=.*$/gm;

function wordsOf(text: string): Set<string> {
  const words = text.replace(MODULE_SPECIFIER, '$1""').replace(SOURCE_MAP_COMMENT, '').match(WORD) ?? [];
  // Bundlers number clashing names per build (`getActiveSpan$9` in one, `getActiveSpan$1` in the other).
  return new Set(words.map((word) => word.replace(/\$\d+$/, '')));
}

/** Bundlers name a required module's namespace after its specifier: `node:util` → `node_util`, `zod/v4` → `zod_v4`. */
function specifierAliases(text: string): Set<string> {
  const aliases = new Set<string>();
  for (const match of text.matchAll(MODULE_SPECIFIER)) {
    const specifier = match[0].slice(match[1]!.length + 1, -1);
    const alias = specifier.replace(/^@/, '').replace(/[^A-Za-z0-9_$]+/g, '_');
    aliases.add(alias).add(`_${alias}`);
  }
  return aliases;
}

/**
 * What CommonJS output adds around the same program: `exports`/`require`, tsc's and esbuild's interop helpers and
 * their local names, `Object.defineProperty(exports, "__esModule", { value: true })`, and plain keywords. None of
 * them calls anything the ESM copy does not.
 */
const GLUE_WORDS = new Set([
  'use', 'strict', 'exports', 'require', 'module', 'default', 'Object', 'defineProperty', 'value', 'true', 'false',
  'enumerable', 'writable', 'configurable', 'get', 'set', 'getOwnPropertyDescriptor', 'getOwnPropertyNames',
  'hasOwnProperty', 'prototype', 'call', 'create', 'ownKeys', 'keys', 'toStringTag', 'Symbol', 'freeze', 'Promise',
  'resolve', 'then', 'result', 'mod', 'desc', 'cjs', 'var', 'let', 'const', 'function', 'this', 'return', 'void',
  'undefined', 'null', 'if', 'else', 'in', 'of', 'for', 'new', 'typeof', 'length', 'i', 'k', 'k2', 'm', 'o', 'p', 'v',
  'ar', 'name', 'target', 'all', 'from', 'to', 'except', 'key', 'cb', 'obj',
  // sucrase's helpers (tsup's CommonJS output): _interopRequireDefault, _nullishCoalesce, _optionalChain.
  'lhs', 'rhsFn', 'ops', 'lastAccessLHS', 'op', 'fn', 'optionalAccess', 'optionalCall', 'args', 'while',
]);

function isGlueWord(word: string): boolean {
  // tsc names an import `<module>_1`, esbuild `import_<module>`/`require_<module>` or `_<module>`; helpers start `__`.
  return GLUE_WORDS.has(word) || /_\d+$/.test(word) || /^__/.test(word) || /^(?:import|require)_/.test(word) || /^_[A-Za-z0-9]+$/.test(word);
}

/** ESM words CommonJS output spells otherwise (`import x from` becomes `x_1.default`). */
const ESM_WORDS = new Set(['import', 'export', 'from', 'as', 'default']);

/**
 * Whether a CommonJS file and an ESM file are two builds of one program: the CommonJS copy uses no word the ESM copy
 * lacks other than module-system glue, and the ESM copy has few words the CommonJS copy lacks (default imports get
 * renamed), so a small file is not taken for the twin of a large one whose vocabulary happens to cover it.
 */
function sameProgram(cjs: TwinWords, esm: TwinWords): boolean {
  for (const word of cjs.words) if (!esm.words.has(word) && !isGlueWord(word) && !cjs.aliases.has(word)) return false;
  let esmOnly = 0;
  for (const word of esm.words) if (!cjs.words.has(word) && !ESM_WORDS.has(word)) esmOnly++;
  return esmOnly <= Math.max(8, esm.words.size * 0.05);
}

interface TwinWords {
  words: Set<string>;
  aliases: Set<string>;
}

function twinWords(text: string): TwinWords {
  return { words: wordsOf(text), aliases: specifierAliases(text) };
}
