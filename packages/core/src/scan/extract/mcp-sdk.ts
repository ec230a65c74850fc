// Static extraction of tools, prompts, resources and instructions declared with @modelcontextprotocol/sdk, from the
// oxc AST of one file: the high-level McpServer API (registerTool/tool/…), the low-level Server with
// setRequestHandler(ListTools…), and the same shapes after tsc/esbuild compiled them to CommonJS.
import type { AstNode } from '../analysis/javascript/ast.js';
import { dottedName, isFunction, locationOf, memberName, objectProperty, unwrap, walk } from '../analysis/javascript/ast.js';
import type { FileIndex, StaticValue } from '../analysis/javascript/file-index.js';
import { staticString, staticValue } from '../analysis/javascript/file-index.js';
import { looksLikeSchema, parametersFromSchema } from '../analysis/javascript/schema.js';
import type { ExtractorId, ToolDefinition, ToolParameter } from '../model.js';

/** A tool's handler function, for the dataflow pass: `argsParam` is the index of the parameter holding the tool input. */
export interface ToolHandler {
  node: AstNode;
  tool: ToolDefinition;
  argsParam: number;
}

export interface Extraction {
  tools: ToolDefinition[];
  handlers: ToolHandler[];
  /** Low-level `setRequestHandler(CallToolRequestSchema, fn)` functions, which dispatch on `request.params.name`. */
  dispatchers: AstNode[];
}

export function emptyExtraction(): Extraction {
  return { tools: [], handlers: [], dispatchers: [] };
}

export function handlerIdOf(index: FileIndex, node: AstNode): string {
  return `${index.parsed.file.path}:${node.start}`;
}

interface Declared {
  kind: ToolDefinition['kind'];
  nameNode: AstNode;
  name: string;
  extractor: ExtractorId;
  title?: string;
  description?: string;
  parameters?: ToolParameter[];
  annotations?: Record<string, unknown>;
  uri?: string;
  handler?: AstNode;
  argsParam?: number;
}

export function addDeclared(index: FileIndex, extraction: Extraction, declared: Declared): void {
  const tool: ToolDefinition = {
    kind: declared.kind,
    name: declared.name,
    parameters: declared.parameters ?? [],
    location: locationOf(index.parsed, declared.nameNode),
    extractor: declared.extractor,
  };
  if (declared.title !== undefined) tool.title = declared.title;
  if (declared.description !== undefined) tool.description = declared.description;
  if (declared.annotations !== undefined) tool.annotations = declared.annotations;
  if (declared.uri !== undefined) tool.uri = declared.uri;
  if (declared.handler) {
    tool.handlerId = handlerIdOf(index, declared.handler);
    extraction.handlers.push({ node: declared.handler, tool, argsParam: declared.argsParam ?? 0 });
  }
  extraction.tools.push(tool);
}

export function staticRecord(node: AstNode | undefined, index: FileIndex): Record<string, unknown> | undefined {
  const value = staticValue(node, index);
  return value && typeof value === 'object' && !Array.isArray(value) && !(value instanceof RegExp) ? value : undefined;
}

/** Follows a same-file variable to the function it holds, so `server.tool('x', schema, handleX)` finds handleX. */
export function resolveFunction(node: AstNode | undefined, index: FileIndex): AstNode | undefined {
  const current = unwrap(node);
  if (isFunction(current)) return current;
  if (current?.type === 'Identifier') return index.functions.get(current.name);
  if (current?.type === 'MemberExpression' && unwrap(current.object)?.type === 'ThisExpression') {
    const name = memberName(current);
    return name ? index.methods.get(name) : undefined;
  }
  if (current?.type === 'CallExpression') {
    // `handler.bind(this)`
    const callee = unwrap(current.callee);
    if (callee?.type === 'MemberExpression' && memberName(callee) === 'bind') return resolveFunction(callee.object, index);
  }
  return undefined;
}

function resourceUri(node: AstNode | undefined, index: FileIndex): string | undefined {
  const current = unwrap(node);
  if (current?.type === 'NewExpression') return staticString(current.arguments[0], index);
  return staticString(current, index);
}

function promptArguments(node: AstNode | undefined, index: FileIndex): ToolParameter[] {
  const value = staticValue(node, index);
  if (!Array.isArray(value)) return [];
  const parameters: ToolParameter[] = [];
  for (const item of value) {
    if (!item || typeof item !== 'object' || Array.isArray(item) || item instanceof RegExp) continue;
    if (typeof item.name !== 'string') continue;
    const parameter: ToolParameter = { name: item.name, required: item.required === true };
    if (typeof item.description === 'string') parameter.description = item.description;
    parameters.push(parameter);
  }
  return parameters;
}

