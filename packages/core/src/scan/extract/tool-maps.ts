// Tools handed to a server as a map or list of tool objects: `new MCPServer({ tools: { search: searchTool } })` (Mastra),
// `createServer({ tools: [readTool, writeTool] })`, where each tool is an object with a description, an input schema
// and the function that runs it (`createTool({ id, description, inputSchema, execute })` returns one). The key of the
// map, or the object's own `name`/`id`, is the name the model sees.
import type { AstNode } from '../analysis/javascript/ast.js';
import { isFunction, objectProperty, propertyName, unwrap } from '../analysis/javascript/ast.js';
import type { FileIndex } from '../analysis/javascript/file-index.js';
import { resolveExpression, staticString } from '../analysis/javascript/file-index.js';
import { parametersFromSchema } from '../analysis/javascript/schema.js';
import type { Extraction, FileVisitor } from './mcp-sdk.js';
import { addDeclared, resolveFunction, staticRecord } from './mcp-sdk.js';

const SCHEMA_KEYS = ['inputSchema', 'parameters', 'schema', 'input_schema'];
const RUN_KEYS = ['execute', 'handler', 'run', 'callback', 'cb'];

/** The tool object a map entry stands for: a literal, or what a factory like `createTool({...})` was given. */
function toolObject(node: AstNode | undefined, index: FileIndex): { object: AstNode; index: FileIndex } | undefined {
  const { node: value, index: valueIndex } = resolveExpression(node, index);
  if (value?.type === 'ObjectExpression') return { object: value, index: valueIndex };
  if (value?.type === 'CallExpression' && value.arguments.length === 1) {
    const argument = resolveExpression(value.arguments[0], valueIndex);
    if (argument.node?.type === 'ObjectExpression') return { object: argument.node, index: argument.index };
  }
  return undefined;
}

function firstProperty(object: AstNode, keys: readonly string[]): AstNode | undefined {
  for (const key of keys) {
    const value = objectProperty(object, key);
    if (value) return value;
  }
  return undefined;
}

/** The function a tool object runs: `{ execute }`, `{ handler: handleSearch }`, `{ run: helpers.run }`. */
export function toolObjectHandler(object: AstNode, index: FileIndex): AstNode | undefined {
  const run = firstProperty(object, RUN_KEYS);
  return isFunction(unwrap(run)) ? (unwrap(run) as AstNode) : resolveFunction(run, index);
}

/** Reads one tool object; `key` is its key in a `tools: { key: tool }` map. */
function declareTool(entry: AstNode | undefined, key: AstNode | undefined, index: FileIndex, extraction: Extraction): void {
  const found = toolObject(entry, index);
  if (!found || extraction.consumed.has(found.object)) return;
  const { object, index: objectIndex } = found;
  const descriptionNode = objectProperty(object, 'description');
  const description = staticString(descriptionNode, objectIndex);
  const handler = toolObjectHandler(object, objectIndex);
  // Without a description and something that runs, an object in a `tools` option is not a tool definition.
  if (!descriptionNode || !handler) return;
  const nameNode = objectProperty(object, 'name') ?? objectProperty(object, 'id') ?? key;
  const name = staticString(nameNode, objectIndex) ?? (key ? propertyName(key) : undefined);
  if (!nameNode || name === undefined) return;
  const schema = firstProperty(object, SCHEMA_KEYS);
  const annotations = staticRecord(objectProperty(object, 'annotations'), objectIndex);
  extraction.consumed.add(object);
  addDeclared(objectIndex, extraction, {
    kind: 'tool',
    nameNode,
    name,
    ...(description !== undefined ? { description } : { descriptionNode }),
    extractor: 'tool-map',
    parameters: parametersFromSchema(schema, objectIndex),
    ...(annotations && { annotations }),
    handler,
    argsParam: 0,
  });
}

export function toolMapVisitor(index: FileIndex, extraction: Extraction): FileVisitor {
  const enter = (node: AstNode): void => {
    if (node.type !== 'NewExpression' && node.type !== 'CallExpression') return;
    for (const argument of node.arguments as AstNode[]) {
      const options = unwrap(argument);
      if (options?.type !== 'ObjectExpression') continue;
      const tools = resolveExpression(objectProperty(options, 'tools'), index);
      if (tools.node?.type === 'ObjectExpression') {
        for (const property of tools.node.properties) {
          if (property.type === 'Property') declareTool(property.value, property.key, tools.index, extraction);
        }
      } else if (tools.node?.type === 'ArrayExpression') {
        for (const element of tools.node.elements) if (element && element.type !== 'SpreadElement') declareTool(element, undefined, tools.index, extraction);
      }
    }
  };
  return { enter, finish: () => undefined };
}
