import { parseSync, rawTransferSupported, visitorKeys, type ParserOptions } from 'oxc-parser';
import { isDeclarationFile } from '../../inventory.js';
import type { Language, SourceFile, SourceLocation } from '../../model.js';

/**
 * oxc's ESTree node, loosely typed: the analyzer inspects many node shapes by their `type` tag, and narrowing the full
 * generated union at every step would bury the logic. Every access is guarded by a `type` check or optional chaining.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AstNode = { type: string; start: number; end: number; [key: string]: any };

export const JS_EXTENSIONS = ['.js', '.mjs', '.cjs', '.jsx', '.ts', '.mts', '.cts', '.tsx'] as const;

export function isJsPath(path: string): boolean {
  return JS_EXTENSIONS.some((ext) => path.endsWith(ext)) && !isDeclarationFile(path);
}

export function languageOf(path: string): Language | undefined {
  if (!isJsPath(path)) return undefined;
  return /\.[cm]?tsx?$/.test(path) ? 'typescript' : 'javascript';
}

function oxcLang(path: string): 'js' | 'jsx' | 'ts' | 'tsx' | 'dts' {
  if (path.endsWith('.tsx')) return 'tsx';
  if (/\.[cm]?ts$/.test(path)) return 'ts';
  if (path.endsWith('.jsx')) return 'jsx';
  return 'js';
}

export interface ParsedFile {
  file: SourceFile;
  text: string;
  program: AstNode;
  /** Offsets where each line starts, for offset → line/column. */
  lineStarts: number[];
}

export type ParseOutcome = { ok: true; parsed: ParsedFile } | { ok: false; message: string };

/**
 * Raw transfer hands the AST over as one buffer that JS reads directly, instead of a JSON string that is built in
 * Rust and parsed again in JS (the JSON path cost about a quarter of a scan). It needs Node ≥ 22 (ArrayBuffers over
 * 4 GiB); older runtimes take the JSON path, which yields the same ESTree objects.
 */
export const RAW_TRANSFER = rawTransferSupported();

function parseOptions(
  sourceType: 'module' | 'commonjs',
  lang: ReturnType<typeof oxcLang>,
): ParserOptions & { experimentalRawTransfer?: boolean } {
  return { sourceType, lang, preserveParens: false, ...(RAW_TRANSFER ? { experimentalRawTransfer: true } : {}) };
}

export function parseFile(file: SourceFile): ParseOutcome {
  const text = file.text;
  if (text === undefined) return { ok: false, message: 'no text (binary or over the size limit)' };
  const lang = oxcLang(file.path);
  // Plain .js/.cjs may be CommonJS (legacy octal, `with`, and the top-level `return` Node's module wrapper allows, as in
  // `if (require.main !== module) return;`): retry as CommonJS before giving up.
  const attempts: Array<'module' | 'commonjs'> = file.path.endsWith('.cjs') ? ['commonjs', 'module'] : ['module', 'commonjs'];
  let firstError = '';
  for (const sourceType of lang.startsWith('t') ? ['module' as const] : attempts) {
    try {
      const result = parseSync(file.path, text, parseOptions(sourceType, lang));
      const error = result.errors.find((e) => e.severity === 'Error');
      if (!error) return { ok: true, parsed: { file, text, program: result.program as unknown as AstNode, lineStarts: lineStartsOf(text) } };
      firstError ||= error.message;
    } catch (error) {
      firstError ||= error instanceof Error ? error.message : String(error);
    }
  }
  return { ok: false, message: firstError };
}

function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

export function lineOf(parsed: ParsedFile, offset: number): number {
  const starts = parsed.lineStarts;
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((starts[mid] ?? 0) <= offset) low = mid;
    else high = mid - 1;
  }
  return low + 1;
}

export function locationOf(parsed: ParsedFile, node: AstNode): SourceLocation {
  const line = lineOf(parsed, node.start);
  const endLine = lineOf(parsed, node.end);
  return {
    file: parsed.file.path,
    line,
    column: node.start - (parsed.lineStarts[line - 1] ?? 0) + 1,
    endLine,
    endColumn: node.end - (parsed.lineStarts[endLine - 1] ?? 0) + 1,
  };
}

