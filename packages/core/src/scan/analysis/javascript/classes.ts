// Which class a value is an instance of, so a call on it (`ev.evaluate(x)`, `this.impl.run(x)`, `Helper.run(x)`)
// reaches that class's method, inherited ones included, and not every method of that name in the package. Instances
// are known from `new X()`, typed parameters (`constructor(private git: GitClient)`), class fields, constructor
// assignments, getters, and module singletons (`export const client = new Client()`). An instance of a library class
// (`new k8s.Exec(kc)`) is kept by module and name, for the catalogue's instance sinks.
import type { AstNode } from './ast.js';
import { isFunction, memberName, unwrap, walk, walkWithin } from './ast.js';
import { moduleGroup, resolveCallee } from './callee.js';
import type { ClassInfo } from './file-index.js';
import { INSTANCE_COMMAND_SINKS, LIBRARY_FACTORIES } from '../catalog.js';
import type { Target } from './resolver.js';
import type { FileContext, Scope } from './scope.js';

export type Instance = { kind: 'class'; info: ClassInfo; file: FileContext } | { kind: 'library'; module: string; name: string };

/** Where an expression is evaluated: its file, its scope (locals and typed parameters), and the class `this` is. */
export interface ClassScope {
  file: FileContext;
  scope: Scope;
  self?: Instance;
}

/** What a method name resolves to on a known class: the method, or `closed` when the whole chain is known and has none. */
export interface MethodLookup {
  target?: Target;
  closed: boolean;
}

const MAX_DEPTH = 6;
/** Modules whose class instances the catalogue has something to say about, and the methods that make instances. */
const LIBRARY_MODULES = new Set([...INSTANCE_COMMAND_SINKS.map((sink) => sink.module), ...Object.keys(LIBRARY_FACTORIES)]);
const FACTORY_METHODS = new Set(Object.values(LIBRARY_FACTORIES).flatMap((factories) => Object.keys(factories).map((key) => key.slice(key.indexOf('.') + 1))));

export class ClassModel {
  /** Per class: constructor parameter → instances passed there at `new X(…)` sites of the package. */
  private readonly argumentsSeen = new Map<ClassInfo, Map<number, Instance | undefined>>();
  /** Offsets of every `new X(` / `new ns.X(` in each file, by class name: one pass over the texts for all classes. */
  private newSites: Map<string, Map<FileContext, number[]>> | undefined;

  constructor(
    private readonly files: Map<string, FileContext>,
    private readonly classOf: (name: string, source: string, from: FileContext) => { info: ClassInfo; file: FileContext } | undefined,
    private readonly exportedValue: (name: string, source: string, from: FileContext) => { node: AstNode; file: FileContext } | undefined,
  ) {}

  private context(info: ClassInfo): FileContext | undefined {
    return this.files.get(info.index.parsed.file.path);
  }

  /** The class an expression names (`Runner`, `k8s.Exec`, an imported class): a package class or a library's. */
  classNamed(node: AstNode | undefined, file: FileContext): Instance | undefined {
    const current = unwrap(node);
    if (current?.type === 'Identifier') {
      const local = file.index.classes.get(current.name);
      if (local) return { kind: 'class', info: local, file };
      const binding = file.index.imports.get(current.name);
      if (binding?.source.startsWith('.')) {
        if (binding.imported === '*' || binding.imported === 'default') return undefined;
        const found = this.classOf(binding.imported, binding.source, file);
        return found && { kind: 'class', ...found };
      }
    }
    if (current?.type === 'MemberExpression') {
      // `git_client_1.GitClient` (tsc) and `ns.GitClient`: a class exported by a relative module.
      const object = unwrap(current.object);
      const binding = object?.type === 'Identifier' ? file.index.imports.get(object.name) : undefined;
      const name = memberName(current);
      if (binding?.source.startsWith('.') && (binding.imported === '*' || binding.imported === 'default') && name) {
        const found = this.classOf(name, binding.source, file);
        return found && { kind: 'class', ...found };
      }
    }
    if (current?.type !== 'Identifier' && current?.type !== 'MemberExpression') return undefined;
    // Library instances matter only for the catalogue's classes: skip the resolution for every other import.
    let root: AstNode | undefined = current;
    while (root?.type === 'MemberExpression') root = unwrap(root.object);
    const binding = root?.type === 'Identifier' ? file.index.imports.get(root.name) : undefined;
    if (!binding || !LIBRARY_MODULES.has(moduleGroup(binding.source))) return undefined;
    const callee = resolveCallee(current, file.index);
    if (callee.module === undefined || callee.module.startsWith('global:') || callee.module.startsWith('.')) return undefined;
    return { kind: 'library', module: callee.module, name: callee.name };
  }

