import type { AstNode, ParsedFile } from './ast.js';
import { dottedName, isFunction, memberName, objectProperty, propertyName, unwrap } from './ast.js';
import type { PackageFileContext } from './package-files.js';
import { isFileRead, jsonModule, readCallText } from './package-files.js';

/** What a local name is bound to by an import or a `require`. `imported` is '*' for namespaces, 'default' for defaults. */
export interface ImportBinding {
  source: string;
  imported: string;
}

/**
 * One pass over a file's top level (and class bodies) that records what later passes look up by name: functions,
 * module-level variables, imports/requires and exports. Built once per file and shared by extraction and dataflow.
 */
export interface FileIndex {
  parsed: ParsedFile;
  /** Functions by name: declarations, `const f = () => …`, class methods (by method name). */
  functions: Map<string, AstNode>;
  methods: Map<string, AstNode>;
  /** Class fields by name (`baseUrl = 'https://…'`, `this.baseUrl = …` in a constructor), first one wins. */
  fields: Map<string, AstNode>;
  /** Initialisers of variables declared anywhere in the file (first declaration wins), for constant resolution. */
  variables: Map<string, AstNode>;
  imports: Map<string, ImportBinding>;
  /** Exported name → local function node. */
  exports: Map<string, AstNode>;
  /** Exported name → the expression it is bound to (constants, tool objects, schemas shared between files). */
  exportedValues: Map<string, AstNode>;
  /** `export { a as b } from './x.js'`: exported name → where it really lives. */
  reExports: Map<string, ImportBinding>;
  /** `export * from './x.js'`: modules whose exports this file passes on (barrel files). */
  starExports: string[];
  /** Classes declared in the file by name (`class X {}`, `const X = class {}`, tsc's `let X = class X {}`). */
  classes: Map<string, ClassInfo>;
  /** Set by the analyzer once every file is indexed: the index of a relative import, for constants defined elsewhere. */
  resolveImport?: (source: string) => FileIndex | undefined;
  /** Set by the analyzer: the text of a (non-code) file of the package by its path, for descriptions kept in files. */
  readText?: (path: string) => string | undefined;
}

/**
 * A class of the package, as the dataflow needs it to follow calls on its instances: its own methods (a method of
 * another class of the same name is not this one's), its base class, and what its fields hold.
 */
export interface ClassInfo {
  name: string;
  index: FileIndex;
  /** The `extends` expression, resolved when a method is not the class's own. */
  superClass?: AstNode;
  methods: Map<string, AstNode>;
  statics: Map<string, AstNode>;
  getters: Map<string, AstNode>;
  /** Field → its initialiser: a class field (`db = new Db()`) or `this.x = …` in the constructor. */
  fields: Map<string, AstNode>;
  /** Field → the constructor parameter stored in it (`constructor(private git: GitClient)`, `this.git = git`). */
  paramFields: Map<string, number>;
  /** Declared types of the constructor's parameters (TS annotations, or tsc's `__metadata("design:paramtypes", […])`). */
  paramTypes: Array<AstNode | undefined>;
  /** The class's own constructor, when it declares one: summarised at `new X(…)` for its sinks and its fields. */
  constructorFn?: AstNode;
}

/** The class a method (or getter, or arrow-function field) belongs to. */
export const methodClasses = new WeakMap<AstNode, ClassInfo>();

/** The class name of a type annotation (`: GitClient`, `: ns.GitClient`), when it names one. */
export function annotatedType(param: AstNode | undefined): AstNode | undefined {
  const id = param?.type === 'TSParameterProperty' ? param.parameter : param?.type === 'AssignmentPattern' ? param.left : param;
  const type = id?.typeAnnotation?.typeAnnotation;
  if (type?.type !== 'TSTypeReference') return undefined;
  const name = type.typeName;
  if (name?.type === 'Identifier') return name;
  // `ns.GitClient` is a TSQualifiedName: read it as the member expression it stands for at run time.
  if (name?.type === 'TSQualifiedName' && name.left?.type === 'Identifier') {
    return { type: 'MemberExpression', object: name.left, property: name.right, computed: false, start: name.start, end: name.end };
  }
  return undefined;
}

