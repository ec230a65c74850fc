// Per-file indexes (imports, functions, module constants) built in one pass over each tree, and the lookups across
// files of one package that extraction and dataflow share.
import type { Tree } from 'web-tree-sitter';
import type { SourceFile, ToolDefinition, ToolParameter } from '../../model.js';
import { dottedName, type Node } from './syntax.js';

/** What a local name is bound to by an import: `import a.b as c` → {module: 'a.b'}; `from .x import y` → {module: 'x', level: 1, name: 'y'}. */
export interface ImportBinding {
  module: string;
  level: number;
  name?: string;
}

export interface PyModule {
  file: SourceFile;
  path: string;
  tree: Tree;
  root: Node;
  imports: Map<string, ImportBinding>;
  /** Top-level functions by name. */
  functions: Map<string, Node>;
  /** Methods of the file's classes by method name (for `self.helper(...)`; the last one wins on clashes). */
  methods: Map<string, Node>;
  /** Module-level `NAME = value` assignments; the last one wins. */
  constants: Map<string, Node>;
  /** Every decorated function definition, nested ones included (low-level servers often register handlers inside `serve()`). */
  decorated: Node[];
  /** Class definitions by name, and their simple attributes (`GitTools.STATUS = "git_status"`) by `Class.NAME`. */
  classes: Map<string, Node>;
  classConstants: Map<string, Node>;
}

export function indexModule(file: SourceFile, tree: Tree): PyModule {
  const root = tree.rootNode;
  const module: PyModule = {
    file,
    path: file.path,
    tree,
    root,
    imports: new Map(),
    functions: new Map(),
    methods: new Map(),
    constants: new Map(),
    decorated: [],
    classes: new Map(),
    classConstants: new Map(),
  };
  collectStatements(module, root);
  indexBlock(module, root, false);
  return module;
}

/** Statement types that hold nested statements; expressions never hold imports or decorated definitions. */
const COMPOUND = new Set([
  'function_definition', 'class_definition', 'decorated_definition', 'if_statement', 'elif_clause', 'else_clause',
  'for_statement', 'while_statement', 'try_statement', 'except_clause', 'except_group_clause', 'finally_clause',
  'with_statement', 'match_statement', 'case_clause', 'block',
]);

/** Imports and decorated functions at any depth. A cursor over statements only: no Node objects for everything else. */
function collectStatements(module: PyModule, root: Node): void {
  const cursor = root.walk();
  const visit = (): void => {
    if (!cursor.gotoFirstChild()) return;
    do {
      const type = cursor.nodeType;
      if (type === 'import_statement' || type === 'import_from_statement') {
        indexImport(module, cursor.currentNode);
      } else if (type === 'decorated_definition') {
        const node = cursor.currentNode;
        if (node.childForFieldName('definition')?.type === 'function_definition') module.decorated.push(node);
        visit();
      } else if (COMPOUND.has(type) || type === 'ERROR') {
        visit();
      }
    } while (cursor.gotoNextSibling());
    cursor.gotoParent();
  };
  try {
    visit();
  } finally {
    cursor.delete();
  }
}

function indexImport(module: PyModule, node: Node): void {
  if (node.type === 'import_statement') {
    for (const item of node.namedChildren) {
      if (!item) continue;
      if (item.type === 'dotted_name') {
        // `import a.b` binds `a`, and `a.b.f` is then written in full.
        const first = item.text.split('.')[0]!;
        module.imports.set(first, { module: first, level: 0 });
      } else if (item.type === 'aliased_import') {
        const name = item.childForFieldName('name')?.text;
        const alias = item.childForFieldName('alias')?.text;
        if (name && alias) module.imports.set(alias, { module: name, level: 0 });
      }
    }
    return;
  }
  const source = node.childForFieldName('module_name');
  if (!source) return;
  let level = 0;
  let moduleName = source.text;
  if (source.type === 'relative_import') {
    const dots = source.namedChildren.find((child) => child?.type === 'import_prefix')?.text ?? '';
    level = dots.length;
    moduleName = source.namedChildren.find((child) => child?.type === 'dotted_name')?.text ?? '';
  }
  for (const item of node.childrenForFieldName('name')) {
    if (!item) continue;
    if (item.type === 'dotted_name') {
      module.imports.set(item.text, { module: moduleName, level, name: item.text });
    } else if (item.type === 'aliased_import') {
      const name = item.childForFieldName('name')?.text;
      const alias = item.childForFieldName('alias')?.text;
      if (name && alias) module.imports.set(alias, { module: moduleName, level, name });
    }
  }
}