  /** The instance an expression evaluates to, when it is known. */
  instanceOf(node: AstNode | undefined, where: ClassScope, depth = 0): Instance | undefined {
    const current = unwrap(node);
    if (!current || depth > MAX_DEPTH) return undefined;
    switch (current.type) {
      case 'AwaitExpression':
        return this.instanceOf(current.argument, where, depth + 1);
      case 'NewExpression':
        return this.classNamed(current.callee, where.file);
      case 'ThisExpression':
        return where.self;
      case 'LogicalExpression':
      case 'ConditionalExpression':
        // `this.impl ?? new ShellImpl()`, `opts.runner || new Runner()`
        return this.instanceOf(current.type === 'LogicalExpression' ? current.left : current.consequent, where, depth + 1) ??
          this.instanceOf(current.type === 'LogicalExpression' ? current.right : current.alternate, where, depth + 1);
      case 'Identifier': {
        const local = where.scope.findInstance(current.name);
        if (local !== undefined) return local ?? undefined;
        const index = where.file.index;
        const init = index.variables.get(current.name);
        if (init && unwrap(init) !== current) return this.instanceOf(init, { file: where.file, scope: where.file.moduleScope }, depth + 1);
        const binding = index.imports.get(current.name);
        if (binding?.source.startsWith('.') && binding.imported !== '*') {
          // `import { client } from './client.js'` with `export const client = new Client()`
          const exported = this.exportedValue(binding.imported, binding.source, where.file);
          return exported && this.instanceOf(exported.node, { file: exported.file, scope: exported.file.moduleScope }, depth + 1);
        }
        return undefined;
      }
      case 'MemberExpression': {
        const name = current.computed ? undefined : memberName(current);
        if (name === undefined) return undefined;
        const object = unwrap(current.object);
        const binding = object?.type === 'Identifier' ? where.file.index.imports.get(object.name) : undefined;
        if (binding?.source.startsWith('.') && (binding.imported === '*' || binding.imported === 'default')) {
          // tsc's `client_1.client` for an imported singleton.
          const exported = this.exportedValue(name, binding.source, where.file);
          return exported && this.instanceOf(exported.node, { file: exported.file, scope: exported.file.moduleScope }, depth + 1);
        }
        const owner = this.instanceOf(current.object, where, depth + 1);
        return owner?.kind === 'class' ? this.fieldOf(owner.info, name, depth + 1) : undefined;
      }
      case 'CallExpression': {
        // `docker.getContainer(id)`: a library method the catalogue says returns an instance of another of its classes.
        const callee = unwrap(current.callee);
        if (callee?.type !== 'MemberExpression' || !FACTORY_METHODS.has(memberName(callee) ?? '')) return undefined;
        const owner = this.instanceOf(callee.object, where, depth + 1);
        const method = memberName(callee);
        if (owner?.kind !== 'library' || method === undefined) return undefined;
        const made = LIBRARY_FACTORIES[owner.module]?.[`${owner.name}.${method}`];
        return made === undefined ? undefined : { kind: 'library', module: owner.module, name: made };
      }
      default:
        return undefined;
    }
  }