function paramName(param: AstNode | undefined): string | undefined {
  const id = param?.type === 'TSParameterProperty' ? param.parameter : param?.type === 'AssignmentPattern' ? param.left : param;
  return id?.type === 'Identifier' ? id.name : undefined;
}

function classInfo(node: AstNode, name: string, index: FileIndex): ClassInfo {
  const info: ClassInfo = { name, index, methods: new Map(), statics: new Map(), getters: new Map(), fields: new Map(), paramFields: new Map(), paramTypes: [] };
  if (node.superClass) info.superClass = node.superClass;
  for (const member of node.body.body) {
    const key = propertyName(member.key, member.computed);
    if (!key) continue;
    const value = unwrap(member.value);
    if (member.type === 'MethodDefinition' && key === 'constructor') {
      if (value) {
        info.constructorFn = value;
        methodClasses.set(value, info);
      }
      const params: AstNode[] = value?.params ?? [];
      params.forEach((param, position) => {
        info.paramTypes[position] = annotatedType(param);
        const name = paramName(param);
        if (param.type === 'TSParameterProperty' && name) info.paramFields.set(name, position);
      });
      for (const statement of value?.body?.body ?? []) {
        const expression = statement.type === 'ExpressionStatement' ? unwrap(statement.expression) : undefined;
        if (expression?.type !== 'AssignmentExpression' || expression.operator !== '=') continue;
        const left = unwrap(expression.left);
        const field = left?.type === 'MemberExpression' && unwrap(left.object)?.type === 'ThisExpression' ? memberName(left) : undefined;
        if (!field) continue;
        const right = unwrap(expression.right);
        const position = right?.type === 'Identifier' ? params.findIndex((param) => paramName(param) === right.name) : -1;
        if (position >= 0) info.paramFields.set(field, position);
        else if (!info.fields.has(field)) info.fields.set(field, expression.right);
      }
    } else if (member.type === 'MethodDefinition' && value) {
      const table = member.kind === 'get' ? info.getters : member.static ? info.statics : info.methods;
      if (member.kind !== 'set' && !table.has(key)) table.set(key, value);
      methodClasses.set(value, info);
    } else if (member.type === 'PropertyDefinition' && value) {
      if (isFunction(value)) {
        (member.static ? info.statics : info.methods).set(key, value);
        methodClasses.set(value, info);
      } else if (!member.static) info.fields.set(key, member.value);
    }
  }
  return info;
}

/** tsc's decorator output `X = __decorate([…, __metadata("design:paramtypes", [A, B])], X)`: the constructor's types. */
function decoratedParamTypes(expression: AstNode, index: FileIndex): void {
  const right = unwrap(expression.right);
  const target = expression.left.type === 'Identifier' ? index.classes.get(expression.left.name) : undefined;
  const callee = right?.type === 'CallExpression' ? unwrap(right.callee) : undefined;
  const name = callee?.type === 'Identifier' ? callee.name : callee?.type === 'MemberExpression' ? memberName(callee) : undefined;
  if (!target || !right || name !== '__decorate') return;
  const decorators = unwrap(right.arguments[0]);
  for (const decorator of decorators?.type === 'ArrayExpression' ? decorators.elements : []) {
    const call = unwrap(decorator);
    if (call?.type !== 'CallExpression' || call.arguments[0]?.value !== 'design:paramtypes') continue;
    const types = unwrap(call.arguments[1]);
    if (types?.type === 'ArrayExpression') types.elements.forEach((type: AstNode | null, position: number) => (target.paramTypes[position] ??= unwrap(type)));
  }
}

const REQUIRE_WRAPPERS = new Set(['__toESM', '__importStar', '__importDefault', '_interopRequireDefault', '_interopRequireWildcard']);

/** `require('x')`, `__importStar(require('x'))`, `(0, __toESM)(require('x'))` → 'x'. */
export function requiredModule(node: AstNode | undefined): string | undefined {
  const current = unwrap(node);
  if (current?.type !== 'CallExpression') return undefined;
  const callee = unwrap(current.callee);
  if (callee?.type === 'Identifier' && callee.name === 'require') {
    const arg = current.arguments[0];
    return arg?.type === 'Literal' && typeof arg.value === 'string' ? arg.value : undefined;
  }
  const calleeName = callee?.type === 'Identifier' ? callee.name : callee?.type === 'MemberExpression' ? memberName(callee) : undefined;
  if (calleeName && REQUIRE_WRAPPERS.has(calleeName)) return requiredModule(current.arguments[0]);
  return undefined;
}

