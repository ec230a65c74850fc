// Hand-written JSON-RPC servers (no SDK): a tool table served on `tools/list` and a function that answers
// `message.method === 'tools/call'` (or `switch (msg.method) { case 'tools/call': … }`) by dispatching on
// `message.params.name`. That function is the server's CallTool dispatcher: its first parameter is the request, so
// `params.arguments` carries the tool input and `params.name` picks the tool, as in a low-level SDK handler.
import type { AstNode } from '../analysis/javascript/ast.js';
import { isFunction, memberName, unwrap, walk } from '../analysis/javascript/ast.js';
import type { FileIndex } from '../analysis/javascript/file-index.js';
import { staticString } from '../analysis/javascript/file-index.js';
import type { Extraction } from './mcp-sdk.js';

/** `x.method` compared with `'tools/call'`: the comparisons a JSON-RPC message loop makes. */
function comparesMethod(node: AstNode, method: string, index: FileIndex): boolean {
  if (node.type === 'BinaryExpression' && (node.operator === '===' || node.operator === '==')) {
    for (const [side, other] of [[node.left, node.right], [node.right, node.left]] as const) {
      const member = unwrap(side);
      if (member?.type === 'MemberExpression' && memberName(member) === 'method' && staticString(other, index) === method) return true;
    }
  }
  if (node.type === 'SwitchStatement') {
    const discriminant = unwrap(node.discriminant);
    if (discriminant?.type !== 'MemberExpression' || memberName(discriminant) !== 'method') return false;
    return node.cases.some((switchCase: AstNode) => switchCase.test && staticString(switchCase.test, index) === method);
  }
  return false;
}

/** Which of `tools/list` and `tools/call` the function's own body (not a nested function) compares with: one walk for both. */
function ownComparisons(fn: AstNode, index: FileIndex): { list: boolean; call: boolean } {
  const found = { list: false, call: false };
  walk(fn.body, (node) => {
    if (node !== fn.body && isFunction(node)) return false;
    found.list ||= comparesMethod(node, 'tools/list', index);
    found.call ||= comparesMethod(node, 'tools/call', index);
    return !(found.list && found.call);
  });
  return found;
}

/**
 * Adds the functions that answer `tools/call` on a message they receive as their first parameter. A file must answer
 * `tools/list` too, so a client library that only checks a method name (or the SDK's own code inlined in a bundle,
 * which switches on a bare `method`) is not taken for a server.
 */
export function extractJsonRpcDispatchers(index: FileIndex, extraction: Extraction): void {
  const text = index.parsed.text;
  if (!text.includes('tools/call') || !text.includes('tools/list')) return;
  const dispatchers: AstNode[] = [];
  let answersList = false;
  walk(index.parsed.program, (node) => {
    if (!isFunction(node) || !node.body) return true;
    const compares = ownComparisons(node, index);
    answersList ||= compares.list;
    if ((node.params?.length ?? 0) > 0 && compares.call) dispatchers.push(node);
    return true;
  });
  if (!answersList) return;
  for (const dispatcher of dispatchers) if (!extraction.dispatchers.includes(dispatcher)) extraction.dispatchers.push(dispatcher);
}
