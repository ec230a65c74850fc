// Static extraction of tools, prompts, resources and instructions declared with @modelcontextprotocol/sdk, from the
// oxc AST of one file: the high-level McpServer API (registerTool/tool/…), the low-level Server with
// setRequestHandler(ListTools…), and the same shapes after tsc/esbuild compiled them to CommonJS.
import type { AstNode } from '../analysis/javascript/ast.js';
import { dottedName, isFunction, locationOf, memberName, objectProperty, unwrap, walk } from '../analysis/javascript/ast.js';
import type { FileIndex, StaticValue } from '../analysis/javascript/file-index.js';
import { functionOwners, lookupBinding, lookupNamespaceMember, resolveExpression, staticString, staticValue } from '../analysis/javascript/file-index.js';
import { looksLikeSchema, parametersFromSchema } from '../analysis/javascript/schema.js';
import type { ExtractorId, ToolDefinition, ToolParameter } from '../model.js';
import { linkDispatchTables } from './dispatch.js';
import { extractJsonRpcDispatchers } from './json-rpc.js';

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
  /** Object literals already read as a tool, prompt or resource (so the tool-object fallback skips them). */
  consumed: Set<AstNode>;
}

export function emptyExtraction(): Extraction {
  return { tools: [], handlers: [], dispatchers: [], consumed: new Set() };
}

export function handlerIdOf(index: FileIndex, node: AstNode): string {
  return `${(functionOwners.get(node) ?? index).parsed.file.path}:${node.start}`;
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
  /** The description expression when it is not a constant: checked for a value fetched at run time. */
  descriptionNode?: AstNode;
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
  if (declared.description === undefined && declared.descriptionNode && fetchedAtRunTime(declared.descriptionNode, index)) tool.descriptionSource = 'network';
  if (declared.handler) {
    tool.handlerId = handlerIdOf(index, declared.handler);
    extraction.handlers.push({ node: declared.handler, tool, argsParam: declared.argsParam ?? 0 });
  }
  extraction.tools.push(tool);
}

/** Request functions whose result is what a server sent. */
const NETWORK_MODULES = new Set(['fetch', 'axios', 'got', 'undici', 'http', 'ky', 'node-fetch']);

/**
 * Whether an expression is (or is read from) the answer of a network request: `remote.description` where
 * `const remote = await (await fetch(url)).json()`, `await fetchToolText()` of a helper that fetches.
 */
export function fetchedAtRunTime(node: AstNode, index: FileIndex, depth = 0): boolean {
  if (depth > 3) return false;
  let current = unwrap(node);
  while (current?.type === 'MemberExpression' || current?.type === 'AwaitExpression') current = unwrap(current.type === 'AwaitExpression' ? current.argument : current.object);
  if (!current) return false;
  if (current.type === 'Identifier') {
    const bound = lookupBinding(current.name, index);
    return bound !== undefined && bound.node !== current && fetchedAtRunTime(bound.node, bound.index, depth + 1);
  }
  let found = false;
  walk(current, (inner) => {
    if (found) return false;
    if (inner.type === 'CallExpression') {
      const callee = unwrap(inner.callee);
      const name = callee?.type === 'Identifier' ? callee.name : callee?.type === 'MemberExpression' ? memberName(callee) : undefined;
      const binding = callee?.type === 'Identifier' ? index.imports.get(callee.name) : callee?.type === 'MemberExpression' && unwrap(callee.object)?.type === 'Identifier' ? index.imports.get(unwrap(callee.object)!.name) : undefined;
      const module = binding?.source.replace(/^node:/, '');
      if (name === 'fetch' || (module !== undefined && NETWORK_MODULES.has(module.split('/')[0]!))) found = true;
      // A helper of this file that fetches (`await loadDescriptions()`).
      const helper = callee?.type === 'Identifier' ? index.functions.get(callee.name) : undefined;
      if (!found && helper && depth < 2) found = fetchedAtRunTime(helper.body ?? helper, index, depth + 1);
    }
    return !found;
  });
  return found;
}

