// Tools written as classes, one per file: `mcp-framework` (`class ReadNoteTool extends MCPTool<Input> { name = …;
// description = …; schema = {…}; async execute(input) {…} }`, discovered from src/tools/ and compiled to dist/tools/)
// and look-alike base classes of other frameworks and in-house registries (`class X extends BaseTool`). The members
// may be class fields (source, ES2022 output) or `this.name = …` assignments in the constructor (tsc with an older
// target), and the schema is a zod object or the framework's `{ field: { type: z.string(), description } }` map.
import type { AstNode } from '../analysis/javascript/ast.js';
import { isFunction, memberName, propertyName, unwrap, walk } from '../analysis/javascript/ast.js';
import type { FileIndex } from '../analysis/javascript/file-index.js';
import { staticString } from '../analysis/javascript/file-index.js';
import { parametersFromSchema } from '../analysis/javascript/schema.js';
import type { Extraction, FileVisitor } from './mcp-sdk.js';
import { addDeclared, staticRecord } from './mcp-sdk.js';

/** The base class of a tool: `MCPTool`, `BaseTool`, `mcp_framework_1.MCPTool` after tsc, `Tool`. */
const TOOL_BASE = /(^|[^a-z])Tool$/;
const RUN_METHODS = ['execute', 'run', 'call', 'handler'];
const SCHEMA_MEMBERS = ['schema', 'inputSchema', 'parameters'];

function superClassName(node: AstNode): string | undefined {
  const superClass = unwrap(node.superClass);
  // `extends MCPTool<Input>` parses as the class name with type arguments on the class node.
  if (superClass?.type === 'Identifier') return superClass.name;
  if (superClass?.type === 'MemberExpression') return memberName(superClass);
  return undefined;
}

/** Class fields and constructor `this.x = …` assignments, by name; methods by name. */
function classMembers(body: AstNode[]): { fields: Map<string, AstNode>; methods: Map<string, AstNode> } {
  const fields = new Map<string, AstNode>();
  const methods = new Map<string, AstNode>();
  for (const member of body) {
    const name = propertyName(member.key, member.computed);
    if (!name || member.static) continue;
    if (member.type === 'PropertyDefinition' && member.value) {
      if (isFunction(unwrap(member.value))) methods.set(name, unwrap(member.value) as AstNode);
      else fields.set(name, member.value);
    } else if (member.type === 'MethodDefinition' && member.kind === 'get') {
      // `get description() { return TEXT; }`: a getter that returns one expression.
      const statements: AstNode[] = member.value.body?.body ?? [];
      const returned = statements.find((statement) => statement.type === 'ReturnStatement')?.argument;
      if (returned && statements.length === 1) fields.set(name, returned);
    } else if (member.type === 'MethodDefinition' && member.kind === 'constructor') {
      walk(member.value.body, (node) => {
        if (node !== member.value.body && isFunction(node)) return false;
        const target = node.type === 'AssignmentExpression' ? unwrap(node.left) : undefined;
        if (target?.type === 'MemberExpression' && unwrap(target.object)?.type === 'ThisExpression') {
          const field = memberName(target);
          if (field && !fields.has(field)) fields.set(field, node.right);
        }
        return true;
      });
    } else if (member.type === 'MethodDefinition' && member.kind === 'method') {
      methods.set(name, member.value);
    }
  }
  return { fields, methods };
}

function declareClassTool(node: AstNode, index: FileIndex, extraction: Extraction): void {
  const base = superClassName(node);
  if (!base || !TOOL_BASE.test(base)) return;
  const { fields, methods } = classMembers(node.body?.body ?? []);
  const nameNode = fields.get('name');
  const name = staticString(nameNode, index);
  const descriptionNode = fields.get('description');
  const run = RUN_METHODS.map((method) => methods.get(method)).find((method) => method !== undefined);
  // A class without a name, a description and something that runs is a base class or a helper, not a tool.
  if (!nameNode || name === undefined || !descriptionNode || !run) return;
  const description = staticString(descriptionNode, index);
  const schema = SCHEMA_MEMBERS.map((member) => fields.get(member)).find((member) => member !== undefined);
  const annotations = staticRecord(fields.get('annotations'), index);
  addDeclared(index, extraction, {
    kind: 'tool',
    nameNode,
    name,
    extractor: 'class-tool',
    parameters: parametersFromSchema(schema, index),
    ...(description !== undefined ? { description } : { descriptionNode }),
    ...(annotations && { annotations }),
    handler: run,
    argsParam: 0,
  });
}

export function classToolVisitor(index: FileIndex, extraction: Extraction): FileVisitor {
  const enter = (node: AstNode): void => {
    if (node.type === 'ClassDeclaration' || node.type === 'ClassExpression') declareClassTool(node, index, extraction);
  };
  return { enter, finish: () => undefined };
}