/** Resolves what a ListTools handler returns to the element nodes of its `tools` array. */
function listedItems(handler: AstNode, key: string, index: FileIndex): AstNode[] {
  const returned: AstNode[] = [];
  if (handler.body.type !== 'BlockStatement') returned.push(handler.body);
  else {
    walk(handler.body, (node) => {
      if (node !== handler.body && isFunction(node)) return false;
      if (node.type === 'ReturnStatement' && node.argument) returned.push(node.argument);
      return true;
    });
  }
  const items: AstNode[] = [];
  for (const value of returned) {
    const object = resolveValue(value, index, 0);
    collectArray(objectProperty(object, key), index, items, 0);
  }
  return items;
}

function resolveValue(node: AstNode | undefined, index: FileIndex, depth: number): AstNode | undefined {
  const current = unwrap(node);
  if (!current || depth > 6) return current;
  if (current.type === 'AwaitExpression') return resolveValue(current.argument, index, depth + 1);
  if (current.type === 'Identifier') {
    const init = index.variables.get(current.name);
    return init ? resolveValue(init, index, depth + 1) : current;
  }
  if (current.type === 'CallExpression') {
    const fn = resolveFunction(current.callee, index);
    if (fn) {
      if (fn.body.type !== 'BlockStatement') return resolveValue(fn.body, index, depth + 1);
      const statement = fn.body.body.find((s: AstNode) => s.type === 'ReturnStatement' && s.argument);
      return statement ? resolveValue(statement.argument, index, depth + 1) : current;
    }
  }
  return current;
}

function collectArray(node: AstNode | undefined, index: FileIndex, out: AstNode[], depth: number): void {
  const current = resolveValue(node, index, depth);
  if (!current || depth > 6) return;
  if (current.type === 'ArrayExpression') {
    for (const element of current.elements) {
      if (!element) continue;
      if (element.type === 'SpreadElement') collectArray(element.argument, index, out, depth + 1);
      else {
        const item = resolveValue(element, index, depth + 1);
        if (item?.type === 'ObjectExpression') out.push(item);
      }
    }
  } else if (current.type === 'CallExpression') {
    // `Object.values(TOOLS)`, `[...].map(…)` are too dynamic beyond this one common case.
    const callee = dottedName(current.callee);
    if (callee === 'Object.values') {
      const object = resolveValue(current.arguments[0], index, depth + 1);
      if (object?.type === 'ObjectExpression') {
        for (const property of object.properties) {
          const item = property.type === 'Property' ? resolveValue(property.value, index, depth + 1) : undefined;
          if (item?.type === 'ObjectExpression') out.push(item);
        }
      }
    }
  }
}

function requestSchemaName(node: AstNode | undefined): string {
  const current = unwrap(node);
  if (current?.type === 'Identifier') return current.name;
  if (current?.type === 'MemberExpression') return memberName(current) ?? '';
  return '';
}

const HIGH_LEVEL_METHODS = new Set(['registerTool', 'tool', 'registerPrompt', 'prompt', 'registerResource', 'resource']);

/** A per-node visitor, so the analyzer can run every extractor and the fact finder in one walk over a file. */
export interface FileVisitor {
  enter(node: AstNode): void;
  finish(): void;
}

export function extractMcpSdk(index: FileIndex, extraction: Extraction = emptyExtraction()): Extraction {
  const visitor = mcpSdkVisitor(index, extraction);
  walk(index.parsed.program, (node) => visitor.enter(node));
  visitor.finish();
  return extraction;
}

