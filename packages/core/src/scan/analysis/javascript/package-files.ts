// Text a package reads from its own files at start-up, resolved statically (never by running it): tool descriptions
// kept in `descriptions.json` (`require`, `import … with { type: 'json' }`) or in Markdown files read with
// `readFileSync(path.join(__dirname, '../docs/x.md'), 'utf8')`, `await readFile(new URL('./x.md', import.meta.url))`.
import type { AstNode } from './ast.js';
import { dottedName, memberName, unwrap } from './ast.js';

/** What the static evaluator needs from a file: its path and a reader over the package's text files. */
export interface PackageFileContext {
  path: string;
  /** Text of a file of the package by its path from the package root; undefined when absent or not text. */
  readText?: (path: string) => string | undefined;
}

const READERS = new Set(['readFileSync', 'readFile']);
const JOINERS = new Set(['join', 'resolve']);

function directoryOf(path: string): string {
  return path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
}

/** Joins path parts the way `path.join` does; undefined when the result leaves the package. */
function joinPaths(parts: string[]): string | undefined {
  const normalised: string[] = [];
  for (const part of parts.join('/').split('/')) {
    if (part === '.' || part === '') continue;
    if (part === '..') {
      if (normalised.length === 0) return undefined;
      normalised.pop();
    } else normalised.push(part);
  }
  return normalised.join('/');
}

/** `import.meta.<property>` (a MetaProperty object, which `dottedName` does not spell). */
function isImportMeta(node: AstNode | undefined, property: string): boolean {
  const current = unwrap(node);
  return current?.type === 'MemberExpression' && unwrap(current.object)?.type === 'MetaProperty' && memberName(current) === property;
}

/** `__dirname`, `import.meta.dirname`, `dirname(fileURLToPath(import.meta.url))`: the file's own folder. */
function isOwnDirectory(node: AstNode | undefined): boolean {
  const current = unwrap(node);
  if (current?.type === 'Identifier') return current.name === '__dirname';
  if (isImportMeta(current, 'dirname')) return true;
  if (current?.type === 'CallExpression' && /(^|\.)dirname$/.test(dottedName(current.callee) ?? '')) return isOwnFileUrl(current.arguments[0]);
  return false;
}

function isOwnFileUrl(node: AstNode | undefined): boolean {
  const current = unwrap(node);
  if (isImportMeta(current, 'url') || isImportMeta(current, 'filename')) return true;
  if (current?.type === 'Identifier') return current.name === '__filename';
  return current?.type === 'CallExpression' && /fileURLToPath$/.test(dottedName(current.callee) ?? '') && isOwnFileUrl(current.arguments[0]);
}

/**
 * The package path an expression names, or undefined: `path.join(__dirname, '..', 'docs', 'x.md')`,
 * `` `${__dirname}/x.md` ``, `new URL('./x.md', import.meta.url)`, a relative literal (against the file's folder).
 */
export function staticPath(node: AstNode | undefined, file: PackageFileContext, text: (node: AstNode) => string | undefined): string | undefined {
  const current = unwrap(node);
  if (!current) return undefined;
  const here = directoryOf(file.path);
  if (isOwnDirectory(current)) return here;
  if (current.type === 'CallExpression') {
    const callee = unwrap(current.callee);
    const name = callee?.type === 'Identifier' ? callee.name : callee?.type === 'MemberExpression' ? memberName(callee) : undefined;
    if (name === 'fileURLToPath') return staticPath(current.arguments[0], file, text);
    if (name && JOINERS.has(name) && current.arguments.length > 0) {
      const parts: string[] = [];
      for (const [position, arg] of (current.arguments as AstNode[]).entries()) {
        const part = position === 0 ? staticPath(arg, file, text) : text(arg);
        if (part === undefined) return undefined;
        parts.push(part);
      }
      return joinPaths(parts);
    }
    return undefined;
  }
  if (current.type === 'NewExpression' && dottedName(current.callee) === 'URL' && isOwnFileUrl(current.arguments[1])) {
    const relative = text(current.arguments[0]);
    return relative === undefined ? undefined : joinPaths([here, relative]);
  }
  if (current.type === 'TemplateLiteral' && isOwnDirectory(current.expressions[0]) && current.quasis[0]?.value.cooked === '') {
    const rest = current.quasis.slice(1).map((quasi: AstNode) => quasi.value.cooked ?? '').join('');
    return current.expressions.length === 1 ? joinPaths([here, rest]) : undefined;
  }
  const literal = text(current);
  if (literal === undefined) return undefined;
  return literal.startsWith('/') ? undefined : joinPaths([here, literal]);
}

/** The text of `readFileSync(path, 'utf8')` / `readFile(path, { encoding: 'utf8' })` when the path is static. */
export function readCallText(call: AstNode, file: PackageFileContext, text: (node: AstNode) => string | undefined): string | undefined {
  const callee = unwrap(call.callee);
  const name = callee?.type === 'Identifier' ? callee.name : callee?.type === 'MemberExpression' ? memberName(callee) : undefined;
  if (!name || !READERS.has(name) || !file.readText) return undefined;
  const path = staticPath(call.arguments[0], file, text);
  return path === undefined ? undefined : file.readText(path);
}

/** Whether a call reads a file (so its result is the file's text, not something the evaluator knows). */
export function isFileRead(call: AstNode): boolean {
  const callee = unwrap(call.callee);
  const name = callee?.type === 'Identifier' ? callee.name : callee?.type === 'MemberExpression' ? memberName(callee) : undefined;
  return name !== undefined && READERS.has(name);
}

/** A JSON module of the package (`require('./descriptions.json')`, `import texts from './texts.json'`), parsed. */
export function jsonModule(source: string, file: PackageFileContext): unknown {
  if (!source.startsWith('.') || !source.endsWith('.json') || !file.readText) return undefined;
  const path = joinPaths([directoryOf(file.path), source]);
  const text = path === undefined ? undefined : file.readText(path);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
