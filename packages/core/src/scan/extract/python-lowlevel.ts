// Tools of servers built on the low-level `mcp.server.Server`: the `types.Tool(...)` values a `@server.list_tools()`
// handler returns, and the branches of the `@server.call_tool()` dispatcher that implement each of them.
import type { ToolDefinition, ToolParameter } from '../model.js';
import {
  bindsInstance,
  handlerId,
  resolveConstant,
  type PyExtraction,
  type PyModule,
  type PyProgram,
} from '../analysis/python/program.js';
import { callArguments, dottedName, literalValue, location, stringValue, type Literal, type Node } from '../analysis/python/syntax.js';
import { annotationsOf, modelFields } from './python-fastmcp.js';

const LISTED_KINDS: Record<string, ToolDefinition['kind']> = {
  Tool: 'tool',
  Prompt: 'prompt',
  Resource: 'resource',
  ResourceTemplate: 'resource',
};

const LIST_DECORATORS = new Set(['list_tools', 'list_prompts', 'list_resources', 'list_resource_templates']);

function isServerConstructor(node: Node): boolean {
  return node.type === 'call' && /(^|\.)Server$/.test(dottedName(node.childForFieldName('function')) ?? '');
}

export function lowLevelServerNames(program: PyProgram): Set<string> {
  const names = new Set<string>();
  for (const module of program.modules) {
    for (const [name, value] of module.constants) if (isServerConstructor(value)) names.add(name);
  }
  return names;
}

export function extractLowLevel(program: PyProgram, serverNames: ReadonlySet<string>): PyExtraction {
  const tools: ToolDefinition[] = [];
  const dispatchers: Array<{ module: PyModule; definition: Node }> = [];

  for (const module of program.modules) {
    for (const [, value] of module.constants) {
      if (!isServerConstructor(value)) continue;
      const args = callArguments(value);
      const instructions = stringValue(resolveConstant(module, args.keywords.get('instructions')));
      if (instructions) {
        tools.push({
          kind: 'instructions',
          name: stringValue(resolveConstant(module, args.positional[0] ?? args.keywords.get('name'))) ?? 'server',
          description: instructions,
          parameters: [],
          location: location(module.path, value),
          extractor: 'python-lowlevel',
        });
      }
    }
    for (const decorated of module.decorated) {
      const definition = decorated.childForFieldName('definition');
      if (!definition) continue;
      for (const decorator of decorated.namedChildren) {
        if (decorator?.type !== 'decorator') continue;
        const expression = decorator.namedChildren[0];
        const target = dottedName(expression?.type === 'call' ? expression.childForFieldName('function') : expression);
        const match = target ? /^(\w+)\.(\w+)$/.exec(target) : null;
        if (!match || !(serverNames.has(match[1]!) || bindsInstance(module, match[1]!, 'Server'))) continue;
        if (LIST_DECORATORS.has(match[2]!)) tools.push(...listedDefinitions(program, module, definition));
        if (match[2] === 'call_tool') dispatchers.push({ module, definition });
      }
    }
  }

  const handlers: PyExtraction['handlers'] = [];
  for (const tool of tools) {
    if (tool.kind !== 'tool') continue;
    for (const dispatcher of dispatchers) {
      handlers.push({ kind: 'dispatch', tool: tool.name, module: dispatcher.module, definition: dispatcher.definition, parameters: tool.parameters });
      tool.handlerId ??= handlerId(dispatcher.module, dispatcher.definition, tool.name);
    }
  }
  return { tools, handlers };
}

/** The `Tool(...)`/`Prompt(...)`/`Resource(...)` calls in a list handler, including those in a module constant it returns. */
function listedDefinitions(program: PyProgram, module: PyModule, definition: Node): ToolDefinition[] {
  const scopes: Node[] = [definition];
  for (const statement of definition.descendantsOfType('return_statement')) {
    const value = statement?.namedChildren[0];
    if (value?.type === 'identifier' && module.constants.has(value.text)) scopes.push(module.constants.get(value.text)!);
  }
  const result: ToolDefinition[] = [];
  for (const scope of scopes) {
    for (const call of scope.descendantsOfType('call')) {
      if (!call) continue;
      const callee = dottedName(call.childForFieldName('function'))?.split('.').pop() ?? '';
      const kind = LISTED_KINDS[callee];
      if (!kind) continue;
      const tool = listedDefinition(program, module, call, kind);
      if (tool) result.push(tool);
    }
  }
  return result;
}

