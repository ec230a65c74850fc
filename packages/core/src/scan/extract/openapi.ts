// Tools generated from an OpenAPI document shipped in the package: a loop over `spec.paths` registers one tool per
// operation (`server.tool(operation.operationId, operation.description ?? operation.summary, …, handler)`). The
// registration names nothing static, but the document is static (a JSON module or a JSON file read at start-up), so
// each operation becomes a tool with the text the code picks for its description, and all share the one handler.
import type { AstNode } from '../analysis/javascript/ast.js';
import { isFunction, memberName, unwrap, walk } from '../analysis/javascript/ast.js';
import type { FileIndex, StaticValue } from '../analysis/javascript/file-index.js';
import { staticValue } from '../analysis/javascript/file-index.js';
import type { ToolParameter } from '../model.js';
import type { Extraction, FileVisitor } from './mcp-sdk.js';
import { addDeclared, resolveFunction } from './mcp-sdk.js';

type Json = { [key: string]: StaticValue };

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

function record(value: unknown): Json | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) && !(value instanceof RegExp) ? (value as Json) : undefined;
}

function isOpenApi(value: StaticValue | undefined): value is Json {
  const document = record(value);
  return document !== undefined && record(document.paths) !== undefined && (typeof document.openapi === 'string' || typeof document.swagger === 'string');
}

/** The members of an operation the code reads for the description, in the order it reads them (`a ?? b`). */
function descriptionKeys(call: AstNode): string[] {
  const keys: string[] = [];
  for (const argument of call.arguments as AstNode[]) {
    walk(argument, (node) => {
      if (isFunction(node)) return false;
      const name = node.type === 'MemberExpression' ? memberName(node) : undefined;
      if ((name === 'description' || name === 'summary') && !keys.includes(name)) keys.push(name);
      return true;
    });
  }
  return keys;
}

function operationParameters(operation: Json): ToolParameter[] {
  const parameters: ToolParameter[] = [];
  for (const item of Array.isArray(operation.parameters) ? operation.parameters : []) {
    const parameter = record(item);
    if (typeof parameter?.name !== 'string') continue;
    const entry: ToolParameter = { name: parameter.name, required: parameter.required === true };
    const schema = record(parameter.schema);
    if (typeof schema?.type === 'string') entry.type = schema.type;
    if (typeof parameter.description === 'string') entry.description = parameter.description;
    if (Array.isArray(schema?.enum)) entry.enum = schema.enum.map(String);
    parameters.push(entry);
  }
  const body = record(record(record(record(operation.requestBody)?.content)?.['application/json'])?.schema);
  const required = Array.isArray(body?.required) ? body.required.map(String) : [];
  for (const [name, value] of Object.entries(record(body?.properties) ?? {})) {
    const property = record(value);
    const entry: ToolParameter = { name, required: required.includes(name) };
    if (typeof property?.type === 'string') entry.type = property.type;
    if (typeof property?.description === 'string') entry.description = property.description;
    parameters.push(entry);
  }
  return parameters;
}

/** The OpenAPI documents this file holds: JSON modules it imports and constants it builds (`JSON.parse(readFileSync(…))`). */
function documentsOf(index: FileIndex): Json[] {
  const documents: Json[] = [];
  const names = [...index.variables.keys(), ...index.imports.keys()];
  for (const name of new Set(names)) {
    const value = staticValue({ type: 'Identifier', name, start: -1, end: -1 }, index);
    if (isOpenApi(value) && !documents.includes(value)) documents.push(value);
  }
  return documents;
}

export function openApiVisitor(index: FileIndex, extraction: Extraction): FileVisitor {
  const registrations: Array<{ call: AstNode; nameNode: AstNode }> = [];
  const enter = (node: AstNode): void => {
    if (node.type !== 'CallExpression') return;
    for (const argument of node.arguments as AstNode[]) {
      const current = unwrap(argument);
      const nameNode = current?.type === 'ObjectExpression' ? current.properties.find((property: AstNode) => property.type === 'Property' && property.key?.name === 'name')?.value : current;
      const name = unwrap(nameNode);
      if (name?.type === 'MemberExpression' && memberName(name) === 'operationId') {
        registrations.push({ call: node, nameNode: name });
        return;
      }
    }
  };
  const finish = (): void => {
    if (registrations.length === 0) return;
    const documents = documentsOf(index);
    for (const { call, nameNode } of registrations) {
      const keys = descriptionKeys(call);
      const last = call.arguments[call.arguments.length - 1];
      const handler = resolveFunction(last, index);
      for (const document of documents) {
        for (const methods of Object.values(record(document.paths) ?? {})) {
          for (const [method, value] of Object.entries(record(methods) ?? {})) {
            const operation = record(value);
            if (!HTTP_METHODS.has(method) || typeof operation?.operationId !== 'string') continue;
            const key = keys.find((candidate) => typeof operation[candidate] === 'string');
            addDeclared(index, extraction, {
              kind: 'tool',
              nameNode,
              name: operation.operationId,
              extractor: 'openapi',
              parameters: operationParameters(operation),
              ...(key !== undefined && { description: operation[key] as string }),
              ...(handler && { handler }),
              argsParam: 0,
            });
          }
        }
      }
    }
  };
  return { enter, finish };
}