export function staticRecord(node: AstNode | undefined, index: FileIndex): Record<string, unknown> | undefined {
  const value = staticValue(node, index);
  return value && typeof value === 'object' && !Array.isArray(value) && !(value instanceof RegExp) ? value : undefined;
}

/** Follows a same-file variable to the function it holds, so `server.tool('x', schema, handleX)` finds handleX. */
export function resolveFunction(node: AstNode | undefined, index: FileIndex): AstNode | undefined {
  const current = unwrap(node);
  if (isFunction(current)) return current;
  if (current?.type === 'Identifier') {
    const local = index.functions.get(current.name);
    if (local) return local;
    // A handler imported from another file of the package (`import { handleSearch } from './tools/search.js'`).
    const binding = index.imports.get(current.name);
    return binding && binding.imported !== '*' ? index.resolveImport?.(binding.source)?.exports.get(binding.imported) : undefined;
  }
  if (current?.type === 'MemberExpression' && unwrap(current.object)?.type === 'ThisExpression') {
    const name = memberName(current);
    return name ? index.methods.get(name) : undefined;
  }
  if (current?.type === 'MemberExpression' && unwrap(current.object)?.type === 'Identifier') {
    // `handlers.search` from `import * as handlers from './handlers.js'`
    const binding = index.imports.get(unwrap(current.object)?.name);
    const name = memberName(current);
    if (binding && (binding.imported === '*' || binding.imported === 'default') && name) return index.resolveImport?.(binding.source)?.exports.get(name);
  }
  if (current?.type === 'CallExpression') {
    // `handler.bind(this)`
    const callee = unwrap(current.callee);
    if (callee?.type === 'MemberExpression' && memberName(callee) === 'bind') return resolveFunction(callee.object, index);
  }
  return undefined;
}

