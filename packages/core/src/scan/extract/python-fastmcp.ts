// Tools, prompts, resources and instructions of FastMCP servers (`mcp.server.fastmcp.FastMCP`, its SDK v2 name
// `MCPServer`, and the standalone `fastmcp` package 2.x/3.x), read from decorators, `add_tool` / `Tool.from_function`
// registrations, signatures and docstrings (also a `__doc__` set later, or a text file of the package) without
// running anything.
import type { ToolDefinition, ToolParameter } from '../model.js';
import {
  bindsInstance,
  handlerId,
  resolveConstant,
  type PyExtraction,
  type PyHandler,
  type PyModule,
  type PyProgram,
} from '../analysis/python/program.js';
import {
  callArguments,
  docstring,
  dottedName,
  functionParameters,
  literalValue,
  location,
  parameterName,
  stringValue,
  type Node,
} from '../analysis/python/syntax.js';
import { resolveText } from './python-text.js';

/** Names bound to `FastMCP(...)` anywhere in the package: tools are often declared in a module that imports the server object. */
export function fastMcpServerNames(program: PyProgram): Set<string> {
  const names = new Set<string>();
  for (const module of program.modules) {
    for (const [name, value] of module.constants) {
      if (isFastMcpConstructor(value)) names.add(name);
    }
  }
  return names;
}

function isFastMcpConstructor(node: Node): boolean {
  return node.type === 'call' && /(^|\.)(FastMCP|MCPServer)$/.test(dottedName(node.childForFieldName('function')) ?? '');
}

/** A name bound to a FastMCP / MCPServer server in this package or, inside a function, in this file. */
function isServer(module: PyModule, serverNames: ReadonlySet<string>, name: string): boolean {
  return serverNames.has(name) || bindsInstance(module, name, 'FastMCP') || bindsInstance(module, name, 'MCPServer');
}

const DECORATOR_KINDS: Record<string, ToolDefinition['kind']> = { tool: 'tool', prompt: 'prompt', resource: 'resource' };