/** `this.baseUrl = 'https://…'` statements at the top of a constructor body, as class fields. */
function recordThisAssignments(fn: AstNode | undefined, index: FileIndex): void {
  for (const statement of fn?.body?.body ?? []) {
    const expression = statement.type === 'ExpressionStatement' ? unwrap(statement.expression) : undefined;
    if (expression?.type !== 'AssignmentExpression' || expression.operator !== '=') continue;
    const left = unwrap(expression.left);
    const name = left?.type === 'MemberExpression' && unwrap(left.object)?.type === 'ThisExpression' ? memberName(left) : undefined;
    if (name && !index.fields.has(name)) index.fields.set(name, expression.right);
  }
}

/** The file a named function belongs to, for handlers registered in one file and defined in another. */
export const functionOwners = new WeakMap<AstNode, FileIndex>();

export function buildFileIndex(parsed: ParsedFile): FileIndex {
  const index: FileIndex = {
    parsed,
    functions: new Map(),
    methods: new Map(),
    fields: new Map(),
    variables: new Map(),
    imports: new Map(),
    exports: new Map(),
    exportedValues: new Map(),
    reExports: new Map(),
    starExports: [],
    classes: new Map(),
  };
  const exportedLocals: Array<[string, string]> = [];

  const declare = (id: AstNode | undefined, init: AstNode | undefined): void => {
    if (!id || !init) return;
    if (id.type === 'Identifier') {
      if (!index.variables.has(id.name)) index.variables.set(id.name, init);
      const value = unwrap(init);
      if (isFunction(value) && !index.functions.has(id.name)) index.functions.set(id.name, value as AstNode);
      const source = requiredModule(init);
      if (source !== undefined) index.imports.set(id.name, { source, imported: '*' });
      // `const exec = require('child_process').exec`
      if (value?.type === 'MemberExpression') {
        const objectSource = requiredModule(value.object);
        const name = memberName(value);
        if (objectSource !== undefined && name) index.imports.set(id.name, { source: objectSource, imported: name });
      }
    } else if (id.type === 'ObjectPattern') {
      const source = requiredModule(init);
      for (const property of id.properties) {
        if (property.type !== 'Property') continue;
        const key = propertyName(property.key, property.computed);
        const local = property.value.type === 'AssignmentPattern' ? property.value.left : property.value;
        if (source !== undefined && key && local.type === 'Identifier') index.imports.set(local.name, { source, imported: key });
      }
    }
  };

  const visitStatement = (statement: AstNode, depth: number): void => {
    switch (statement.type) {
      case 'ImportDeclaration': {
        const source = statement.source.value as string;
        for (const specifier of statement.specifiers) {
          const imported =
            specifier.type === 'ImportNamespaceSpecifier'
              ? '*'
              : specifier.type === 'ImportDefaultSpecifier'
                ? 'default'
                : (propertyName(specifier.imported) ?? 'default');
          index.imports.set(specifier.local.name, { source, imported });
        }
        return;
      }
      case 'ExportNamedDeclaration':
        if (statement.declaration) {
          visitStatement(statement.declaration, depth);
          const declaration = statement.declaration;
          if (declaration.type === 'FunctionDeclaration' && declaration.id) exportedLocals.push([declaration.id.name, declaration.id.name]);
          if (declaration.type === 'VariableDeclaration') {
            for (const declarator of declaration.declarations) {
              if (declarator.id.type === 'Identifier') exportedLocals.push([declarator.id.name, declarator.id.name]);
            }
          }
        }
        for (const specifier of statement.specifiers ?? []) {
          const local = propertyName(specifier.local);
          const exported = propertyName(specifier.exported);
          if (!local || !exported) continue;
          // With a `from` clause the local name belongs to the other module.
          if (statement.source) index.reExports.set(exported, { source: statement.source.value as string, imported: local });
          else exportedLocals.push([exported, local]);
        }
        return;
      case 'ExportAllDeclaration':
        // `export * as ns from` binds a namespace, which a call through it resolves like an import; only plain stars pass names on.
        if (!statement.exported && typeof statement.source?.value === 'string') index.starExports.push(statement.source.value);
        return;
      case 'ExportDefaultDeclaration': {
        const declaration = statement.declaration;
        if (isFunction(declaration)) {
          index.exports.set('default', declaration);
          if (declaration.id) index.functions.set(declaration.id.name, declaration);
        } else if (declaration.type === 'Identifier') exportedLocals.push(['default', declaration.name]);
        else if (declaration.type === 'ClassDeclaration') visitStatement(declaration, depth);
        return;
      }
      case 'FunctionDeclaration':
        if (statement.id && !index.functions.has(statement.id.name)) index.functions.set(statement.id.name, statement);
        return;
      case 'ClassDeclaration':
      case 'ClassExpression':
        if (statement.id?.name && !index.classes.has(statement.id.name)) index.classes.set(statement.id.name, classInfo(statement, statement.id.name, index));
        for (const member of statement.body.body) {
          const name = propertyName(member.key, member.computed);
          if (!name) continue;
          if (member.type === 'MethodDefinition' && !index.methods.has(name)) index.methods.set(name, member.value);
          if (member.type === 'PropertyDefinition' && member.value && !index.fields.has(name)) index.fields.set(name, member.value);
          if (member.type === 'MethodDefinition' && name === 'constructor') recordThisAssignments(member.value, index);
          if (member.type === 'PropertyDefinition' && isFunction(unwrap(member.value)) && !index.methods.has(name)) {
            index.methods.set(name, unwrap(member.value) as AstNode);
          }
        }
        return;
      case 'VariableDeclaration':
        for (const declarator of statement.declarations) {
          declare(declarator.id, declarator.init);
          const init = unwrap(declarator.init);
          if (init?.type === 'ClassExpression') {
            // `const Runner = class {}` and tsc's `let Runner = class Runner {}` (decorated classes): the variable names it.
            const name = declarator.id.type === 'Identifier' ? declarator.id.name : undefined;
            if (name && !index.classes.has(name)) index.classes.set(name, classInfo(init, name, index));
            visitStatement(init, depth);
          }
        }
        return;
      case 'ExpressionStatement': {
        const expression = unwrap(statement.expression);
        if (expression?.type === 'AssignmentExpression') {
          const left = expression.left;
          // CommonJS exports: `exports.f = f`, `module.exports = { f }`, `exports.f = function () {}`.
          if (left.type === 'MemberExpression') {
            const object = unwrap(left.object);
            const isExports =
              (object?.type === 'Identifier' && object.name === 'exports') ||
              (object?.type === 'MemberExpression' && memberName(object) === 'exports');
            const name = memberName(left);
            const right = unwrap(expression.right);
            if (isExports && name && right) {
              if (isFunction(right)) index.exports.set(name, right);
              else if (right.type === 'Identifier') exportedLocals.push([name, right.name]);
              else index.exportedValues.set(name, right);
            }
            if (object?.type === 'Identifier' && object.name === 'module' && name === 'exports' && right?.type === 'ObjectExpression') {
              for (const property of right.properties) {
                const key = property.type === 'Property' ? propertyName(property.key, property.computed) : undefined;
                const value = property.type === 'Property' ? unwrap(property.value) : undefined;
                if (key && value?.type === 'Identifier') exportedLocals.push([key, value.name]);
                else if (key && isFunction(value)) index.exports.set(key, value as AstNode);
              }
            }
          }
          if (left.type === 'Identifier') declare(left, expression.right);
          // `X = __decorate(…)`, or tsc's `exports.X = X = __decorate(…)`
          const decorated = left.type === 'Identifier' ? expression : unwrap(expression.right);
          if (decorated?.type === 'AssignmentExpression' && decorated.left.type === 'Identifier') decoratedParamTypes(decorated, index);
        }
        return;
      }
      default:
        // Variables declared in nested blocks (e.g. inside `main()`) still help resolve constants and helpers.
        if (depth < 3) {
          for (const key of ['body', 'consequent', 'alternate', 'block']) {
            const child = statement[key];
            if (Array.isArray(child)) for (const item of child) visitStatement(item, depth + 1);
            else if (child && typeof child.type === 'string') visitStatement(child, depth + 1);
          }
        }
    }
  };

  for (const statement of parsed.program.body) visitStatement(statement, 0);
  for (const fn of index.functions.values()) functionOwners.set(fn, index);
  for (const fn of index.methods.values()) functionOwners.set(fn, index);
  for (const [exported, local] of exportedLocals) {
    const value = index.variables.get(local);
    if (value && !index.exportedValues.has(exported)) index.exportedValues.set(exported, value);
    const fn = index.functions.get(local);
    if (fn && !index.exports.has(exported)) index.exports.set(exported, fn);
  }
  for (const fn of index.exports.values()) functionOwners.set(fn, index);
  return index;
}