  /** A method of a class or its bases. `closed`: every base is a package class and none defines it. */
  methodOf(info: ClassInfo, name: string, kind: 'methods' | 'statics' = 'methods'): MethodLookup {
    for (let current: ClassInfo | undefined = info, depth = 0; current && depth < MAX_DEPTH; depth++) {
      const fn = current[kind].get(name) ?? (kind === 'methods' ? current.getters.get(name) : undefined);
      const file = this.context(current);
      if (fn && file) return { target: { fn, file }, closed: true };
      if (!current.superClass) return { closed: true };
      const base: Instance | undefined = file && this.classNamed(current.superClass, file);
      if (base?.kind !== 'class') return { closed: false };
      current = base.info;
    }
    return { closed: false };
  }

  /** What a field of a class holds: its initialiser, a typed constructor parameter, what `new X(…)` passes, a getter. */
  private fieldOf(info: ClassInfo, name: string, depth: number): Instance | undefined {
    for (let current: ClassInfo | undefined = info, level = 0; current && level < MAX_DEPTH; level++) {
      const file = this.context(current);
      if (!file) return undefined;
      const where: ClassScope = { file, scope: file.moduleScope, self: { kind: 'class', info: current, file } };
      const init = current.fields.get(name);
      if (init) return this.instanceOf(init, where, depth + 1);
      const position = current.paramFields.get(name);
      if (position !== undefined) {
        const type = current.paramTypes[position];
        return (type && this.classNamed(type, file)) ?? this.passedAt(current, position, depth);
      }
      const getter = current.getters.get(name);
      if (getter) {
        let found: Instance | undefined;
        walk(getter.body, (node) => {
          if (found || (isFunction(node) && node !== getter)) return false;
          if (node.type === 'ReturnStatement') found = this.instanceOf(node.argument, where, depth + 1);
          return !found;
        });
        return found;
      }
      const base: Instance | undefined = current.superClass ? this.classNamed(current.superClass, file) : undefined;
      current = base?.kind === 'class' ? base.info : undefined;
    }
    return undefined;
  }

  /**
   * The instance given for a constructor parameter at the package's `new X(…)` sites, when they agree: compiled code
   * keeps no types, so `new Service(new GitClient())` is what says what `this.git` holds.
   */
  private newSitesOf(name: string): Map<FileContext, number[]> {
    if (!this.newSites) {
      const sites = new Map<string, Map<FileContext, number[]>>();
      for (const file of this.files.values()) {
        const text = file.index.parsed.text;
        NEW_SITE.lastIndex = 0;
        for (let match = NEW_SITE.exec(text); match !== null; match = NEW_SITE.exec(text)) {
          const byFile = sites.get(match[1]!) ?? new Map<FileContext, number[]>();
          sites.set(match[1]!, byFile);
          const offsets = byFile.get(file) ?? [];
          byFile.set(file, offsets);
          offsets.push(match.index);
        }
      }
      this.newSites = sites;
    }
    return this.newSites.get(name) ?? new Map();
  }

  private passedAt(info: ClassInfo, position: number, depth: number): Instance | undefined {
    let seen = this.argumentsSeen.get(info);
    if (!seen) {
      seen = new Map();
      this.argumentsSeen.set(info, seen);
    }
    if (seen.has(position)) return seen.get(position);
    seen.set(position, undefined);
    const found: Instance[] = [];
    for (const [file, offsets] of this.newSitesOf(info.name)) {
      walkWithin(file.index.parsed.program, offsets, (node) => {
        if (node.type !== 'NewExpression') return true;
        const named = this.classNamed(node.callee, file);
        if (named?.kind !== 'class' || named.info !== info) return true;
        const instance = this.instanceOf(node.arguments[position], { file, scope: file.moduleScope }, depth + 1);
        if (instance) found.push(instance);
        return true;
      });
    }
    const first = found[0];
    const agreed = first && found.every((other) => sameInstance(other, first)) ? first : undefined;
    seen.set(position, agreed);
    return agreed;
  }
}

/** `new X(`, `new ns.X(`: the class name is the group. */
const NEW_SITE = /new\s+(?:[\w$]+\.)?([\w$]+)\s*\(/g;

function sameInstance(a: Instance, b: Instance): boolean {
  return a.kind === 'class' ? b.kind === 'class' && a.info === b.info : b.kind === 'library' && a.module === b.module && a.name === b.name;
}