export function extractFastMcp(
  program: PyProgram,
  module: PyModule,
  serverNames: ReadonlySet<string>,
  servers: Map<ToolDefinition, string> = new Map(),
): PyExtraction {
  const tools: ToolDefinition[] = [];
  const handlers: PyHandler[] = [];

  for (const [name, value] of module.constants) {
    if (!isFastMcpConstructor(value)) continue;
    const args = callArguments(value);
    const serverName = stringValue(resolveConstant(module, args.positional[0] ?? args.keywords.get('name'))) ?? name;
    const instructions = stringValue(resolveConstant(module, args.keywords.get('instructions')));
    if (instructions) {
      tools.push({
        kind: 'instructions',
        name: serverName,
        description: instructions,
        parameters: [],
        location: location(module.path, value),
        extractor: 'python-fastmcp',
      });
    }
  }

  for (const decorated of module.decorated) {
    const definition = decorated.childForFieldName('definition');
    if (!definition) continue;
    for (const decorator of decorated.namedChildren) {
      if (decorator?.type !== 'decorator') continue;
      const expression = decorator.namedChildren[0];
      if (!expression) continue;
      const call = expression.type === 'call' ? expression : undefined;
      const target = dottedName(call ? call.childForFieldName('function') : expression);
      const match = target ? /^(\w+)\.(tool|prompt|resource)$/.exec(target) : null;
      if (!match || !isServer(module, serverNames, match[1]!)) continue;
      register(DECORATOR_KINDS[match[2]!]!, definition, call, module, match[1]!);
    }
  }

  // Registration without a decorator, at any depth: `mcp.add_tool(fn, name=…)`, `mcp.tool(name=…)(fn)`, or
  // `mcp.add_tool(Tool.from_function(fn, name=…, description=…))` (directly or through a variable).
  const registrations = /\.(add_tool|add_prompt|add_resource|tool|prompt|resource)\(/.test(module.file.text ?? '') ? module.root.descendantsOfType('expression_statement') : [];
  for (const statement of registrations) {
    const call = statement?.namedChildren[0];
    if (call?.type !== 'call') continue;
    const callee = call.childForFieldName('function');
    const args = callArguments(call);
    const direct = /^(\w+)\.add_(tool|prompt|resource)$/.exec(dottedName(callee) ?? '');
    const curried = callee?.type === 'call' ? /^(\w+)\.(tool|prompt|resource)$/.exec(dottedName(callee.childForFieldName('function')) ?? '') : null;
    const match = direct ?? curried;
    if (!match || !isServer(module, serverNames, match[1]!)) continue;
    const built = direct ? fromFunction(module, statement!, args.positional[0]) : undefined;
    const target = built ? callArguments(built).positional[0] : args.positional[0];
    const definition = target ? program.resolveFunction(module, target) : undefined;
    if (definition) register(DECORATOR_KINDS[match[2]!]!, definition.definition, built ?? (direct ? call : (callee ?? undefined)), definition.module, match[1]!);
  }
  return { tools, handlers };

  function register(kind: ToolDefinition['kind'], definition: Node, options: Node | undefined, home: PyModule, server: string): void {
    const tool = toolFromFunction(home, definition, kind, options, module);
    tools.push(tool);
    servers.set(tool, `${module.path}:${server}`);
    if (kind !== 'prompt') handlers.push({ kind: 'function', tool: tool.name, module: home, definition, parameters: tool.parameters });
  }
}

/**
 * `main.mount(sub, prefix="x")` / `namespace="x"` (fastmcp 3) / `mount("x", sub)` (early 2.x) / `import_server(...)`:
 * the sub-server's tools are served as `x_<name>`. Renames the tools (and their handlers) registered on `sub`.
 */
export function applyMounts(program: PyProgram, extraction: PyExtraction, servers: ReadonlyMap<ToolDefinition, string>): void {
  for (const module of program.modules) {
    if (!/\.(mount|import_server)\(/.test(module.file.text ?? '')) continue;
    for (const call of module.root.descendantsOfType('call')) {
      const callee = call?.childForFieldName('function');
      const method = callee?.type === 'attribute' ? callee.childForFieldName('attribute')?.text : undefined;
      if (!call || (method !== 'mount' && method !== 'import_server')) continue;
      const args = callArguments(call);
      const first = stringValue(args.positional[0]);
      const sub = first !== undefined ? args.positional[1] : (args.positional[0] ?? args.keywords.get('server'));
      const prefix = first ?? stringValue(args.keywords.get('prefix') ?? args.keywords.get('namespace') ?? args.positional[1]);
      if (sub?.type !== 'identifier' || !prefix) continue;
      const binding = module.imports.get(sub.text);
      const home = binding?.name ? program.resolveModule(module, binding.module, binding.level) : module;
      const owner = home ? `${home.path}:${binding?.name ?? sub.text}` : undefined;
      for (const [tool, server] of servers) {
        if (server !== owner || tool.kind === 'instructions') continue;
        const renamed = `${prefix}_${tool.name}`;
        for (const handler of extraction.handlers) if (handler.tool === tool.name && handler.parameters === tool.parameters) handler.tool = renamed;
        if (tool.handlerId?.endsWith(`:${tool.name}`)) tool.handlerId = `${tool.handlerId.slice(0, -tool.name.length)}${renamed}`;
        tool.name = renamed;
      }
    }
  }
}

/** `Tool.from_function(fn, …)` / `FunctionTool.from_function(…)`, written in place or assigned to a variable before. */
function fromFunction(module: PyModule, at: Node, node: Node | undefined): Node | undefined {
  const isBuilder = (candidate: Node | undefined) =>
    candidate?.type === 'call' && /(^|\.)from_function$/.test(dottedName(candidate.childForFieldName('function')) ?? '') ? candidate : undefined;
  if (node?.type !== 'identifier') return isBuilder(node);
  const constant = isBuilder(module.constants.get(node.text));
  if (constant) return constant;
  // A local assigned in the same function: the last `name = Tool.from_function(...)` before this statement.
  let found: Node | undefined;
  for (const assignment of module.root.descendantsOfType('assignment')) {
    if (!assignment || assignment.startIndex > at.startIndex) break;
    if (assignment.childForFieldName('left')?.text === node.text) found = isBuilder(assignment.childForFieldName('right') ?? undefined) ?? found;
  }
  return found;
}

/** `fn.__doc__ = "…"` anywhere in the file, by function name: the docstring the framework will read. */
function docOverrides(module: PyModule): Map<string, Node> {
  const result = new Map<string, Node>();
  if (!(module.file.text ?? '').includes('__doc__')) return result;
  for (const assignment of module.root.descendantsOfType('assignment')) {
    const left = assignment?.childForFieldName('left');
    const right = assignment?.childForFieldName('right');
    const match = left?.type === 'attribute' ? /^(\w+)\.__doc__$/.exec(left.text) : null;
    if (match && right) result.set(match[1]!, right);
  }
  return result;
}

function toolFromFunction(module: PyModule, definition: Node, kind: ToolDefinition['kind'], decorator: Node | undefined, registeredIn: PyModule): ToolDefinition {
  const functionName = definition.childForFieldName('name')?.text ?? '<anonymous>';
  const options = decorator ? callArguments(decorator) : undefined;
  const option = (key: string) => (options ? resolveConstant(registeredIn, options.keywords.get(key)) : undefined);
  const name = stringValue(option('name')) ?? functionName;
  const override = docOverrides(module).get(functionName);
  const given = option('description') ? resolveText(registeredIn, option('description')) : override ? resolveText(module, override) : undefined;
  const doc = given ? given.text : docstring(definition);
  const argDocs = doc ? googleArgs(doc) : new Map<string, string>();
  const tool: ToolDefinition = {
    kind,
    name,
    description: doc,
    parameters: functionParameters(definition)
      .map((parameter) => toolParameter(module, parameter, argDocs))
      .filter((parameter): parameter is ToolParameter => parameter !== undefined),
    location: location(module.path, definition.childForFieldName('name') ?? definition),
    extractor: 'python-fastmcp',
    handlerId: handlerId(module, definition, name),
  };
  if (given?.source) tool.descriptionSource = given.source;
  const title = stringValue(option('title'));
  if (title) tool.title = title;
  const annotations = annotationsOf(option('annotations'));
  if (annotations) tool.annotations = annotations;
  if (kind === 'resource') {
    const uri = stringValue(resolveConstant(module, options?.positional[0] ?? options?.keywords.get('uri')));
    if (uri) tool.uri = uri;
  }
  return tool;
}

/** `annotations={"readOnlyHint": True}` or `annotations=ToolAnnotations(readOnlyHint=True)`. */
export function annotationsOf(node: Node | undefined): Record<string, unknown> | undefined {
  if (!node) return undefined;
  if (node.type === 'call') {
    const result: Record<string, unknown> = {};
    for (const [key, value] of callArguments(node).keywords) {
      const literal = literalValue(value);
      if (literal !== undefined) result[key] = literal;
    }
    return result;
  }
  const literal = literalValue(node);
  return literal !== null && typeof literal === 'object' && !Array.isArray(literal) ? literal : undefined;
}

const SKIPPED_PARAMETERS = new Set(['self', 'cls']);

function toolParameter(module: PyModule, parameter: Node, argDocs: Map<string, string>): ToolParameter | undefined {
  const name = parameterName(parameter);
  if (!name || SKIPPED_PARAMETERS.has(name)) return undefined;
  const typeNode = parameter.childForFieldName('type') ?? undefined;
  // The request context is injected by the framework, never supplied by the model.
  if (typeNode && /(^|\.)Context\b/.test(typeNode.text)) return undefined;
  if (!typeNode && name === 'ctx') return undefined;
  return typedParameter(module, name, typeNode, parameter.childForFieldName('value') ?? undefined, argDocs);
}

/** The fields of a pydantic model (`class Args(BaseModel): path: str = Field(...)`), as `Model.model_json_schema()` would list them. */
export function modelFields(module: PyModule, definition: Node): ToolParameter[] {
  const body = definition.childForFieldName('body');
  const parameters: ToolParameter[] = [];
  for (const statement of body?.namedChildren ?? []) {
    const assignment = statement?.type === 'expression_statement' ? statement.namedChildren[0] : undefined;
    if (assignment?.type !== 'assignment') continue;
    const left = assignment.childForFieldName('left');
    const typeNode = assignment.childForFieldName('type') ?? undefined;
    if (left?.type !== 'identifier' || !typeNode || /^(ClassVar|typing\.ClassVar)\b/.test(typeNode.text) || left.text === 'model_config') continue;
    parameters.push(typedParameter(module, left.text, typeNode, assignment.childForFieldName('right') ?? undefined, new Map()));
  }
  return parameters;
}

/** One input from its annotation (`Annotated[...]`, `Literal[...]`, aliases) and default (`Field(...)` or a literal). */
function typedParameter(module: PyModule, name: string, typeNode: Node | undefined, defaultNode: Node | undefined, argDocs: Map<string, string>): ToolParameter {
  const result: ToolParameter = { name, required: true };
  let valueType = typeNode;
  const annotated = typeNode ? genericParts(typeNode) : undefined;
  if (annotated?.name === 'Annotated' && annotated.args[0]) {
    valueType = annotated.args[0];
    for (const metadata of annotated.args.slice(1)) {
      const inner = unwrapType(metadata);
      if (inner.type === 'call') applyField(module, inner, result, false);
      else {
        const text = stringValue(inner);
        if (text) result.description ??= text;
      }
    }
  }
  if (valueType) {
    result.type = valueType.text;
    const alias = unwrapType(valueType);
    // `Table = Literal[...]` declared once and used as the annotation.
    const aliased = alias.type === 'identifier' ? module.constants.get(alias.text) : undefined;
    const values = literalEnum(valueType) ?? (aliased ? literalEnum(aliased) : undefined);
    if (values) result.enum = values;
  }

  if (defaultNode) {
    result.required = false;
    if (defaultNode.type === 'call' && /(^|\.)Field$/.test(dottedName(defaultNode.childForFieldName('function')) ?? '')) {
      applyField(module, defaultNode, result, true);
    } else {
      const literal = literalValue(defaultNode);
      if (literal !== undefined && literal !== null) result.default = literal;
    }
  }
  if (!result.description) {
    const documented = argDocs.get(name);
    if (documented) result.description = documented;
  }
  return result;
}

/** Reads `Field(default, description=…, pattern=…)`; as a default value, `Field(...)` keeps the parameter required. */
function applyField(module: PyModule, call: Node, parameter: ToolParameter, isDefault: boolean): void {
  if (!/(^|\.)Field$/.test(dottedName(call.childForFieldName('function')) ?? '')) return;
  const args = callArguments(call);
  const description = stringValue(resolveConstant(module, args.keywords.get('description')));
  if (description) parameter.description = description;
  const pattern = stringValue(args.keywords.get('pattern') ?? args.keywords.get('regex'));
  if (pattern) parameter.pattern = pattern;
  // `Field(le=100)`, `Field(max_length=200)`: an upper bound on the value or its length.
  const bounds = ['le', 'lt', 'max_length'].map((key) => literalValue(args.keywords.get(key) ?? null)).filter((value): value is number => typeof value === 'number');
  if (bounds.length) parameter.maximum = Math.min(...bounds);
  const defaultNode = args.keywords.get('default') ?? args.positional[0];
  if (isDefault) {
    const required = defaultNode?.type === 'ellipsis' || (!defaultNode && !args.keywords.has('default_factory'));
    parameter.required = required;
  }
  if (defaultNode && defaultNode.type !== 'ellipsis') {
    const literal = literalValue(defaultNode);
    if (literal !== undefined && literal !== null) parameter.default = literal;
    parameter.required = false;
  }
}

function unwrapType(node: Node): Node {
  return node.type === 'type' && node.namedChildren[0] ? node.namedChildren[0] : node;
}

/** `Name[a, b]` written as a generic type or a subscript (`typing.Literal[...]`). */
function genericParts(node: Node): { name: string; args: Node[] } | undefined {
  const inner = unwrapType(node);
  if (inner.type === 'generic_type') {
    const name = inner.namedChildren[0]?.text ?? '';
    const parameters = inner.namedChildren.find((child) => child?.type === 'type_parameter');
    return { name: name.split('.').pop()!, args: (parameters?.namedChildren ?? []).filter((child): child is Node => child !== null) };
  }
  if (inner.type === 'subscript') {
    const name = dottedName(inner.childForFieldName('value')) ?? '';
    return { name: name.split('.').pop()!, args: inner.childrenForFieldName('subscript').filter((child): child is Node => child !== null) };
  }
  return undefined;
}

/** Values of a `Literal[...]` type, also inside `Optional[...]`, `Union[...]` or `X | None`. */
function literalEnum(node: Node): string[] | undefined {
  const parts = genericParts(node);
  if (parts?.name === 'Literal') {
    const values = parts.args.map((arg) => literalValue(unwrapType(arg)));
    return values.every((value) => typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      ? values.map(String)
      : undefined;
  }
  if (parts && (parts.name === 'Optional' || parts.name === 'Union')) {
    for (const arg of parts.args) {
      const values = literalEnum(arg);
      if (values) return values;
    }
  }
  const inner = unwrapType(node);
  if (inner.type === 'binary_operator') {
    for (const side of [inner.childForFieldName('left'), inner.childForFieldName('right')]) {
      const values = side ? literalEnum(side) : undefined;
      if (values) return values;
    }
  }
  return undefined;
}

/** Per-parameter descriptions from the `Args:` section of a Google-style docstring. */
export function googleArgs(doc: string): Map<string, string> {
  const result = new Map<string, string>();
  const lines = doc.split('\n');
  const start = lines.findIndex((line) => /^\s*(Args|Arguments|Parameters|Params):\s*$/.test(line));
  if (start === -1) return result;
  const sectionIndent = indentOf(lines[start]!);
  let entryIndent: number | undefined;
  let current: string | undefined;
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '') continue;
    const indent = indentOf(line);
    if (indent <= sectionIndent) break;
    entryIndent ??= indent;
    const entry = indent === entryIndent ? /^\s*\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$/.exec(line) : null;
    if (entry) {
      current = entry[1]!;
      result.set(current, entry[2]!.trim());
    } else if (current) {
      result.set(current, `${result.get(current) ?? ''} ${line.trim()}`.trim());
    }
  }
  return result;
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}
