// Text a Python server hands to the model that is not a literal at the definition: a constant, a file of the package
// read at import time (`(Path(__file__).parent / "prompts" / "run.md").read_text()`), a member of a JSON file, or a
// download (then there is no text to judge, and the tool says its description comes from the network).
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { readTreeFileSync } from '../tree-file.js';
import { qualify, resolveConstant, type PyModule } from '../analysis/python/program.js';
import { callArguments, dottedName, stringValue, unwrap, type Literal, type Node } from '../analysis/python/syntax.js';

export interface ResolvedText {
  text?: string;
  source?: 'network';
}

/** Files larger than this are not descriptions. */
const MAX_TEXT_FILE = 256 * 1024;
const NETWORK_CALL = /^(requests|httpx|urllib3)\.(get|post|request)$|^urllib\.request\.urlopen$/;

export function resolveText(module: PyModule, node: Node | undefined, depth = 0): ResolvedText {
  if (!node || depth > 6) return {};
  const resolved = resolveConstant(module, unwrap(node));
  if (!resolved) return {};
  const literal = stringValue(resolved);
  if (literal !== undefined) return { text: literal };
  if (resolved !== node && resolved.type !== 'identifier') return resolveText(module, resolved, depth + 1);
  const json = jsonMember(module, resolved, depth);
  if (json) return json;
  if (fromNetwork(module, resolved)) return { source: 'network' };
  const file = fileRead(module, resolved);
  if (file !== undefined) {
    const text = readPackageFile(module, file);
    return text === undefined ? {} : { text };
  }
  // `.strip()`, `.format()`-free transformations of a resolved text.
  if (resolved.type === 'call') {
    const callee = resolved.childForFieldName('function');
    if (callee?.type === 'attribute' && /^(strip|rstrip|lstrip)$/.test(callee.childForFieldName('attribute')?.text ?? '')) {
      const inner = resolveText(module, callee.childForFieldName('object') ?? undefined, depth + 1);
      return inner.text !== undefined ? { text: inner.text.trim() } : inner;
    }
  }
  return {};
}

/** `requests.get(URL).text`, `httpx.get(URL).json()["description"]`, `urlopen(URL).read().decode()`. */
function fromNetwork(module: PyModule, node: Node): boolean {
  for (const call of [node, ...node.descendantsOfType('call')]) {
    if (call?.type !== 'call') continue;
    if (NETWORK_CALL.test(qualify(module, dottedName(call.childForFieldName('function')) ?? ''))) return true;
  }
  return false;
}

/** The path, relative to the module's folder, that `X.read_text()` or `open(X).read()` reads; undefined otherwise. */
function fileRead(module: PyModule, node: Node): string | undefined {
  if (node.type !== 'call') return undefined;
  const callee = node.childForFieldName('function');
  const method = callee?.type === 'attribute' ? callee.childForFieldName('attribute')?.text : undefined;
  if (method === 'read_text' || method === 'read_bytes') return packagePath(module, callee!.childForFieldName('object') ?? undefined, 0);
  if (method === 'read' || method === 'decode') {
    const object = unwrap(callee!.childForFieldName('object')!);
    if (object.type === 'call' && qualify(module, dottedName(object.childForFieldName('function')) ?? '') === 'open') {
      return packagePath(module, callArguments(object).positional[0], 0);
    }
    return fileRead(module, object);
  }
  return undefined;
}

