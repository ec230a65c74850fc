import type { AstNode } from './ast.js';
import { dottedName, memberName, unwrap } from './ast.js';
import type { FileIndex } from './file-index.js';
import { requiredModule } from './file-index.js';

/** A call target resolved through imports/requires: `{ module: 'child_process', name: 'exec' }` or a global `{ name: 'fetch' }`. */
export interface Callee {
  module?: string;
  name: string;
  /** The callee as written, for reports. */
  display: string;
  /** For method calls on something that is not a module: the receiver expression. */
  receiver?: AstNode;
}

const MODULE_GROUPS: Record<string, string> = {
  'fs/promises': 'fs',
  'fs-extra': 'fs',
  'graceful-fs': 'fs',
  'fs-extra/esm': 'fs',
  https: 'http',
  'node-fetch': 'fetch',
  'cross-fetch': 'fetch',
  'isomorphic-fetch': 'fetch',
  'execa': 'execa',
  'cross-spawn': 'cross-spawn',
  'child_process': 'child_process',
  'shelljs': 'shelljs',
};

/** One name per family of interchangeable modules, so sink tables are keyed once: fs/promises → fs, https → http. */
export function moduleGroup(source: string): string {
  const bare = source.startsWith('node:') ? source.slice(5) : source;
  return MODULE_GROUPS[bare] ?? bare;
}

function moduleOf(node: AstNode | undefined, index: FileIndex, depth: number): { module: string; member?: string } | undefined {
  const current = unwrap(node);
  if (!current || depth > 4) return undefined;
  const required = requiredModule(current);
  if (required !== undefined) return { module: moduleGroup(required) };
  if (current.type === 'Identifier') {
    const binding = index.imports.get(current.name);
    if (!binding) return undefined;
    if (binding.imported === '*' || binding.imported === 'default') return { module: moduleGroup(binding.source) };
    return { module: moduleGroup(binding.source), member: binding.imported };
  }
  if (current.type === 'MemberExpression') {
    const inner = moduleOf(current.object, index, depth + 1);
    const name = memberName(current);
    if (!inner || !name) return undefined;
    if (inner.member === undefined) return name === 'default' ? inner : { module: inner.module, member: name };
    // `fs.promises.readFile` / `import { promises } from 'fs'`: the namespace member of a module stays in its group.
    if (inner.member === 'promises' || inner.member === 'default') return { module: inner.module, member: name };
    return undefined;
  }
  return undefined;
}

/** Resolves `promisify(exec)` / `util.promisify(cp.exec)` aliases (also renamed: `import { promisify as p }`) to the wrapped function. */
function promisified(node: AstNode | undefined, index: FileIndex): AstNode | undefined {
  const current = unwrap(node);
  if (current?.type !== 'CallExpression') return undefined;
  const callee = unwrap(current.callee);
  const name =
    callee?.type === 'Identifier' ? (index.imports.get(callee.name)?.imported ?? callee.name) : callee?.type === 'MemberExpression' ? memberName(callee) : undefined;
  return name === 'promisify' ? current.arguments[0] : undefined;
}

export function resolveCallee(node: AstNode, index: FileIndex): Callee {
  const resolved = resolve(node, index);
  // The written form is only needed when a sink or a fact is reported: build the string on demand.
  return {
    ...resolved,
    get display() {
      return dottedName(node) ?? '(expression)';
    },
  };
}

/**
 * A library function another file of the package exports under its own name: `export const run = promisify(exec)`
 * (or `exports.run = (0, util_1.promisify)(child_process_1.exec)`, or a plain alias), called as `run(…)` or
 * `shell_1.run(…)`. Undefined unless the export leads to a library's function.
 */
function exportedAlias(node: AstNode, index: FileIndex, depth: number): Omit<Callee, 'display'> | undefined {
  if (depth > 3) return undefined;
  let source: string | undefined;
  let name: string | undefined;
  if (node.type === 'Identifier') {
    const binding = index.imports.get(node.name);
    if (binding && binding.imported !== '*' && binding.imported !== 'default') ({ source, imported: name } = binding);
  } else if (node.type === 'MemberExpression') {
    const object = unwrap(node.object);
    const binding = object?.type === 'Identifier' ? index.imports.get(object.name) : undefined;
    if (binding && (binding.imported === '*' || binding.imported === 'default')) [source, name] = [binding.source, memberName(node)];
  }
  if (source === undefined || name === undefined || !source.startsWith('.')) return undefined;
  const target = index.resolveImport?.(source);
  const value = target?.exportedValues.get(name);
  if (!target || !value) return undefined;
  const wrapped = unwrap(promisified(value, target) ?? value);
  if (wrapped?.type !== 'Identifier' && wrapped?.type !== 'MemberExpression') return undefined;
  const resolved = resolve(wrapped, target, depth + 1);
  return resolved.module !== undefined && !resolved.module.startsWith('.') && !resolved.module.startsWith('global:') ? resolved : undefined;
}

function resolve(node: AstNode, index: FileIndex, depth = 0): Omit<Callee, 'display'> {
  const start = unwrap(node);
  const alias = start && (start.type === 'Identifier' || start.type === 'MemberExpression') ? exportedAlias(start, index, depth) : undefined;
  if (alias) return alias;
  let current = start;
  for (let depth = 0; depth < 3 && current?.type === 'Identifier' && !index.imports.has(current.name); depth++) {
    const wrapped = promisified(index.variables.get(current.name), index);
    if (!wrapped) break;
    current = unwrap(wrapped);
  }
  if (!current) return { name: '' };
  if (current.type === 'Identifier') {
    const binding = index.imports.get(current.name);
    if (binding) {
      const member = binding.imported === '*' ? 'default' : binding.imported;
      return { module: moduleGroup(binding.source), name: member };
    }
    return { name: current.name };
  }
  if (current.type === 'MemberExpression') {
    const name = memberName(current) ?? '';
    const owner = moduleOf(current.object, index, 0);
    // `fs.promises.readFile` (tsc's `node_fs_1.promises.readFile` for `import { promises as fs } from 'node:fs'`) is
    // `readFile` of the fs group, like `fs/promises`.
    const namespace = owner?.member === undefined || owner.member === 'promises' || owner.member === 'default';
    if (owner) return { module: owner.module, name: namespace ? name : `${owner.member}.${name}` };
    const object = unwrap(current.object);
    // Globals used as namespaces: `vm` and `child_process` are normally imported, but Buffer/JSON/Object/String are not.
    if (object?.type === 'Identifier' && !index.variables.has(object.name)) {
      return { module: `global:${object.name}`, name, receiver: object };
    }
    return { name, receiver: current.object };
  }
  return { name: '' };
}