/** Module-level statements, looking through `if`/`try`/`with` blocks (conditional imports and definitions). */
function indexBlock(module: PyModule, block: Node, inClass: boolean): void {
  for (const statement of block.namedChildren) {
    if (!statement) continue;
    switch (statement.type) {
      case 'function_definition':
        indexFunction(module, statement, inClass);
        break;
      case 'decorated_definition': {
        const definition = statement.childForFieldName('definition');
        if (definition?.type === 'function_definition') {
          indexFunction(module, definition, inClass);
        } else if (definition?.type === 'class_definition') {
          indexClass(module, definition);
        }
        break;
      }
      case 'class_definition':
        indexClass(module, statement);
        break;
      case 'expression_statement': {
        const assignment = statement.namedChildren[0];
        if (!inClass && assignment?.type === 'assignment') {
          const left = assignment.childForFieldName('left');
          const right = assignment.childForFieldName('right');
          if (left?.type === 'identifier' && right) module.constants.set(left.text, right);
        }
        break;
      }
      case 'if_statement':
      case 'try_statement':
      case 'with_statement':
      case 'else_clause':
      case 'elif_clause':
      case 'except_clause':
      case 'finally_clause':
      case 'block':
        if (!inClass) {
          for (const child of statement.namedChildren) {
            if (child && (child.type === 'block' || child.type.endsWith('_clause'))) indexBlock(module, child, false);
          }
        }
        break;
    }
  }
}

function indexFunction(module: PyModule, definition: Node, inClass: boolean): void {
  const name = definition.childForFieldName('name')?.text;
  if (!name) return;
  (inClass ? module.methods : module.functions).set(name, definition);
}

function indexClass(module: PyModule, definition: Node): void {
  const name = definition.childForFieldName('name')?.text;
  const body = definition.childForFieldName('body');
  if (!name || !body) return;
  module.classes.set(name, definition);
  for (const statement of body.namedChildren) {
    const assignment = statement?.type === 'expression_statement' ? statement.namedChildren[0] : undefined;
    const left = assignment?.type === 'assignment' ? assignment.childForFieldName('left') : undefined;
    const right = assignment?.childForFieldName('right');
    if (left?.type === 'identifier' && right) module.classConstants.set(`${name}.${left.text}`, right);
  }
  indexBlock(module, body, true);
}

/** All files of one package, addressable by module path for import resolution. */
export class PyProgram {
  readonly modules: PyModule[] = [];
  private readonly byPath = new Map<string, PyModule>();
  private readonly resolved = new Map<string, PyModule | undefined>();

  add(module: PyModule): void {
    this.modules.push(module);
    this.byPath.set(module.path, module);
  }

  /** The file an import refers to, if it is part of the package: relative imports from the importer's folder, absolute ones by path suffix. */
  resolveModule(from: PyModule, moduleName: string, level: number): PyModule | undefined {
    const folder = from.path.slice(0, from.path.lastIndexOf('/') + 1);
    const key = `${level}:${level > 0 ? folder : ''}:${moduleName}`;
    if (this.resolved.has(key)) return this.resolved.get(key);
    const module = this.lookupModule(from, moduleName, level);
    this.resolved.set(key, module);
    return module;
  }

  private lookupModule(from: PyModule, moduleName: string, level: number): PyModule | undefined {
    const relative = moduleName.replace(/\./g, '/');
    if (level > 0) {
      const folders = from.path.split('/').slice(0, -1);
      const base = folders.slice(0, Math.max(0, folders.length - (level - 1)));
      const stem = [...base, ...(relative ? [relative] : [])].join('/');
      return this.byPath.get(`${stem}.py`) ?? this.byPath.get(stem ? `${stem}/__init__.py` : '__init__.py');
    }
    if (!relative) return undefined;
    for (const candidate of [`${relative}.py`, `${relative}/__init__.py`]) {
      const exact = this.byPath.get(candidate);
      if (exact) return exact;
      for (const module of this.modules) {
        if (module.path.endsWith(`/${candidate}`)) return module;
      }
    }
    return undefined;
  }

