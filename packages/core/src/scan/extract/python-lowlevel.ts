// Tools of servers built on the low-level `mcp.server.Server`: the `types.Tool(...)` values a `@server.list_tools()`
// handler returns, and the branches of the `@server.call_tool()` dispatcher that implement each of them.
import type { ToolDefinition, ToolParameter } from '../model.js';
import {
  bindsInstance,
  classConstant,
  handlerId,
  resolveConstant,
  type PyExtraction,
  type PyHandler,
  type PyModule,
  type PyProgram,
} from '../analysis/python/program.js';
import { callArguments, dottedName, literalValue, location, stringValue, type Literal, type Node } from '../analysis/python/syntax.js';
import { annotationsOf, modelFields } from './python-fastmcp.js';
import { resolveText } from './python-text.js';
import { upperBound } from '../analysis/catalog.js';

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
  const dispatchers: Array<{ module: PyModule; definition: Node; inputs: PyHandler['inputs'] }> = [];

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
        if (match[2] === 'call_tool') dispatchers.push({ module, definition, inputs: 'name-and-arguments' });
      }
    }
    // SDK v2: `Server("name", on_list_tools=list_tools, on_call_tool=call_tool)`, handlers taking `(ctx, params)`.
    if (!/\bon_(list_tools|call_tool|list_prompts|list_resources)\s*=/.test(module.file.text ?? '')) continue;
    for (const call of module.root.descendantsOfType('call')) {
      if (!call || !isServerConstructor(call)) continue;
      const keywords = callArguments(call).keywords;
      for (const [keyword, value] of keywords) {
        const handler = /^on_(\w+)$/.exec(keyword)?.[1];
        const target = handler ? program.resolveFunction(module, value) : undefined;
        if (!handler || !target) continue;
        if (LIST_DECORATORS.has(handler)) tools.push(...listedDefinitions(program, target.module, target.definition));
        if (handler === 'call_tool') dispatchers.push({ ...target, inputs: 'request' });
      }
    }
  }

  return { tools, handlers: dispatchHandlers(tools, dispatchers) };
}

/** One handler per tool and dispatcher: the walk of the dispatcher that enters only that tool's branches. */
export function dispatchHandlers(
  tools: ToolDefinition[],
  dispatchers: ReadonlyArray<{ module: PyModule; definition: Node; inputs: PyHandler['inputs']; messages?: string[] }>,
): PyHandler[] {
  const handlers: PyHandler[] = [];
  const names = new Set(tools.filter((tool) => tool.kind === 'tool').map((tool) => tool.name));
  for (const dispatcher of dispatchers) {
    const subject = dispatchSubject(dispatcher.module, dispatcher.definition, names);
    for (const tool of tools) {
      if (tool.kind !== 'tool') continue;
      handlers.push({
        kind: 'dispatch',
        tool: tool.name,
        module: dispatcher.module,
        definition: dispatcher.definition,
        parameters: tool.parameters,
        ...(dispatcher.inputs && { inputs: dispatcher.inputs }),
        ...(dispatcher.messages?.length && { messages: dispatcher.messages }),
        ...(subject && { nameExpression: subject }),
      });
      tool.handlerId ??= handlerId(dispatcher.module, dispatcher.definition, tool.name);
    }
  }
  return handlers;
}

/**
 * The expression a dispatcher compares with the tool names (`name`, `params.name`, `req["params"]["name"]`): the
 * operand of `== "tool"` / `in (...)`, the subject of `match`, or the key of a lookup in a table keyed by tool name.
 * The most frequent one wins; undefined when the function never compares with a tool name.
 */
export function dispatchSubject(module: PyModule, definition: Node, toolNames: ReadonlySet<string>): string | undefined {
  const counts = new Map<string, number>();
  const count = (node: Node | null | undefined) => {
    if (node) counts.set(node.text, (counts.get(node.text) ?? 0) + 1);
  };
  const isToolName = (node: Node | null | undefined): boolean => {
    const value = stringValue(node?.type === 'dotted_name' ? classConstant(module, node.text) : resolveConstant(module, node ?? undefined));
    return value !== undefined && toolNames.has(value);
  };
  for (const comparison of definition.descendantsOfType('comparison_operator')) {
    const [left, right] = comparison?.namedChildren ?? [];
    if (!left || !right) continue;
    if (isToolName(right) || ((right.type === 'tuple' || right.type === 'list' || right.type === 'set') && right.namedChildren.some(isToolName))) count(left);
    else if (isToolName(left)) count(right);
  }
  for (const statement of definition.descendantsOfType('match_statement')) {
    const cases = statement?.descendantsOfType('case_pattern') ?? [];
    const named = cases.some((pattern) => pattern?.descendantsOfType('string').some(isToolName) || pattern?.descendantsOfType('dotted_name').some(isToolName));
    if (named) count(statement?.childForFieldName('subject'));
  }
  const isTable = (node: Node | null | undefined): boolean => {
    const table = resolveConstant(module, node ?? undefined);
    return table?.type === 'dictionary' && table.namedChildren.some((pair) => isToolName(pair?.childForFieldName('key')));
  };
  for (const subscript of definition.descendantsOfType('subscript')) {
    if (isTable(subscript?.childForFieldName('value'))) count(subscript?.childForFieldName('subscript'));
  }
  for (const call of definition.descendantsOfType('call')) {
    const callee = call?.childForFieldName('function');
    if (callee?.type === 'attribute' && callee.childForFieldName('attribute')?.text === 'get' && isTable(callee.childForFieldName('object'))) count(callArguments(call!).positional[0]);
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
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
  const description = resolveText(module, args.keywords.get('description'));
  if (description.text) tool.description = description.text;
  if (description.source) tool.descriptionSource = description.source;
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
    const maximum = upperBound((key) => property[key]);
    if (maximum !== undefined) parameter.maximum = maximum;
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