/** `Path(__file__).parent / "prompts" / "x.md"`, `os.path.join(os.path.dirname(__file__), "x.md")` → `prompts/x.md`. */
function packagePath(module: PyModule, node: Node | undefined, depth: number): string | undefined {
  if (!node || depth > 8) return undefined;
  const current = resolveConstant(module, unwrap(node));
  if (!current) return undefined;
  if (current.type === 'binary_operator' && current.childForFieldName('operator')?.text === '/') {
    const base = packagePath(module, current.childForFieldName('left') ?? undefined, depth + 1);
    const part = stringValue(resolveConstant(module, current.childForFieldName('right') ?? undefined));
    return base !== undefined && part !== undefined ? path.posix.join(base, part) : undefined;
  }
  if (current.type === 'attribute') {
    const object = current.childForFieldName('object') ?? undefined;
    if (current.childForFieldName('attribute')?.text === 'parent') {
      const base = packagePath(module, object, depth + 1);
      return base === undefined ? undefined : path.posix.join(base, '..');
    }
    return undefined;
  }
  if (current.type !== 'call') return undefined;
  const callee = current.childForFieldName('function');
  const name = qualify(module, dottedName(callee) ?? '');
  const args = callArguments(current).positional;
  // The module file itself: its folder is `..` of it.
  if ((name === 'pathlib.Path' || name === 'os.path.abspath' || name === 'os.path.realpath') && args[0]?.text === '__file__') return '__file__';
  if (name === 'os.path.dirname') {
    const base = packagePath(module, args[0], depth + 1) ?? (args[0]?.text === '__file__' ? '__file__' : undefined);
    return base === undefined ? undefined : path.posix.join(base, '..');
  }
  if (name === 'os.path.join') {
    const [first, ...rest] = args;
    const base = packagePath(module, first, depth + 1);
    const parts = rest.map((arg) => stringValue(resolveConstant(module, arg)));
    return base !== undefined && parts.every((part) => part !== undefined) ? path.posix.join(base, ...(parts as string[])) : undefined;
  }
  const method = callee?.type === 'attribute' ? callee.childForFieldName('attribute')?.text : undefined;
  if (method === 'resolve' || method === 'absolute') return packagePath(module, callee!.childForFieldName('object') ?? undefined, depth + 1);
  if (method === 'joinpath') {
    const base = packagePath(module, callee!.childForFieldName('object') ?? undefined, depth + 1);
    const parts = args.map((arg) => stringValue(resolveConstant(module, arg)));
    return base !== undefined && parts.every((part) => part !== undefined) ? path.posix.join(base, ...(parts as string[])) : undefined;
  }
  if (method === 'with_name') {
    const base = packagePath(module, callee!.childForFieldName('object') ?? undefined, depth + 1);
    const part = stringValue(resolveConstant(module, args[0]));
    return base !== undefined && part !== undefined ? path.posix.join(base, '..', part) : undefined;
  }
  return undefined;
}

/** Reads a file of the scanned package, never outside it (a path through `..` or a link that leaves it reads nothing). */
function readPackageFile(module: PyModule, relative: string): string | undefined {
  const absModule = module.file.absPath;
  if (!absModule || !absModule.endsWith(module.path.split('/').join(path.sep))) return undefined;
  const root = absModule.slice(0, absModule.length - module.path.length);
  // Paths are relative to the module's folder (`Path(__file__).parent` joined to nothing is `.`).
  const target = path.resolve(path.dirname(absModule), relative);
  try {
    const real = realpathSync(target);
    const inside = path.relative(realpathSync(root), real);
    if (inside.startsWith('..') || path.isAbsolute(inside)) return undefined;
    return readTreeFileSync(real, MAX_TEXT_FILE).toString('utf8');
  } catch {
    return undefined;
  }
}

/** `json.loads(FILE.read_text())["run"]["description"]` and the same through a module constant. */
function jsonMember(module: PyModule, node: Node, depth: number): ResolvedText | undefined {
  const keys: string[] = [];
  let current: Node = node;
  while (current.type === 'subscript' || (current.type === 'call' && isGet(current))) {
    if (current.type === 'subscript') {
      const key = stringValue(current.childForFieldName('subscript'));
      if (key === undefined) return undefined;
      keys.unshift(key);
      current = resolveConstant(module, current.childForFieldName('value')!) ?? current;
    } else {
      const key = stringValue(callArguments(current).positional[0]);
      if (key === undefined) return undefined;
      keys.unshift(key);
      current = resolveConstant(module, current.childForFieldName('function')!.childForFieldName('object')!) ?? current;
    }
  }
  if (keys.length === 0 || current.type !== 'call') return undefined;
  const name = qualify(module, dottedName(current.childForFieldName('function')) ?? '');
  if (name !== 'json.loads' && name !== 'json.load') return undefined;
  const argument = callArguments(current).positional[0];
  if (fromNetwork(module, current)) return { source: 'network' };
  const file = name === 'json.load' && argument?.type === 'call' ? packagePath(module, callArguments(argument).positional[0], 0) : argument ? fileRead(module, resolveConstant(module, argument) ?? argument) : undefined;
  const raw = file !== undefined ? readPackageFile(module, file) : undefined;
  if (raw === undefined) return depth > 0 ? undefined : {};
  try {
    let value: Literal = JSON.parse(raw) as Literal;
    for (const key of keys) value = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value[key] ?? null) : null;
    return typeof value === 'string' ? { text: value } : {};
  } catch {
    return {};
  }
}

function isGet(node: Node): boolean {
  const callee = node.childForFieldName('function');
  return callee?.type === 'attribute' && callee.childForFieldName('attribute')?.text === 'get';
}