  /** Resolves a called name to a function defined in the package: same file, `from .x import f`, `mod.f`, `self.f`. */
  resolveFunction(module: PyModule, callee: Node): { module: PyModule; definition: Node } | undefined {
    const name = dottedName(callee);
    if (!name) return undefined;
    const parts = name.split('.');
    if (parts.length === 1) {
      const local = module.functions.get(name);
      if (local) return { module, definition: local };
      const binding = module.imports.get(name);
      if (binding?.name) {
        const target = this.resolveModule(module, binding.module, binding.level);
        const definition = target?.functions.get(binding.name);
        if (target && definition) return { module: target, definition };
      }
      return undefined;
    }
    if (parts.length === 2) {
      const [head, tail] = parts as [string, string];
      if (head === 'self' || head === 'cls') {
        const method = module.methods.get(tail);
        return method ? { module, definition: method } : undefined;
      }
      const binding = module.imports.get(head);
      if (!binding) return undefined;
      // `from . import utils` names a submodule; `import pkg.utils as utils` names the module itself.
      const target = binding.name
        ? this.resolveModule(module, binding.module ? `${binding.module}.${binding.name}` : binding.name, binding.level)
        : this.resolveModule(module, binding.module, binding.level);
      const definition = target?.functions.get(tail);
      if (target && definition) return { module: target, definition };
    }
    return undefined;
  }
}

/** The name as its module knows it: `sp.run` → `subprocess.run` after `import subprocess as sp`; `run` → `subprocess.run` after `from subprocess import run`. */
export function qualify(module: PyModule, name: string): string {
  const dot = name.indexOf('.');
  const head = dot === -1 ? name : name.slice(0, dot);
  const rest = dot === -1 ? '' : name.slice(dot);
  const binding = module.imports.get(head);
  if (!binding) return name;
  const base = binding.name ? (binding.module ? `${binding.module}.${binding.name}` : binding.name) : binding.module;
  return `${'.'.repeat(binding.level)}${base}${rest}`;
}

/** A tool's code, for the dataflow: a decorated function whose parameters are the inputs, or one branch of a low-level `call_tool` dispatcher. */
export interface PyHandler {
  kind: 'function' | 'dispatch';
  tool: string;
  module: PyModule;
  definition: Node;
  parameters: ToolParameter[];
  /**
   * For a dispatcher: the expression that holds the requested tool's name (default: its first parameter) and what its
   * parameters are: `(name, arguments)` of SDK v1, or whole tools/call requests (`(ctx, params)` of SDK v2, a JSON-RPC
   * message) whose `arguments` member holds the inputs.
   */
  nameExpression?: string;
  inputs?: 'name-and-arguments' | 'request';
  /** For a JSON-RPC dispatcher: the locals that hold a message it parses itself (`msg = json.loads(line)`), a request too. */
  messages?: string[];
}

export interface PyExtraction {
  tools: ToolDefinition[];
  handlers: PyHandler[];
}

export function handlerId(module: PyModule, definition: Node, tool: string): string {
  return `${module.path}#${definition.startIndex}:${tool}`;
}

/** A constant's value expression when `node` names one (`instructions=INSTRUCTIONS`, `name=Tools.STATUS`), else the node itself. */
export function resolveConstant(module: PyModule, node: Node | undefined): Node | undefined {
  if (node?.type === 'identifier') return module.constants.get(node.text) ?? node;
  if (node?.type === 'attribute') {
    const name = dottedName(node);
    return (name ? classConstant(module, name) : undefined) ?? node;
  }
  return node;
}

/** `Tools.STATUS` (or an Enum's `Tools.STATUS.value`) → the value assigned in the class body. */
export function classConstant(module: PyModule, dotted: string): Node | undefined {
  return module.classConstants.get(dotted) ?? module.classConstants.get(dotted.replace(/\.value$/, ''));
}

/** Whether the file binds `name` to a call of `constructor` anywhere, also inside functions (`server = Server("x")` in `serve()`). */
export function bindsInstance(module: PyModule, name: string, constructor: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\w.])${escaped}\\s*(:[^=\\n]*)?=\\s*([\\w.]+\\.)?${constructor}\\(`, 'm').test(module.file.text ?? '');
}
