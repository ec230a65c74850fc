// Static extraction for the `fastmcp` TypeScript framework: server.addTool({ name, description, parameters, execute }),
// addPrompt, addResource, addResourceTemplate and `new FastMCP({ instructions })`.
import type { AstNode } from '../analysis/javascript/ast.js';
import { memberName, objectProperty, unwrap, walk } from '../analysis/javascript/ast.js';
import type { FileIndex } from '../analysis/javascript/file-index.js';
import { staticString, staticValue } from '../analysis/javascript/file-index.js';
import { parametersFromSchema } from '../analysis/javascript/schema.js';
import type { ToolParameter } from '../model.js';
import type { Extraction, FileVisitor } from './mcp-sdk.js';
import { addDeclared, emptyExtraction, resolveFunction, staticRecord } from './mcp-sdk.js';

const KINDS: Record<string, 'tool' | 'prompt' | 'resource'> = {
  addTool: 'tool',
  addTools: 'tool',
  addPrompt: 'prompt',
  addResource: 'resource',
  addResourceTemplate: 'resource',
};

export function promptArguments(node: AstNode | undefined, index: FileIndex): ToolParameter[] {
  const value = staticValue(node, index);
  if (!Array.isArray(value)) return [];
  return value.flatMap((item): ToolParameter[] => {
    if (!item || typeof item !== 'object' || Array.isArray(item) || item instanceof RegExp || typeof item.name !== 'string') return [];
    const parameter: ToolParameter = { name: item.name, required: item.required === true };
    if (typeof item.description === 'string') parameter.description = item.description;
    if (Array.isArray(item.enum)) parameter.enum = item.enum.map(String);
    return [parameter];
  });
}

function objectOf(node: AstNode | undefined, index: FileIndex): AstNode | undefined {
  const current = unwrap(node);
  if (current?.type === 'Identifier') return unwrap(index.variables.get(current.name));
  return current;
}

export function extractFastMcp(index: FileIndex, extraction: Extraction = emptyExtraction()): Extraction {
  const visitor = fastMcpVisitor(index, extraction);
  walk(index.parsed.program, (node) => visitor.enter(node));
  return extraction;
}

export function fastMcpVisitor(index: FileIndex, extraction: Extraction): FileVisitor {
  const enter = (node: AstNode): void => {
    if (node.type === 'NewExpression') {
      const callee = unwrap(node.callee);
      const className = callee?.type === 'Identifier' ? callee.name : callee?.type === 'MemberExpression' ? memberName(callee) : undefined;
      if (className !== 'FastMCP') return;
      const options = objectOf(node.arguments[0], index);
      const instructionsNode = objectProperty(options, 'instructions');
      const instructions = staticString(instructionsNode, index);
      if (instructionsNode && instructions !== undefined) {
        addDeclared(index, extraction, {
          kind: 'instructions',
          nameNode: instructionsNode,
          name: staticString(objectProperty(options, 'name'), index) ?? 'server',
          description: instructions,
          extractor: 'fastmcp-ts',
        });
      }
      return;
    }
    if (node.type !== 'CallExpression') return;
    const callee = unwrap(node.callee);
    const method = callee?.type === 'MemberExpression' ? memberName(callee) : undefined;
    const kind = method ? KINDS[method] : undefined;
    if (!kind) return;
    const config = objectOf(node.arguments[0], index);
    if (config) extraction.consumed.add(config);
    if (config?.type !== 'ObjectExpression') return;
    const nameNode = objectProperty(config, 'name');
    const name = staticString(nameNode, index);
    if (!nameNode || name === undefined) return;
    const handler = resolveFunction(objectProperty(config, kind === 'tool' ? 'execute' : 'load'), index);
    const descriptionNode = objectProperty(config, 'description');
    const description = staticString(descriptionNode, index);
    const annotations = staticRecord(objectProperty(config, 'annotations'), index);
    const uri = staticString(objectProperty(config, kind === 'resource' && method === 'addResourceTemplate' ? 'uriTemplate' : 'uri'), index);
    const parameters =
      kind === 'tool'
        ? parametersFromSchema(objectProperty(config, 'parameters'), index)
        : promptArguments(objectProperty(config, 'arguments'), index);
    addDeclared(index, extraction, {
      kind,
      nameNode,
      name,
      extractor: 'fastmcp-ts',
      parameters,
      ...(description !== undefined ? { description } : descriptionNode ? { descriptionNode } : {}),
      ...(annotations && { annotations }),
      ...(uri !== undefined && { uri }),
      ...(handler && { handler }),
      argsParam: kind === 'resource' && method === 'addResource' ? -1 : 0,
    });
  };
  return { enter, finish: () => undefined };
}