function listedDefinition(program: PyProgram, module: PyModule, call: Node, kind: ToolDefinition['kind']): ToolDefinition | undefined {
  const args = callArguments(call);
  const keyword = (key: string) => resolveConstant(module, args.keywords.get(key));
  const name = stringValue(keyword('name'));
  if (!name) return undefined;
  const tool: ToolDefinition = {
    kind,
    name,
    parameters: [],
    location: location(module.path, call),
    extractor: 'python-lowlevel',
  };
  const description = stringValue(keyword('description'));
  if (description) tool.description = description;
  const title = stringValue(keyword('title'));
  if (title) tool.title = title;
  const annotations = annotationsOf(keyword('annotations'));
  if (annotations) tool.annotations = annotations;
  const uri = stringValue(keyword('uri') ?? keyword('uriTemplate'));
  if (uri) tool.uri = uri;
  if (kind === 'tool') {
    const schemaNode = keyword('inputSchema') ?? keyword('input_schema');
    const schema = literalValue(schemaNode);
    if (schema !== undefined) tool.parameters = schemaParameters(schema);
    else if (schemaNode) tool.parameters = modelSchemaParameters(program, module, schemaNode);
  } else if (kind === 'prompt') {
    tool.parameters = promptArguments(module, keyword('arguments'));
  }
  return tool;
}

function isObject(value: Literal | undefined): value is { [key: string]: Literal } {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** JSON-schema `properties` → parameters (type, description, enum, pattern, format, default, required). */
export function schemaParameters(schema: Literal): ToolParameter[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((item): item is string => typeof item === 'string') : []);
  return Object.entries(schema.properties).map(([name, property]) => {
    const parameter: ToolParameter = { name, required: required.has(name) };
    if (!isObject(property)) return parameter;
    if (typeof property.type === 'string') parameter.type = property.type;
    else if (Array.isArray(property.type)) parameter.type = property.type.join(' | ');
    if (typeof property.description === 'string') parameter.description = property.description;
    if (Array.isArray(property.enum)) parameter.enum = property.enum.map((value) => (typeof value === 'string' ? value : JSON.stringify(value)));
    if (typeof property.pattern === 'string') parameter.pattern = property.pattern;
    if (typeof property.format === 'string') parameter.format = property.format;
    if (property.default !== undefined) parameter.default = property.default;
    return parameter;
  });
}

function promptArguments(module: PyModule, node: Node | undefined): ToolParameter[] {
  if (!node || (node.type !== 'list' && node.type !== 'tuple')) return [];
  const parameters: ToolParameter[] = [];
  for (const item of node.namedChildren) {
    if (item?.type !== 'call') continue;
    const args = callArguments(item);
    const name = stringValue(resolveConstant(module, args.keywords.get('name')));
    if (!name) continue;
    const parameter: ToolParameter = { name, required: literalValue(args.keywords.get('required')) === true };
    const description = stringValue(resolveConstant(module, args.keywords.get('description')));
    if (description) parameter.description = description;
    parameters.push(parameter);
  }
  return parameters;
}

/** `inputSchema=Model.model_json_schema()` (or pydantic v1 `Model.schema()`) with the model defined in the package. */
function modelSchemaParameters(program: PyProgram, module: PyModule, node: Node): ToolParameter[] {
  if (node.type !== 'call') return [];
  const callee = dottedName(node.childForFieldName('function'));
  const match = callee ? /^(\w+)\.(model_json_schema|schema)$/.exec(callee) : null;
  if (!match) return [];
  const className = match[1]!;
  const local = module.classes.get(className);
  if (local) return modelFields(module, local);
  const binding = module.imports.get(className);
  if (!binding?.name) return [];
  const target = program.resolveModule(module, binding.module, binding.level);
  const imported = target?.classes.get(binding.name);
  return target && imported ? modelFields(target, imported) : [];
}
