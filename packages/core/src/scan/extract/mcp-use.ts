// Static extraction for `mcp-use` servers (`import { MCPServer } from 'mcp-use/server'`): a definition object per tool,
// prompt or resource, `server.tool({ name, title, description, schema: z.object({...}) | inputs: [...], annotations,
// cb }, callback?)`, where the callback is the second argument or the object's `cb` and takes `(params, ctx)`.
import type { AstNode } from '../analysis/javascript/ast.js';
import { memberName, objectProperty, unwrap } from '../analysis/javascript/ast.js';
import type { FileIndex } from '../analysis/javascript/file-index.js';
import { resolveExpression, staticString } from '../analysis/javascript/file-index.js';
import { parametersFromSchema } from '../analysis/javascript/schema.js';
import { promptArguments } from './fastmcp-ts.js';
import type { Extraction, FileVisitor } from './mcp-sdk.js';
import { addDeclared, resolveFunction, staticRecord } from './mcp-sdk.js';

const KINDS: Record<string, 'tool' | 'prompt' | 'resource'> = { tool: 'tool', prompt: 'prompt', resource: 'resource' };
/** Where each kind keeps its callback in the definition object. */
const CALLBACK_KEYS = ['cb', 'readCallback', 'callback'];

function declareDefinition(kind: 'tool' | 'prompt' | 'resource', args: AstNode[], index: FileIndex, extraction: Extraction): void {
  const { node: definition, index: definitionIndex } = resolveExpression(args[0], index);
  if (definition?.type !== 'ObjectExpression' || extraction.consumed.has(definition)) return;
  const nameNode = objectProperty(definition, 'name');
  const name = staticString(nameNode, definitionIndex);
  if (!nameNode || name === undefined) return;
  const callback = args[1] ?? CALLBACK_KEYS.map((key) => objectProperty(definition, key)).find((value) => value !== undefined);
  const handler = resolveFunction(callback, args[1] ? index : definitionIndex);
  // Without a callback the object is not a registration of this API (the SDK's `tool(name, …)` takes a string).
  if (!handler && kind !== 'resource') return;
  extraction.consumed.add(definition);
  const descriptionNode = objectProperty(definition, 'description');
  const description = staticString(descriptionNode, definitionIndex);
  const title = staticString(objectProperty(definition, 'title'), definitionIndex);
  const annotations = staticRecord(objectProperty(definition, 'annotations'), definitionIndex);
  const uri = staticString(objectProperty(definition, kind === 'resource' ? 'uri' : 'uriTemplate'), definitionIndex);
  const schema = objectProperty(definition, 'schema');
  const parameters = schema
    ? parametersFromSchema(schema, definitionIndex)
    : promptArguments(objectProperty(definition, kind === 'prompt' ? 'args' : 'inputs'), definitionIndex);
  addDeclared(definitionIndex, extraction, {
    kind,
    nameNode,
    name,
    extractor: 'mcp-use',
    parameters,
    ...(title !== undefined && { title }),
    ...(description !== undefined ? { description } : descriptionNode ? { descriptionNode } : {}),
    ...(annotations && { annotations }),
    ...(uri !== undefined && { uri }),
    ...(handler && { handler }),
    argsParam: kind === 'resource' ? -1 : 0,
  });
}

export function mcpUseVisitor(index: FileIndex, extraction: Extraction): FileVisitor {
  const enter = (node: AstNode): void => {
    if (node.type !== 'CallExpression') return;
    const callee = unwrap(node.callee);
    const kind = callee?.type === 'MemberExpression' ? KINDS[memberName(callee) ?? ''] : undefined;
    if (kind && node.arguments.length >= 1 && node.arguments.length <= 2) declareDefinition(kind, node.arguments, index, extraction);
  };
  return { enter, finish: () => undefined };
}
