// Tool definitions written as plain objects, wherever they end up: a low-level tool table (`{ name, description,
// inputSchema }` served by a ListTools handler or a JSON-RPC loop), `defineTool({...})`/`createTool({...})` helpers,
// `getTools()` registries and tool files registered in a loop (`for (const t of getTools()) server.registerTool(t.name,
// …)`), where the registration call names nothing static but the object is still what the model sees.
// A description set after definition (`tool.description = …`, `tool.update({ description })`) replaces the literal one.
import type { AstNode } from '../analysis/javascript/ast.js';
import { dottedName, memberName, objectProperty, unwrap } from '../analysis/javascript/ast.js';
import type { FileIndex } from '../analysis/javascript/file-index.js';
import { staticString } from '../analysis/javascript/file-index.js';
import { parametersFromSchema } from '../analysis/javascript/schema.js';
import type { Extraction, FileVisitor } from './mcp-sdk.js';
import { addDeclared, staticRecord } from './mcp-sdk.js';
import { toolObjectHandler } from './tool-maps.js';

/** `defineTool`, `createTool`, `makeTool`, `buildMcpTool`: helpers whose argument is one tool's definition. */
const TOOL_FACTORY = /^(define|create|make|build|register|new)\w*Tool$/i;
const LIST_SCHEMA_KEYS = ['inputSchema', 'input_schema'];
const SCHEMA_KEYS = [...LIST_SCHEMA_KEYS, 'parameters', 'schema'];

function firstProperty(object: AstNode, keys: readonly string[]): AstNode | undefined {
  for (const key of keys) {
    const value = objectProperty(object, key);
    if (value) return value;
  }
  return undefined;
}

function calleeName(node: AstNode): string | undefined {
  const callee = unwrap(node.callee);
  return callee?.type === 'Identifier' ? callee.name : callee?.type === 'MemberExpression' ? memberName(callee) : undefined;
}

export function toolObjectVisitor(index: FileIndex, extraction: Extraction): FileVisitor {
  const candidates: AstNode[] = [];
  const fromFactory = new Set<AstNode>();
  /** The variable a definition is kept in (`const deployTool = defineTool({...})`), for later description changes. */
  const holders = new Map<AstNode, string>();
  /** `deployTool.description = …` and `deployTool.update({ description: … })`, last one wins. */
  const laterDescriptions = new Map<string, AstNode>();

  const definitionOf = (node: AstNode | undefined): AstNode | undefined => {
    const current = unwrap(node);
    if (current?.type === 'ObjectExpression') return current;
    if (current?.type === 'CallExpression' && TOOL_FACTORY.test(calleeName(current) ?? '')) return unwrap(current.arguments[0]);
    return undefined;
  };

  const enter = (node: AstNode): void => {
    if (node.type === 'ObjectExpression') {
      if (objectProperty(node, 'name') && objectProperty(node, 'description')) candidates.push(node);
    } else if (node.type === 'CallExpression') {
      const name = calleeName(node);
      const argument = unwrap(node.arguments[0]);
      if (argument?.type === 'ObjectExpression' && TOOL_FACTORY.test(name ?? '')) fromFactory.add(argument);
      // `tool.update({ description: '…' })` (the SDK's RegisteredTool, most registries)
      const callee = unwrap(node.callee);
      const description = name === 'update' && argument?.type === 'ObjectExpression' ? objectProperty(argument, 'description') : undefined;
      if (description && callee?.type === 'MemberExpression' && unwrap(callee.object)?.type === 'Identifier') {
        laterDescriptions.set(unwrap(callee.object)!.name, description);
      }
    } else if (node.type === 'VariableDeclarator' && node.id.type === 'Identifier') {
      const definition = definitionOf(node.init);
      if (definition) holders.set(definition, node.id.name);
    } else if (node.type === 'AssignmentExpression' && node.operator === '=') {
      const target = unwrap(node.left);
      if (target?.type === 'MemberExpression' && memberName(target) === 'description' && unwrap(target.object)?.type === 'Identifier') {
        laterDescriptions.set(unwrap(target.object)!.name, node.right);
      } else if (target?.type === 'MemberExpression' && dottedName(target) === 'module.exports') {
        const definition = definitionOf(node.right);
        if (definition && !holders.has(definition)) holders.set(definition, 'module.exports');
      }
    }
  };

  const declare = (object: AstNode): void => {
    const nameNode = objectProperty(object, 'name');
    const name = staticString(nameNode, index);
    if (!nameNode || name === undefined) return;
    const handler = toolObjectHandler(object, index);
    const listed = firstProperty(object, LIST_SCHEMA_KEYS) !== undefined;
    const schema = firstProperty(object, SCHEMA_KEYS);
    // A tool table entry (`inputSchema`) is a tool even without its function; anything else must run something and
    // declare its input or come out of a tool factory, so `{ name, description }` records of other kinds stay out.
    if (!listed && !(handler && (schema || fromFactory.has(object)))) return;
    const holder = holders.get(object);
    const later = holder === undefined ? undefined : laterDescriptions.get(holder);
    const descriptionNode = later ?? objectProperty(object, 'description');
    const description = staticString(descriptionNode, index);
    // A table entry whose description is not a constant is someone else's data (a test table, a response), not a tool.
    if (listed && !handler && description === undefined) return;
    const title = staticString(objectProperty(object, 'title'), index);
    const annotations = staticRecord(objectProperty(object, 'annotations'), index);
    extraction.consumed.add(object);
    addDeclared(index, extraction, {
      kind: 'tool',
      nameNode,
      name,
      extractor: handler ? 'tool-map' : 'mcp-sdk-lowlevel',
      parameters: parametersFromSchema(schema, index),
      ...(description !== undefined ? { description } : descriptionNode ? { descriptionNode } : {}),
      ...(title !== undefined && { title }),
      ...(annotations && { annotations }),
      ...(handler && { handler }),
      argsParam: 0,
    });
  };

  // Read after the walk: the framework shapes mark the objects they already read as consumed while walking.
  const finish = (): void => {
    for (const object of candidates) if (!extraction.consumed.has(object)) declare(object);
  };
  return { enter, finish };
}
