// Tools of hand-written JSON-RPC servers without an SDK: a table of tool dicts (`{"name": …, "description": …,
// "inputSchema": {…}}`) answered to `tools/list`, and a function that compares the requested name with those names to
// run `tools/call`. That function is walked once per tool like a low-level dispatcher, with its parameters taken as
// (parts of) the request, and so the messages it parses itself (a loop over stdin).
import type { ToolDefinition } from '../model.js';
import { type PyExtraction, type PyModule, type PyProgram } from '../analysis/python/program.js';
import { callArguments, literalValue, location, stringValue, type Literal, type Node } from '../analysis/python/syntax.js';
import { dispatchHandlers, dispatchSubject, schemaParameters } from './python-lowlevel.js';

const SCHEMA_KEYS = ['inputSchema', 'input_schema', 'parameters'];

function isObject(value: Literal | undefined): value is { [key: string]: Literal } {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `[{"name": "x", "description": "…", "inputSchema": {…}}, …]` or a dict of such dicts keyed by name. */
function toolTable(module: PyModule, value: Node): ToolDefinition[] {
  if (value.type !== 'list' && value.type !== 'tuple' && value.type !== 'dictionary') return [];
  const entries = value.type === 'dictionary' ? value.namedChildren.map((pair) => pair?.childForFieldName('value')) : value.namedChildren;
  const tools: ToolDefinition[] = [];
  for (const entry of entries) {
    if (entry?.type !== 'dictionary') continue;
    const literal = literalValue(entry);
    if (!isObject(literal) || typeof literal.name !== 'string') continue;
    const schemaKey = SCHEMA_KEYS.find((key) => key in literal);
    if (!schemaKey && typeof literal.description !== 'string') continue;
    const tool: ToolDefinition = {
      kind: 'tool',
      name: literal.name,
      parameters: schemaKey ? schemaParameters(literal[schemaKey]!) : [],
      location: location(module.path, entry),
      extractor: 'python-jsonrpc',
    };
    if (typeof literal.description === 'string') tool.description = literal.description;
    if (isObject(literal.annotations)) tool.annotations = literal.annotations;
    tools.push(tool);
  }
  // A table of one entry with a schema is a tool table only beside the tools/call method name (checked by the caller).
  return tools.length === entries.length || tools.length >= 2 ? tools : [];
}

/**
 * The names a function reads a JSON-RPC method from (`msg["method"]`, `msg.get("method")`): the messages it parses
 * itself (`for line in sys.stdin: msg = json.loads(line)`) when no parameter brings it the request.
 */
function messageNames(definition: Node): string[] {
  const names = new Set<string>();
  for (const subscript of definition.descendantsOfType('subscript')) {
    const value = subscript?.childForFieldName('value');
    if (value?.type === 'identifier' && stringValue(subscript?.childForFieldName('subscript')) === 'method') names.add(value.text);
  }
  for (const call of definition.descendantsOfType('call')) {
    const callee = call?.childForFieldName('function');
    const object = callee?.type === 'attribute' && callee.childForFieldName('attribute')?.text === 'get' ? callee.childForFieldName('object') : undefined;
    if (object?.type === 'identifier' && stringValue(callArguments(call!).positional[0]) === 'method') names.add(object.text);
  }
  return [...names];
}

export function extractJsonRpc(program: PyProgram): PyExtraction {
  const tools: ToolDefinition[] = [];
  const dispatchers: Array<{ module: PyModule; definition: Node; inputs: 'request' | 'name-and-arguments'; messages?: string[] }> = [];
  for (const module of program.modules) {
    const text = module.file.text ?? '';
    // The method names of the protocol, written by hand: no SDK registers them for this file.
    if (!/["']tools\/call["']/.test(text) || !/["']tools\/list["']/.test(text)) continue;
    const found: ToolDefinition[] = [];
    for (const [, value] of module.constants) found.push(...toolTable(module, value));
    if (found.length === 0) continue;
    tools.push(...found);
    const names = new Set(found.map((tool) => tool.name));
    for (const definition of [...module.functions.values(), ...module.methods.values()]) {
      if (dispatchSubject(module, definition, names) === undefined) continue;
      dispatchers.push({ module, definition, inputs: 'request', messages: messageNames(definition) });
    }
  }
  return { tools, handlers: dispatchHandlers(tools, dispatchers) };
}