/** Resolves a relative import specifier against the importing file's path to a key of `has` (a set of workspace paths). */
export function resolveRelativeImport(fromPath: string, source: string, has: (path: string) => boolean): string | undefined {
  if (!source.startsWith('.')) return undefined;
  const directory = fromPath.includes('/') ? fromPath.slice(0, fromPath.lastIndexOf('/')) : '';
  const normalised: string[] = [];
  for (const part of (directory ? `${directory}/${source}` : source).split('/')) {
    if (part === '.' || part === '') continue;
    if (part === '..') normalised.pop();
    else normalised.push(part);
  }
  const base = normalised.join('/');
  const stem = base.replace(/\.(m|c)?(j|t)sx?$/, '');
  const candidates = [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, `${stem}.cts`, `${stem}.js`, `${stem}.mjs`, `${stem}.cjs`, `${base}/index.ts`, `${base}/index.js`];
  return candidates.find(has);
}

/** What a name refers to: a variable of this file or a value exported by a relatively imported file. */
export function lookupBinding(name: string, index: FileIndex): { node: AstNode; index: FileIndex } | undefined {
  const local = index.variables.get(name);
  if (local) return { node: local, index };
  const binding = index.imports.get(name);
  if (!binding || binding.imported === '*') return undefined;
  const target = index.resolveImport?.(binding.source);
  const node = target?.exportedValues.get(binding.imported);
  return target && node ? { node, index: target } : undefined;
}

