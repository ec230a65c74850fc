// Classes of the package, for calls through objects: which class a value is an instance of (`ev = Evaluator()`,
// `self._impl = ShellImpl()` in `__init__`, a dataclass field, a module-level instance imported from another file)
// and which method a call reaches (own methods first, then the bases', as Python's MRO would for single inheritance).
import { qualify, type PyModule, type PyProgram } from './program.js';
import { callArguments, dottedName, parameterName, type Node } from './syntax.js';

export interface PyClass {
  module: PyModule;
  name: string;
  node: Node;
}

/** The type string the dataflow keeps for an instance of a package class (types of library objects are dotted names). */
const CLASS_TYPE = /^class (.*)#(\w+)$/;

export function classType(cls: PyClass): string {
  return `class ${cls.module.path}#${cls.name}`;
}

export function classOfType(program: PyProgram, type: string | undefined): PyClass | undefined {
  const match = type ? CLASS_TYPE.exec(type) : null;
  if (!match) return undefined;
  const module = program.modules.find((candidate) => candidate.path === match[1]);
  const node = module?.classes.get(match[2]!);
  return module && node ? { module, name: match[2]!, node } : undefined;
}

/** A class named in `module` by `node`: `Evaluator`, `from .impl import ShellImpl`, `impl.ShellImpl`. */
export function resolveClass(program: PyProgram, module: PyModule, node: Node | null | undefined): PyClass | undefined {
  const name = node ? dottedName(node) : undefined;
  if (!name) return undefined;
  const parts = name.split('.');
  if (parts.length === 1) {
    const local = module.classes.get(name);
    if (local) return { module, name, node: local };
    const binding = module.imports.get(name);
    if (!binding?.name) return undefined;
    const target = program.resolveModule(module, binding.module, binding.level);
    const imported = target?.classes.get(binding.name);
    return target && imported ? { module: target, name: binding.name, node: imported } : undefined;
  }
  if (parts.length === 2) {
    const binding = module.imports.get(parts[0]!);
    if (!binding) return undefined;
    const target = binding.name
      ? program.resolveModule(module, binding.module ? `${binding.module}.${binding.name}` : binding.name, binding.level)
      : program.resolveModule(module, binding.module, binding.level);
    const found = target?.classes.get(parts[1]!);
    return target && found ? { module: target, name: parts[1]!, node: found } : undefined;
  }
  return undefined;
}

/** The class whose body holds `definition` directly (a method), if any. */
export function enclosingClass(module: PyModule, definition: Node): PyClass | undefined {
  let parent = definition.parent;
  if (parent?.type === 'decorated_definition') parent = parent.parent;
  const owner = parent?.type === 'block' ? parent.parent : undefined;
  const name = owner?.type === 'class_definition' ? owner.childForFieldName('name')?.text : undefined;
  return owner && name ? { module, name, node: owner } : undefined;
}

function bodyStatements(cls: PyClass): Node[] {
  return (cls.node.childForFieldName('body')?.namedChildren ?? []).filter((child): child is Node => child !== null);
}

function definitionOf(statement: Node): Node | undefined {
  const definition = statement.type === 'decorated_definition' ? statement.childForFieldName('definition') : statement;
  return definition?.type === 'function_definition' ? definition : undefined;
}

function parameterAnnotation(definition: Node, name: string): Node | undefined {
  for (const parameter of definition.childForFieldName('parameters')?.namedChildren ?? []) {
    if (parameter && (parameter.type === 'typed_parameter' || parameter.type === 'typed_default_parameter') && parameterName(parameter) === name) {
      return parameter.childForFieldName('type') ?? undefined;
    }
  }
  return undefined;
}

function bases(program: PyProgram, cls: PyClass): PyClass[] {
  const list = cls.node.childForFieldName('superclasses');
  return (list?.namedChildren ?? [])
    .map((base) => (base && base.type !== 'keyword_argument' ? resolveClass(program, cls.module, base) : undefined))
    .filter((base): base is PyClass => base !== undefined);
}

