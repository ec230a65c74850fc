// Name dispatch inside one `tools/call` handler through a lookup table: `handlers[name](args)`,
// `const handler = toolHandlers[request.params.name]; return handler(args)`, `registry[name].execute(args)`. The
// table's entries are the tools' handlers, so each gets the tool input on its first parameter, like a registered one.
import type { AstNode } from '../analysis/javascript/ast.js';
import { isFunction, locationOf, propertyName, unwrap, walk } from '../analysis/javascript/ast.js';
import type { FileIndex } from '../analysis/javascript/file-index.js';
import { functionOwners, resolveExpression } from '../analysis/javascript/file-index.js';
import type { ToolDefinition } from '../model.js';
import type { Extraction } from './mcp-sdk.js';
import { handlerIdOf, resolveFunction } from './mcp-sdk.js';
import { toolObjectHandler } from './tool-maps.js';

/** A table entry's function: the value itself (`search: searchTool`) or what a tool object runs (`search: { handler }`). */
function entryHandler(value: AstNode | undefined, index: FileIndex): AstNode | undefined {
  const direct = isFunction(unwrap(value)) ? (unwrap(value) as AstNode) : resolveFunction(value, index);
  if (direct) return direct;
  const object = resolveExpression(value, index);
  return object.node?.type === 'ObjectExpression' ? toolObjectHandler(object.node, object.index) : undefined;
}

/** Every entry of `table` runs something: a map of handlers, not a map of settings. */
function handlerTable(table: AstNode, index: FileIndex): Array<{ name: string; key: AstNode; fn: AstNode; index: FileIndex }> {
  const entries: Array<{ name: string; key: AstNode; fn: AstNode; index: FileIndex }> = [];
  for (const property of table.properties as AstNode[]) {
    if (property.type !== 'Property') continue;
    const name = propertyName(property.key, property.computed);
    const fn = entryHandler(property.value, index);
    if (name === undefined || !fn) return [];
    entries.push({ name, key: property.key, fn, index: functionOwners.get(fn) ?? index });
  }
  return entries;
}

export function linkDispatchTables(dispatcher: AstNode, index: FileIndex, extraction: Extraction): void {
  const seen = new Set<AstNode>();
  walk(dispatcher.body, (node) => {
    if (node.type !== 'MemberExpression' || !node.computed) return true;
    const table = resolveExpression(node.object, index);
    if (table.node?.type !== 'ObjectExpression' || seen.has(table.node)) return true;
    seen.add(table.node);
    for (const entry of handlerTable(table.node, table.index)) {
      if (extraction.handlers.some((handler) => handler.node === entry.fn)) continue;
      // The tool's definition is often in another file (its list handler's module); the handler needs only its name.
      const tool: ToolDefinition = extraction.tools.find((candidate) => candidate.kind === 'tool' && candidate.name === entry.name) ?? {
        kind: 'tool',
        name: entry.name,
        parameters: [],
        location: locationOf(table.index.parsed, entry.key),
        extractor: 'mcp-sdk-lowlevel',
      };
      tool.handlerId ??= handlerIdOf(entry.index, entry.fn);
      extraction.handlers.push({ node: entry.fn, tool, argsParam: 0 });
    }
    return true;
  });
}