/** `ns.NAME` where `ns` is a namespace import or a tsc/esbuild `require` of a relative module. */
export function lookupNamespaceMember(object: AstNode | undefined, name: string | undefined, index: FileIndex): { node: AstNode; index: FileIndex } | undefined {
  const current = unwrap(object);
  if (current?.type !== 'Identifier' || name === undefined) return undefined;
  const binding = index.imports.get(current.name);
  if (!binding || (binding.imported !== '*' && binding.imported !== 'default')) return undefined;
  const target = index.resolveImport?.(binding.source);
  const node = target?.exportedValues.get(name);
  return target && node ? { node, index: target } : undefined;
}

/** Follows identifiers (also across relative imports) to the expression they hold, with the file it is written in. */
export function resolveExpression(node: AstNode | undefined, index: FileIndex, depth = 0): { node: AstNode | undefined; index: FileIndex } {
  const current = unwrap(node);
  if (depth < 6 && current?.type === 'Identifier') {
    const bound = lookupBinding(current.name, index);
    if (bound && bound.node !== current) return resolveExpression(bound.node, bound.index, depth + 1);
  }
  if (depth < 6 && current?.type === 'MemberExpression' && !current.computed) {
    const imported = lookupNamespaceMember(current.object, memberName(current), index);
    if (imported) return resolveExpression(imported.node, imported.index, depth + 1);
    // `TOOL.parameters` of `const TOOL = { parameters: schema, … }`
    const holder = resolveExpression(current.object, index, depth + 1);
    const property = holder.node?.type === 'ObjectExpression' ? objectProperty(holder.node, memberName(current) ?? '') : undefined;
    if (property) return resolveExpression(property, holder.index, depth + 1);
  }
  return { node: current, index };
}

// ─── Static evaluation ──────────────────────────────────────────────────────────────────────────

export type StaticValue = string | number | boolean | null | StaticValue[] | { [key: string]: StaticValue } | RegExp;

const NOT_STATIC = Symbol('not-static');

/**
 * Evaluates an expression built only from literals and same-file constants: descriptions assembled by concatenation,
 * template literals, `[...].join('\n')`, enum arrays, default values. Returns undefined when any part is dynamic.
 */
export function staticValue(node: AstNode | undefined, index: FileIndex, depth = 0): StaticValue | undefined {
  const value = evaluate(node, index, depth);
  return value === NOT_STATIC ? undefined : value;
}