/** A method of the class or, failing that, of its bases (depth-first, left to right). */
export function findMethod(program: PyProgram, cls: PyClass, name: string, depth = 0): { module: PyModule; definition: Node } | undefined {
  if (depth > 6) return undefined;
  for (const statement of bodyStatements(cls)) {
    const definition = definitionOf(statement);
    if (definition?.childForFieldName('name')?.text === name) return { module: cls.module, definition };
  }
  for (const base of bases(program, cls)) {
    const found = findMethod(program, base, name, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * What `self.<name>` holds: a class-body field (`shell: ShellImpl` in a dataclass, `impl = ShellImpl()`), or a
 * `self.<name> = …` assignment in any method (usually `__init__`), also in the bases. Returns the expression or
 * annotation that says it, and the module it is written in.
 */
export function attributeSource(program: PyProgram, cls: PyClass, name: string, depth = 0): { module: PyModule; value?: Node; annotation?: Node } | undefined {
  if (depth > 6) return undefined;
  for (const statement of bodyStatements(cls)) {
    const assignment = statement.type === 'expression_statement' ? statement.namedChildren[0] : undefined;
    if (assignment?.type !== 'assignment' || assignment.childForFieldName('left')?.text !== name) continue;
    const annotation = assignment.childForFieldName('type') ?? undefined;
    const value = assignment.childForFieldName('right') ?? undefined;
    return { module: cls.module, ...(value && { value }), ...(annotation && { annotation }) };
  }
  for (const statement of bodyStatements(cls)) {
    const definition = definitionOf(statement);
    for (const assignment of definition?.descendantsOfType('assignment') ?? []) {
      const left = assignment?.childForFieldName('left');
      if (left?.type !== 'attribute' || left.text !== `self.${name}`) continue;
      const value = assignment!.childForFieldName('right') ?? undefined;
      // `self.shell = shell` with `shell: ShellImpl` a parameter of the method: the parameter's annotation says it.
      const parameter = value?.type === 'identifier' ? parameterAnnotation(definition!, value.text) : undefined;
      const annotation = assignment!.childForFieldName('type') ?? parameter;
      return { module: cls.module, ...(value && { value }), ...(annotation && { annotation }) };
    }
  }
  for (const base of bases(program, cls)) {
    const found = attributeSource(program, base, name, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * The package class of the instance an expression builds or names, without a scope: `Cls(...)`, a dataclass
 * `field(default_factory=Cls)`, an annotation `Cls` / `Optional[Cls]`, a module constant, or an instance imported
 * from another module (`from .services import runner`).
 */
export function instanceClass(program: PyProgram, module: PyModule, node: Node | undefined, depth = 0): PyClass | undefined {
  if (!node || depth > 6) return undefined;
  switch (node.type) {
    case 'call': {
      const callee = node.childForFieldName('function');
      const constructed = resolveClass(program, module, callee);
      if (constructed) return constructed;
      const name = qualify(module, dottedName(callee) ?? '');
      if (name === 'dataclasses.field' || name === 'field' || name === 'pydantic.Field' || name === 'Field') {
        return resolveClass(program, module, callArguments(node).keywords.get('default_factory'));
      }
      return undefined;
    }
    case 'await':
    case 'parenthesized_expression':
    case 'type':
      return instanceClass(program, module, node.namedChildren[0] ?? undefined, depth + 1);
    case 'generic_type':
    case 'subscript': {
      // Optional[Cls], ClassVar[Cls]: the one class argument.
      const inner = node.descendantsOfType('identifier').filter((item) => item !== null && item !== node.namedChildren[0]);
      for (const item of inner) {
        const found = resolveClass(program, module, item);
        if (found) return found;
      }
      return undefined;
    }
    case 'identifier': {
      const constant = module.constants.get(node.text);
      if (constant) return instanceClass(program, module, constant, depth + 1);
      const binding = module.imports.get(node.text);
      if (binding?.name) {
        const target = program.resolveModule(module, binding.module, binding.level);
        const value = target?.constants.get(binding.name);
        if (target && value) return instanceClass(program, target, value, depth + 1);
      }
      // A bare class name as an annotation.
      return resolveClass(program, module, node);
    }
    default:
      return undefined;
  }
}

/** Answers per program: attribute and method lookups repeat for every `self.x.y()` call of a class. */
const lookups = new WeakMap<PyProgram, Map<string, unknown>>();

function cached<T>(program: PyProgram, key: string, compute: () => T): T {
  let cache = lookups.get(program);
  if (!cache) lookups.set(program, (cache = new Map()));
  if (cache.has(key)) return cache.get(key) as T;
  const value = compute();
  cache.set(key, value);
  return value;
}

/** The class of `self.<name>` within `cls`, following its field or its assignment in a method. */
export function attributeClass(program: PyProgram, cls: PyClass, name: string): PyClass | undefined {
  return cached(program, `attribute ${classType(cls)}.${name}`, () => {
    const source = attributeSource(program, cls, name);
    if (!source) return undefined;
    return instanceClass(program, source.module, source.value) ?? instanceClass(program, source.module, source.annotation);
  });
}

/** `findMethod`, remembered per program. */
export function methodOfClass(program: PyProgram, cls: PyClass, name: string): { module: PyModule; definition: Node } | undefined {
  return cached(program, `method ${classType(cls)}.${name}`, () => findMethod(program, cls, name));
}