function isCallbackLike(node: AstNode | undefined): boolean {
  const current = unwrap(node);
  return current?.type === 'Identifier' || current?.type === 'MemberExpression' || current?.type === 'CallExpression';
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

interface Located {
  node: AstNode;
  index: FileIndex;
}

type Locals = ReadonlyMap<string, AstNode>;
const NO_LOCALS: Locals = new Map();

/** Resolves what a ListTools handler returns to the element objects of its `tools` array, wherever they are written. */
function listedItems(handler: AstNode, key: string, index: FileIndex): Located[] {
  const { returned, locals } = returnedValues(handler);
  const items: Located[] = [];
  for (const value of returned) {
    const object = resolveValue(value, index, locals, 0);
    if (object?.node.type === 'ObjectExpression') collectArray(objectProperty(object.node, key), object.index, object.node === value ? locals : NO_LOCALS, items, 0);
  }
  return items;
}

/** The expressions a function returns and the variables it declares (for `const tools = [...]; return { tools }`). */
function returnedValues(fn: AstNode): { returned: AstNode[]; locals: Map<string, AstNode> } {
  const returned: AstNode[] = [];
  const locals = new Map<string, AstNode>();
  if (fn.body.type !== 'BlockStatement') returned.push(fn.body);
  else {
    walk(fn.body, (node) => {
      if (node !== fn.body && isFunction(node)) return false;
      if (node.type === 'ReturnStatement' && node.argument) returned.push(node.argument);
      if (node.type === 'VariableDeclarator' && node.id.type === 'Identifier' && node.init && !locals.has(node.id.name)) locals.set(node.id.name, node.init);
      return true;
    });
  }
  return { returned, locals };
}

function resolveValue(node: AstNode | undefined, index: FileIndex, locals: Locals, depth: number): Located | undefined {
  const current = unwrap(node);
  if (!current || depth > 8) return current ? { node: current, index } : undefined;
  if (current.type === 'AwaitExpression') return resolveValue(current.argument, index, locals, depth + 1);
  if (current.type === 'Identifier') {
    const local = locals.get(current.name);
    if (local) return resolveValue(local, index, locals, depth + 1);
    const bound = lookupBinding(current.name, index);
    return bound ? resolveValue(bound.node, bound.index, NO_LOCALS, depth + 1) : { node: current, index };
  }
  if (current.type === 'MemberExpression') {
    const imported = lookupNamespaceMember(current.object, memberName(current), index);
    if (imported) return resolveValue(imported.node, imported.index, NO_LOCALS, depth + 1);
  }
  if (current.type === 'CallExpression') {
    const fn = resolveFunction(current.callee, index);
    if (fn) {
      const { returned, locals: fnLocals } = returnedValues(fn);
      return returned[0] ? resolveValue(returned[0], index, fnLocals, depth + 1) : { node: current, index };
    }
  }
  return { node: current, index };
}

const ARRAY_PASSTHROUGH = new Set(['filter', 'slice', 'concat', 'sort', 'toSorted', 'reverse', 'flat']);

function collectArray(node: AstNode | undefined, index: FileIndex, locals: Locals, out: Located[], depth: number): void {
  if (depth > 8) return;
  const resolved = resolveValue(node, index, locals, depth);
  if (!resolved) return;
  const current = resolved.node;
  const scope = resolved.index === index ? locals : NO_LOCALS;
  if (current.type === 'ArrayExpression') {
    for (const element of current.elements) {
      if (!element) continue;
      if (element.type === 'SpreadElement') collectArray(element.argument, resolved.index, scope, out, depth + 1);
      else {
        const item = resolveValue(element, resolved.index, scope, depth + 1);
        if (item?.node.type === 'ObjectExpression') out.push(item);
      }
    }
  } else if (current.type === 'ConditionalExpression') {
    collectArray(current.consequent, resolved.index, scope, out, depth + 1);
    collectArray(current.alternate, resolved.index, scope, out, depth + 1);
  } else if (current.type === 'LogicalExpression') {
    collectArray(current.left, resolved.index, scope, out, depth + 1);
    collectArray(current.right, resolved.index, scope, out, depth + 1);
  } else if (current.type === 'CallExpression') {
    const callee = unwrap(current.callee);
    const method = callee?.type === 'MemberExpression' ? memberName(callee) : undefined;
    if (method && ARRAY_PASSTHROUGH.has(method)) {
      // `allTools.filter(isAllowed)`, `[...a].concat(b)`: the same tool objects, fewer or more of them.
      collectArray(callee?.object, resolved.index, scope, out, depth + 1);
      if (method === 'concat') for (const arg of current.arguments) collectArray(arg, resolved.index, scope, out, depth + 1);
    } else if (dottedName(current.callee) === 'Object.values') {
      const object = resolveValue(current.arguments[0], resolved.index, scope, depth + 1);
      if (object?.node.type === 'ObjectExpression') {
        for (const property of object.node.properties) {
          const item = property.type === 'Property' ? resolveValue(property.value, object.index, NO_LOCALS, depth + 1) : undefined;
          if (item?.node.type === 'ObjectExpression') out.push(item);
        }
      }
    }
  }
}

/** SDK v2 registers low-level handlers by method string (`'tools/call'`); v1 by schema object (`CallToolRequestSchema`). */
const METHOD_SCHEMAS: Record<string, string> = { 'tools/call': 'CallTool', 'tools/list': 'ListTools', 'prompts/list': 'ListPrompts' };

function requestSchemaName(node: AstNode | undefined, index: FileIndex): string {
  const current = unwrap(node);
  // A minifier renames the import (`import { CallToolRequestSchema as w }`): the imported name is the schema's.
  if (current?.type === 'Identifier') return index.imports.get(current.name)?.imported ?? current.name;
  if (current?.type === 'MemberExpression') return memberName(current) ?? '';
  const method = staticString(current, index);
  return method === undefined ? '' : (METHOD_SCHEMAS[method] ?? '');
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
      const resolvedConfig = resolveExpression(config, index);
      const object = resolvedConfig.node;
      const configIndex = resolvedConfig.index;
      const schema = objectProperty(object, method === 'registerTool' ? 'inputSchema' : 'argsSchema');
      const declared: Declared = {
        kind: method === 'registerTool' ? 'tool' : 'prompt',
        nameNode,
        name,
        extractor: 'mcp-sdk',
        parameters: parametersFromSchema(schema, configIndex),
        argsParam: schema ? 0 : -1,
      };
      const title = staticString(objectProperty(object, 'title'), configIndex);
      if (title !== undefined) declared.title = title;
      const descriptionNode = objectProperty(object, 'description');
      const description = staticString(descriptionNode, configIndex);
      if (description !== undefined) declared.description = description;
      else if (descriptionNode) declared.descriptionNode = descriptionNode;
      const annotations = staticRecord(objectProperty(object, 'annotations'), configIndex);
      if (annotations) declared.annotations = annotations;
      if (handler) declared.handler = handler;
      addDeclared(index, extraction, declared);
      return;
    }
    if (method === 'tool' || method === 'prompt') {
      // The callback comes last; when it cannot be resolved (a factory call, a dynamic import) the tool still counts.
      if (!handler && !(args.length >= 3 && isCallbackLike(last))) return;
      const middle = args.slice(1, -1);
      const declared: Declared = { kind: method, nameNode, name, extractor: 'mcp-sdk', argsParam: -1, ...(handler && { handler }) };
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
    if (uri === undefined || (!handler && !isCallbackLike(last))) return;
    const metadata = args.length > 3 ? staticRecord(args[2], index) : undefined;
    const declared: Declared = { kind: 'resource', nameNode, name, extractor: 'mcp-sdk', uri, argsParam: -1, ...(handler && { handler }) };
    if (typeof metadata?.title === 'string') declared.title = metadata.title;
    if (typeof metadata?.description === 'string') declared.description = metadata.description;
    addDeclared(index, extraction, declared);
  };
  const finish = (): void => {
    extractJsonRpcDispatchers(index, extraction);
    for (const dispatcher of extraction.dispatchers) linkDispatchTables(dispatcher, index, extraction);
    // Other low-level tools have no handler of their own: the CallTool dispatcher of their file handles them all.
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
  const schemaName = requestSchemaName(args[0], index);
  const handler = resolveFunction(args[1], index);
  if (!handler) return;
  if (/CallTool/.test(schemaName)) {
    extraction.dispatchers.push(handler);
    return;
  }
  const listed = /ListTools/.test(schemaName) ? 'tools' : /ListPrompts/.test(schemaName) ? 'prompts' : undefined;
  if (!listed) return;
  for (const { node: item, index: itemIndex } of listedItems(handler, listed, index)) {
    extraction.consumed.add(item);
    const nameNode = objectProperty(item, 'name');
    const name = staticString(nameNode, itemIndex);
    if (!nameNode || name === undefined) continue;
    const declared: Declared = {
      kind: listed === 'tools' ? 'tool' : 'prompt',
      nameNode,
      name,
      extractor: 'mcp-sdk-lowlevel',
      parameters:
        listed === 'tools'
          ? parametersFromSchema(objectProperty(item, 'inputSchema'), itemIndex)
          : promptArguments(objectProperty(item, 'arguments'), itemIndex),
    };
    const title = staticString(objectProperty(item, 'title'), itemIndex);
    if (title !== undefined) declared.title = title;
    const description = staticString(objectProperty(item, 'description'), itemIndex);
    if (description !== undefined) declared.description = description;
    const annotations = staticRecord(objectProperty(item, 'annotations'), itemIndex);
    if (annotations) declared.annotations = annotations as Record<string, StaticValue>;
    addDeclared(itemIndex, extraction, declared);
  }
}