export function staticString(node: AstNode | undefined, index: FileIndex): string | undefined {
  const value = staticValue(node, index);
  return typeof value === 'string' ? value : undefined;
}

function evaluate(node: AstNode | undefined, index: FileIndex, depth: number): StaticValue | typeof NOT_STATIC {
  const current = unwrap(node);
  if (!current || depth > 12) return NOT_STATIC;
  switch (current.type) {
    case 'Literal':
      if (current.regex) return new RegExp(current.regex.pattern, current.regex.flags.replace(/[^dgimsuy]/g, ''));
      return typeof current.value === 'bigint' ? NOT_STATIC : (current.value as StaticValue);
    case 'TemplateLiteral': {
      let text = current.quasis[0]?.value.cooked ?? '';
      for (let i = 0; i < current.expressions.length; i++) {
        const part = evaluate(current.expressions[i], index, depth + 1);
        if (part === NOT_STATIC || (typeof part === 'object' && part !== null)) return NOT_STATIC;
        text += String(part) + (current.quasis[i + 1]?.value.cooked ?? '');
      }
      return text;
    }
    case 'TaggedTemplateExpression':
      // dedent`…`, outdent`…`: the text is what matters for the model.
      return evaluate(current.quasi, index, depth + 1);
    case 'BinaryExpression': {
      if (current.operator !== '+') return NOT_STATIC;
      const left = evaluate(current.left, index, depth + 1);
      const right = evaluate(current.right, index, depth + 1);
      if (left === NOT_STATIC || right === NOT_STATIC) return NOT_STATIC;
      if (typeof left === 'number' && typeof right === 'number') return left + right;
      if (typeof left === 'object' || typeof right === 'object') return NOT_STATIC;
      return String(left) + String(right);
    }
    case 'UnaryExpression':
      if (current.operator === '-' ) {
        const value = evaluate(current.argument, index, depth + 1);
        return typeof value === 'number' ? -value : NOT_STATIC;
      }
      if (current.operator === '!') {
        const value = evaluate(current.argument, index, depth + 1);
        return value === NOT_STATIC ? NOT_STATIC : !value;
      }
      return NOT_STATIC;
    case 'Identifier': {
      if (current.name === 'undefined') return NOT_STATIC;
      const bound = lookupBinding(current.name, index);
      if (!bound) return importedJson(current.name, index);
      if (bound.node === current) return NOT_STATIC;
      return evaluate(bound.node, bound.index, depth + 1);
    }
    case 'AwaitExpression': {
      // `await readFile(new URL('./texts/x.md', import.meta.url), 'utf8')`
      const argument = unwrap(current.argument);
      return argument?.type === 'CallExpression' && isFileRead(argument) ? evaluate(argument, index, depth + 1) : NOT_STATIC;
    }
    case 'ArrayExpression': {
      const items: StaticValue[] = [];
      for (const element of current.elements) {
        if (element?.type === 'SpreadElement') {
          const spread = evaluate(element.argument, index, depth + 1);
          if (!Array.isArray(spread)) return NOT_STATIC;
          items.push(...spread);
          continue;
        }
        const value = evaluate(element ?? undefined, index, depth + 1);
        if (value === NOT_STATIC) return NOT_STATIC;
        items.push(value);
      }
      return items;
    }
    case 'ObjectExpression': {
      const object: { [key: string]: StaticValue } = {};
      for (const property of current.properties) {
        if (property.type !== 'Property') return NOT_STATIC;
        const key = propertyName(property.key, property.computed);
        const value = evaluate(property.value, index, depth + 1);
        if (key === undefined || value === NOT_STATIC) return NOT_STATIC;
        object[key] = value;
      }
      return object;
    }
    case 'MemberExpression': {
      const imported = current.computed ? undefined : lookupNamespaceMember(current.object, memberName(current), index);
      if (imported) return evaluate(imported.node, imported.index, depth + 1);
      // `this.baseUrl`: a field the class sets to a constant.
      if (unwrap(current.object)?.type === 'ThisExpression' && !current.computed) {
        const field = index.fields.get(memberName(current) ?? '');
        return field ? evaluate(field, index, depth + 1) : NOT_STATIC;
      }
      // `TOOL.name` of `const TOOL = { name: 'x', handler: run }`: the one property, even when its siblings are not static.
      const property = current.computed || unwrap(current.object)?.type !== 'Identifier' ? undefined : resolveExpression(current, index, depth);
      if (property?.node && property.node !== current) return evaluate(property.node, property.index, depth + 1);
      const object = evaluate(current.object, index, depth + 1);
      const key = current.computed ? evaluate(current.property, index, depth + 1) : memberName(current);
      if (object === NOT_STATIC || object === null || typeof object !== 'object' || key === NOT_STATIC) return NOT_STATIC;
      if (Array.isArray(object)) {
        if (key === 'length') return object.length;
        return typeof key === 'number' ? (object[key] ?? NOT_STATIC) : NOT_STATIC;
      }
      if (object instanceof RegExp) return NOT_STATIC;
      return typeof key === 'string' && Object.hasOwn(object, key) ? (object[key] as StaticValue) : NOT_STATIC;
    }
    case 'CallExpression': {
      const fromFile = packageFileCall(current, index, depth);
      if (fromFile !== undefined) return fromFile;
      const callee = unwrap(current.callee);
      if (callee?.type !== 'MemberExpression') return NOT_STATIC;
      const method = memberName(callee);
      const receiver = evaluate(callee.object, index, depth + 1);
      if (receiver === NOT_STATIC) return NOT_STATIC;
      if (method === 'join' && Array.isArray(receiver)) {
        const separator = current.arguments.length ? evaluate(current.arguments[0], index, depth + 1) : ',';
        return typeof separator === 'string' ? receiver.map((item) => String(item)).join(separator) : NOT_STATIC;
      }
      if (typeof receiver === 'string') {
        if (method === 'trim') return receiver.trim();
        if (method === 'trimStart') return receiver.trimStart();
        if (method === 'trimEnd') return receiver.trimEnd();
        if (method === 'concat') {
          let text = receiver;
          for (const arg of current.arguments) {
            const part = evaluate(arg, index, depth + 1);
            if (part === NOT_STATIC || typeof part === 'object') return NOT_STATIC;
            text += String(part);
          }
          return text;
        }
      }
      return NOT_STATIC;
    }
    default:
      return NOT_STATIC;
  }
}