/** The first line of a node's source, trimmed to a readable length. */
export function snippetOf(parsed: ParsedFile, node: AstNode): string {
  const line = lineOf(parsed, node.start);
  const lineStart = parsed.lineStarts[line - 1] ?? 0;
  const lineEnd = parsed.lineStarts[line] ?? parsed.text.length;
  const text = parsed.text.slice(lineStart, lineEnd).trim();
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

// Type annotations, decorators and type arguments never hold runtime code: skipping them keeps the walk cheap.
const SKIPPED_KEYS = new Set(['typeAnnotation', 'decorators', 'typeArguments', 'typeParameters', 'returnType', 'superTypeArguments', 'implements']);
const CHILD_KEYS = new Map(Object.entries(visitorKeys).map(([type, keys]) => [type, keys.filter((key) => !SKIPPED_KEYS.has(key))]));

/**
 * Calls `enter` for every node below (and including) `node` in source order; returning false skips the node's children.
 * An explicit stack instead of recursion: several times faster on large bundles, and no stack overflow on deep nesting.
 */
export function walk(node: AstNode, enter: (node: AstNode) => boolean | void): void {
  const stack: AstNode[] = [node];
  while (stack.length > 0) {
    const current = stack.pop() as AstNode;
    if (enter(current) === false) continue;
    const keys = CHILD_KEYS.get(current.type);
    if (!keys) continue;
    for (let k = keys.length - 1; k >= 0; k--) {
      const child = current[keys[k] as string];
      if (child === null || child === undefined) continue;
      if (Array.isArray(child)) {
        for (let i = child.length - 1; i >= 0; i--) {
          const item = child[i];
          if (item !== null && item !== undefined) stack.push(item);
        }
      } else if (typeof child === 'object' && typeof child.type === 'string') stack.push(child);
    }
  }
}

/** A global regex matching any of `words` literally (one alternation scans the text once). */
export function wordsPattern(words: readonly string[]): RegExp {
  return new RegExp(words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
}

/** Offsets (ascending) of every match of a global `pattern` in `text`, appended to `into`. */
export function offsetsOf(text: string, pattern: RegExp, into: number[] = []): number[] {
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) into.push(match.index);
  return into;
}

/** A lookup table of the ASCII characters in `chars`, for `longRunStarts`. */
export function asciiSet(chars: string): Uint8Array {
  const set = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) set[chars.charCodeAt(i)] = 1;
  return set;
}

/**
 * Start offsets of every maximal run of at least `minLength` characters of `set`, appended to `into`: the same
 * offsets as matching `[set]{minLength,}` globally, in one linear pass (the regex retries each start position).
 */
export function longRunStarts(text: string, set: Uint8Array, minLength: number, into: number[] = []): number[] {
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 128;
    if (code < 128 && set[code] === 1) {
      if (start === -1) start = i;
    } else if (start !== -1) {
      if (i - start >= minLength) into.push(start);
      start = -1;
    }
  }
  return into;
}

/** Whether some offset of the sorted list lies in [start, end). */
export function containsOffset(offsets: readonly number[], start: number, end: number): boolean {
  let low = 0;
  let high = offsets.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((offsets[mid] as number) < start) low = mid + 1;
    else high = mid;
  }
  return low < offsets.length && (offsets[low] as number) < end;
}

/** Like `walk`, but only enters nodes whose source contains one of the sorted `offsets` (keyword hits in the text). */
export function walkWithin(node: AstNode, offsets: readonly number[], enter: (node: AstNode) => boolean | void): void {
  walk(node, (current) => (containsOffset(offsets, current.start, current.end) ? enter(current) : false));
}

/** Strips TypeScript-only wrappers that do not change the runtime value. */
export function unwrap(node: AstNode | null | undefined): AstNode | undefined {
  let current = node ?? undefined;
  while (current) {
    switch (current.type) {
      case 'TSAsExpression':
      case 'TSSatisfiesExpression':
      case 'TSNonNullExpression':
      case 'TSTypeAssertion':
      case 'ParenthesizedExpression':
      case 'ChainExpression':
        current = current.expression;
        continue;
      case 'SequenceExpression':
        // `(0, mod.fn)` is how tsc and esbuild call imported functions without a `this`.
        current = current.expressions[current.expressions.length - 1];
        continue;
      default:
        return current;
    }
  }
  return current;
}

export function isFunction(node: AstNode | undefined): boolean {
  return (
    node !== undefined &&
    (node.type === 'FunctionDeclaration' || node.type === 'FunctionExpression' || node.type === 'ArrowFunctionExpression')
  );
}

/** The property name of `obj.name`, `obj['name']` or an object key, when it is static. */
export function propertyName(node: AstNode | undefined, computed = false): string | undefined {
  if (!node) return undefined;
  if (node.type === 'Identifier' && !computed) return node.name;
  if (node.type === 'PrivateIdentifier') return node.name;
  if (node.type === 'Literal' && (typeof node.value === 'string' || typeof node.value === 'number')) return String(node.value);
  if (node.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0]?.value.cooked ?? undefined;
  return undefined;
}

export function memberName(node: AstNode): string | undefined {
  return propertyName(node.property, node.computed);
}

/** The callee as written, compacted: `child_process.exec`, `fs.promises.readFile`, `(0, zod_1.z).string` → `zod_1.z.string`. */
export function dottedName(node: AstNode | undefined, depth = 0): string | undefined {
  const current = unwrap(node);
  if (!current || depth > 8) return undefined;
  if (current.type === 'Identifier') return current.name;
  if (current.type === 'ThisExpression') return 'this';
  if (current.type === 'Super') return 'super';
  if (current.type === 'MemberExpression') {
    const object = dottedName(current.object, depth + 1) ?? (current.object.type === 'CallExpression' ? `${dottedName(current.object.callee, depth + 1) ?? '?'}()` : '?');
    const name = memberName(current) ?? '[]';
    return `${object}.${name}`;
  }
  if (current.type === 'CallExpression') {
    const callee = dottedName(current.callee, depth + 1);
    return callee === undefined ? undefined : `${callee}()`;
  }
  return undefined;
}

/** The object of an object literal property by key, when the key is static. */
export function objectProperty(object: AstNode | undefined, key: string): AstNode | undefined {
  if (object?.type !== 'ObjectExpression') return undefined;
  for (const property of object.properties) {
    if (property.type === 'Property' && propertyName(property.key, property.computed) === key) return property.value;
  }
  return undefined;
}