export function mcpSdkVisitor(index: FileIndex, extraction: Extraction): FileVisitor {
  const enter = (node: AstNode): void => {
    if (node.type === 'NewExpression') {
      extractInstructions(node, index, extraction);
      return;
    }
    if (node.type !== 'CallExpression') return;
    const callee = unwrap(node.callee);
    if (callee?.type !== 'MemberExpression') return;
    const method = memberName(callee);
    if (!method) return;
    const args: AstNode[] = node.arguments;
    if (method === 'setRequestHandler') {
      extractLowLevel(args, index, extraction);
      return;
    }
    if (!HIGH_LEVEL_METHODS.has(method)) return;
    const nameNode = args[0];
    const name = staticString(nameNode, index);
    if (!nameNode || name === undefined || args.length < 2) return;
    const last = args[args.length - 1];
    const handler = resolveFunction(last, index);
    if (method === 'registerTool' || method === 'registerPrompt') {
      const config = unwrap(args[1]);
      if (config?.type !== 'ObjectExpression' && config?.type !== 'Identifier') return;
      const object = config.type === 'Identifier' ? unwrap(index.variables.get(config.name)) : config;
      const schema = objectProperty(object, method === 'registerTool' ? 'inputSchema' : 'argsSchema');
      const declared: Declared = {
        kind: method === 'registerTool' ? 'tool' : 'prompt',
        nameNode,
        name,
        extractor: 'mcp-sdk',
        parameters: parametersFromSchema(schema, index),
        argsParam: schema ? 0 : -1,
      };
      const title = staticString(objectProperty(object, 'title'), index);
      if (title !== undefined) declared.title = title;
      const description = staticString(objectProperty(object, 'description'), index);
      if (description !== undefined) declared.description = description;
      const annotations = staticRecord(objectProperty(object, 'annotations'), index);
      if (annotations) declared.annotations = annotations;
      if (handler) declared.handler = handler;
      addDeclared(index, extraction, declared);
      return;
    }
    if (method === 'tool' || method === 'prompt') {
      if (!handler) return;
      const middle = args.slice(1, -1);
      const declared: Declared = { kind: method, nameNode, name, extractor: 'mcp-sdk', handler, argsParam: -1 };
      let position = 0;
      const description = staticString(middle[0], index);
      if (description !== undefined) {
        declared.description = description;
        position = 1;
      }
      const first = middle[position];
      if (first && looksLikeSchema(first, index)) {
        declared.parameters = parametersFromSchema(first, index);
        declared.argsParam = 0;
        position++;
      }
      const annotations = staticRecord(middle[position], index);
      if (annotations) declared.annotations = annotations;
      addDeclared(index, extraction, declared);
      return;
    }
    // resource(name, uri, [metadata], cb) / registerResource(name, uri, metadata, cb)
    const uri = resourceUri(args[1], index);
    if (uri === undefined || !handler) return;
    const metadata = args.length > 3 ? staticRecord(args[2], index) : undefined;
    const declared: Declared = { kind: 'resource', nameNode, name, extractor: 'mcp-sdk', uri, argsParam: -1, handler };
    if (typeof metadata?.title === 'string') declared.title = metadata.title;
    if (typeof metadata?.description === 'string') declared.description = metadata.description;
    addDeclared(index, extraction, declared);
  };
  const finish = (): void => {
    // Low-level tools have no handler of their own: the CallTool dispatcher of their file handles them all.
    const dispatcher = extraction.dispatchers[0];
    if (!dispatcher) return;
    for (const tool of extraction.tools) {
      if (tool.extractor === 'mcp-sdk-lowlevel' && tool.kind === 'tool' && !tool.handlerId) tool.handlerId = handlerIdOf(index, dispatcher);
    }
  };
  return { enter, finish };
}

const SERVER_CLASSES = /^(McpServer|Server)$/;

function extractInstructions(node: AstNode, index: FileIndex, extraction: Extraction): void {
  const callee = unwrap(node.callee);
  const className = callee?.type === 'Identifier' ? callee.name : callee?.type === 'MemberExpression' ? memberName(callee) : undefined;
  if (!className || !SERVER_CLASSES.test(className)) return;
  const info = unwrap(node.arguments[0]);
  const options = unwrap(node.arguments[1]);
  const instructionsNode = objectProperty(options, 'instructions');
  const instructions = staticString(instructionsNode, index);
  if (instructions === undefined || !instructionsNode) return;
  const serverName = staticString(objectProperty(info, 'name'), index) ?? 'server';
  addDeclared(index, extraction, {
    kind: 'instructions',
    nameNode: instructionsNode,
    name: serverName,
    description: instructions,
    extractor: 'mcp-sdk',
  });
}

function extractLowLevel(args: AstNode[], index: FileIndex, extraction: Extraction): void {
  const schemaName = requestSchemaName(args[0]);
  const handler = resolveFunction(args[1], index);
  if (!handler) return;
  if (/CallTool/.test(schemaName)) {
    extraction.dispatchers.push(handler);
    return;
  }
  const listed = /ListTools/.test(schemaName) ? 'tools' : /ListPrompts/.test(schemaName) ? 'prompts' : undefined;
  if (!listed) return;
  for (const item of listedItems(handler, listed, index)) {
    const nameNode = objectProperty(item, 'name');
    const name = staticString(nameNode, index);
    if (!nameNode || name === undefined) continue;
    const declared: Declared = {
      kind: listed === 'tools' ? 'tool' : 'prompt',
      nameNode,
      name,
      extractor: 'mcp-sdk-lowlevel',
      parameters:
        listed === 'tools'
          ? parametersFromSchema(objectProperty(item, 'inputSchema'), index)
          : promptArguments(objectProperty(item, 'arguments'), index),
    };
    const title = staticString(objectProperty(item, 'title'), index);
    if (title !== undefined) declared.title = title;
    const description = staticString(objectProperty(item, 'description'), index);
    if (description !== undefined) declared.description = description;
    const annotations = staticRecord(objectProperty(item, 'annotations'), index);
    if (annotations) declared.annotations = annotations as Record<string, StaticValue>;
    addDeclared(index, extraction, declared);
  }
}