// ─── Values read from the package's own files ───────────────────────────────────────────────────

function packageFile(index: FileIndex): PackageFileContext {
  return { path: index.parsed.file.path, ...(index.readText && { readText: index.readText }) };
}

/** `import texts from './texts.json'`, `const { search } = require('./texts.json')`: the parsed JSON (or one key). */
function importedJson(name: string, index: FileIndex): StaticValue | typeof NOT_STATIC {
  const binding = index.imports.get(name);
  const data = binding ? jsonModule(binding.source, packageFile(index)) : undefined;
  if (data === undefined || !binding) return NOT_STATIC;
  if (binding.imported === 'default') return data as StaticValue;
  // A namespace (`import * as x`, tsc's `__importDefault(require(…))`) also reaches the data as `x.default`.
  if (binding.imported === '*') return typeof data === 'object' && data !== null && !Array.isArray(data) ? ({ default: data, ...data } as StaticValue) : (data as StaticValue);
  const record = data as Record<string, unknown>;
  return typeof data === 'object' && data !== null && Object.hasOwn(record, binding.imported) ? (record[binding.imported] as StaticValue) : NOT_STATIC;
}

/** `require('./x.json')`, `readFileSync(path.join(__dirname, 'x.md'), 'utf8')`, `JSON.parse(<file text>)`. */
function packageFileCall(call: AstNode, index: FileIndex, depth: number): StaticValue | undefined {
  const file = packageFile(index);
  const source = requiredModule(call);
  if (source !== undefined) return jsonModule(source, file) as StaticValue | undefined;
  const text = (node: AstNode): string | undefined => {
    const value = evaluate(node, index, depth + 1);
    return typeof value === 'string' ? value : undefined;
  };
  const read = readCallText(call, file, text);
  if (read !== undefined) return read;
  if (dottedName(call.callee) === 'JSON.parse') {
    const json = text(call.arguments[0]);
    try {
      return json === undefined ? undefined : (JSON.parse(json) as StaticValue);
    } catch {
      return undefined;
    }
  }
  return undefined;
}
