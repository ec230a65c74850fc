// Where a call goes inside the package: local and imported functions, methods of this file's classes, object-literal
// handlers, exported singletons and tool objects, and methods of the package's classes by name.
import type { AstNode } from './ast.js';
import { isFunction, memberName, objectProperty, unwrap } from './ast.js';
import type { ClassInfo, ImportBinding } from './file-index.js';
import { resolveRelativeImport } from './file-index.js';
import type { FileContext, Scope } from './scope.js';

/** A function of the package a call reaches, with the file it is written in. */
export interface Target {
  fn: AstNode;
  file: FileContext;
}

/** How many classes may define a method name before a call by that name is too ambiguous to follow. */
const MAX_IMPLEMENTATIONS = 4;
/** Method names of the built-in prototypes (strings, lists, maps, promises, URLs, dates, functions). */
const BUILTIN_METHODS = new Set(
  [String, Array, Object, Map, Set, Promise, Date, RegExp, Number, Function, URL, URLSearchParams, Error].flatMap((type) => Object.getOwnPropertyNames(type.prototype)),
);

export class CallResolver {
  /** Methods of the package's classes by name (built on first use), for calls whose receiver's class is unknown. */
  private methodOwners?: Map<string, Target[]>;

  constructor(private readonly files: Map<string, FileContext>) {}

  /** The function a call goes to, when it is in this package: local, same file, a class method, or a relative import. */
  resolve(calleeNode: AstNode, scope: Scope, file: FileContext): Target | undefined {
    const callee = unwrap(calleeNode);
    const index = file.index;
    if (callee?.type === 'Identifier') {
      const local = scope.findFunction(callee.name) ?? index.functions.get(callee.name);
      if (local) return { fn: local, file };
      const binding = index.imports.get(callee.name);
      if (binding && binding.imported !== '*') return this.importedFunction(binding.source, binding.imported, file);
      return undefined;
    }
    if (callee?.type === 'MemberExpression') {
      const object = unwrap(callee.object);
      const name = memberName(callee);
      if (!name) return undefined;
      if (object?.type === 'ThisExpression') {
        const method = index.methods.get(name);
        if (method) return { fn: method, file };
      }
      if (object?.type === 'Identifier') {
        const binding = index.imports.get(object.name);
        // `import * as utils from './utils.js'` and tsc's `utils_js_1.helper`
        if (binding && (binding.imported === '*' || binding.imported === 'default')) return this.importedFunction(binding.source, name, file);
        // `import { manager } from './manager.js'` with `export const manager = new Manager()`: a method of the singleton.
        if (binding) return this.importedSingletonMethod(binding, name, file);
        // `const TOOL = { name, handler: run }` … `TOOL.handler(args)`
        const literal = unwrap(index.variables.get(object.name));
        if (literal?.type === 'ObjectExpression') {
          const value = unwrap(objectProperty(literal, name));
          const fn = isFunction(value) ? value : value?.type === 'Identifier' ? index.functions.get(value.name) : undefined;
          if (fn) return { fn, file };
        }
      }
      // `service.fetchFile(key)`, `this.client.run(cmd)`, `new Helper().run(x)`: a method of the package's own classes,
      // when only one of them has a method of that name.
      return this.uniqueMethod(name);
    }
    return undefined;
  }

  /**
   * The method of that name when exactly one class of the package defines one. Names of the language's own methods
   * (`toString`, `map`, `then`, `get`) are left alone: the receiver is at least as likely a string, list or promise.
   */
  private uniqueMethod(name: string): Target | undefined {
    const owners = this.implementations(name);
    return owners.length === 1 ? owners[0] : undefined;
  }

  /**
   * The package's methods of that name, when a few classes define it (implementations of one interface: a database
   * adapter per engine): a call on an unknown receiver may reach any of them. More than a few is a common name.
   */
  implementations(name: string): Target[] {
    if (BUILTIN_METHODS.has(name)) return [];
    if (!this.methodOwners) {
      this.methodOwners = new Map();
      const add = (method: string, fn: AstNode, file: FileContext): void => {
        const owners = this.methodOwners?.get(method) ?? [];
        if (!owners.some((owner) => owner.fn === fn)) owners.push({ fn, file });
        this.methodOwners?.set(method, owners);
      };
      for (const owner of this.files.values()) {
        // Every class's own methods (two classes of one file each count), then methods of unnamed classes.
        for (const info of owner.index.classes.values()) for (const [method, fn] of info.methods) add(method, fn, owner);
        for (const [method, fn] of owner.index.methods) add(method, fn, owner);
      }
    }
    const owners = this.methodOwners.get(name) ?? [];
    return owners.length <= MAX_IMPLEMENTATIONS ? owners : [];
  }

  /** A class a relative module exports under `name` (through barrels too). */
  exportedClass(name: string, source: string, from: FileContext): { info: ClassInfo; file: FileContext } | undefined {
    const found = this.exportedFrom(from, source, name, 0);
    return found?.cls ? { info: found.cls, file: found.file } : undefined;
  }

  /** The expression a relative module exports under `name` (`export const client = new Client()`). */
  exportedValue(name: string, source: string, from: FileContext): { node: AstNode; file: FileContext } | undefined {
    const found = this.exportedFrom(from, source, name, 0);
    return found?.value ? { node: found.value, file: found.file } : undefined;
  }

  private importedFunction(source: string, name: string, file: FileContext): Target | undefined {
    const found = this.exportedFrom(file, source, name, 0);
    return found?.fn ? { fn: found.fn, file: found.file } : undefined;
  }

  private importedSingletonMethod(binding: ImportBinding, method: string, file: FileContext): Target | undefined {
    const found = this.exportedFrom(file, binding.source, binding.imported, 0);
    if (found?.value?.type === 'ObjectExpression') {
      // `export const tool = { name, async handler(input) {…} }` … `tool.handler(input)`
      const value = unwrap(objectProperty(found.value, method));
      const fn = isFunction(value) ? value : value?.type === 'Identifier' ? found.file.index.functions.get(value.name) : undefined;
      return fn ? { fn, file: found.file } : undefined;
    }
    if (found?.value?.type !== 'NewExpression') return undefined;
    const fn = found.file.index.methods.get(method);
    return fn ? { fn, file: found.file } : undefined;
  }

  /**
   * What module `source` (relative to `from`) exports under `name`: a function, or the expression of an exported value.
   * Barrel files (`export * from`, `export { x } from`) are followed a few levels deep.
   */
  private exportedFrom(
    from: FileContext,
    source: string,
    name: string,
    depth: number,
  ): { fn?: AstNode; value?: AstNode; cls?: ClassInfo; file: FileContext } | undefined {
    if (!source.startsWith('.') || depth > 4) return undefined;
    const target = this.resolveImport(from.index.parsed.file.path, source);
    if (!target) return undefined;
    const { index } = target;
    const fn = index.exports.get(name) ?? index.functions.get(name);
    if (fn) return { fn, file: target };
    const cls = index.classes.get(name);
    if (cls) return { cls, file: target };
    const value = index.exportedValues.get(name);
    if (value) return { value: unwrap(value), file: target };
    const named = index.reExports.get(name);
    if (named) return this.exportedFrom(target, named.source, named.imported, depth + 1);
    for (const star of index.starExports) {
      const found = this.exportedFrom(target, star, name, depth + 1);
      if (found) return found;
    }
    return undefined;
  }

  private resolveImport(fromPath: string, source: string): FileContext | undefined {
    const path = resolveRelativeImport(fromPath, source, (candidate) => this.files.has(candidate));
    return path === undefined ? undefined : this.files.get(path);
  }
}
