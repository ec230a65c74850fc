// Hand-written JSON-RPC servers (no SDK): a tool table served on `tools/list` and a function that answers
// `message.method === 'tools/call'` (or `switch (msg.method) { case 'tools/call': … }`, or the same on a `method`
// destructured from the message) by dispatching on `message.params.name`. That function is the server's CallTool
// dispatcher: its first parameter is the request (or the line it is parsed from), so `params.arguments` carries the tool
// input and `params.name` picks the tool, as in a low-level SDK handler. Such a server sends its results itself, in
// response objects (`isJsonRpcResponse`): the taint engine takes their `result` for the tool's (`answered`).
import type { AstNode } from '../analysis/javascript/ast.js';
import { dottedName, isFunction, memberName, propertyName, unwrap, walk } from '../analysis/javascript/ast.js';
import type { FileIndex } from '../analysis/javascript/file-index.js';
import { staticString } from '../analysis/javascript/file-index.js';
import type { Extraction } from './mcp-sdk.js';

/** `{ jsonrpc: '2.0', id, result }`, `{ id, result }`: an object literal with the members of a JSON-RPC response. */
export function isJsonRpcResponse(node: AstNode | undefined): boolean {
  if (node?.type !== 'ObjectExpression') return false;
  const has = (key: string) => node.properties.some((property: AstNode) => property.type === 'Property' && !property.computed && propertyName(property.key) === key);
  return has('result') && has('id');
}

/**
 * A JSON-RPC response as a server writes it: the object, `JSON.stringify(response)`, with a newline after it
 * (`… + '\n'`, `` `${…}\n` ``), or a variable of the file holding one.
 */
export function isWrittenJsonRpcResponse(node: AstNode | undefined, index: FileIndex, depth = 0): boolean {
  const current = unwrap(node);
  if (!current || depth > 4) return false;
  switch (current.type) {
    case 'ObjectExpression':
      return isJsonRpcResponse(current);
    case 'Identifier': {
      const bound = index.variables.get(current.name);
      return bound !== undefined && bound !== current && isWrittenJsonRpcResponse(bound, index, depth + 1);
    }
    case 'CallExpression':
      return dottedName(current.callee) === 'JSON.stringify' && isWrittenJsonRpcResponse(current.arguments[0], index, depth + 1);
    case 'BinaryExpression':
      return current.operator === '+' && isWrittenJsonRpcResponse(current.left, index, depth + 1);
    case 'TemplateLiteral':
      return current.expressions.length === 1 && isWrittenJsonRpcResponse(current.expressions[0], index, depth + 1);
    default:
      return false;
  }
}

/** `msg.method` or `msg['method']`: the method of a JSON-RPC message. */
function isMethodMember(node: AstNode | undefined): boolean {
  const member = unwrap(node);
  return member?.type === 'MemberExpression' && memberName(member) === 'method';
}

/** The name a destructuring pattern binds to the message's `method` (`{ id, method, params }`, `{ method: m = '' }`). */
function methodInPattern(pattern: AstNode | undefined): string | undefined {
  if (pattern?.type !== 'ObjectPattern') return undefined;
  for (const property of pattern.properties) {
    if (property.type !== 'Property' || propertyName(property.key, property.computed) !== 'method') continue;
    const value = property.value?.type === 'AssignmentPattern' ? property.value.left : property.value;
    if (value?.type === 'Identifier') return value.name;
  }
  return undefined;
}

/**
 * The local names a function's own body binds to a message's method: `const { id, method, params } = JSON.parse(line)`,
 * `const method = msg.method`, `method = msg.method`. Compared with `tools/call`, such a name is the message's method
 * as surely as `msg.method` is; a bare parameter named `method` is not (the SDK's own capability checks take one).
 */
function methodBindings(fn: AstNode): Set<string> {
  const names = new Set<string>();
  walk(fn.body, (node) => {
    if (node !== fn.body && isFunction(node)) return false;
    const [target, value] =
      node.type === 'VariableDeclarator' ? [node.id, node.init] : node.type === 'AssignmentExpression' && node.operator === '=' ? [node.left, node.right] : [];
    const name = target?.type === 'Identifier' ? (isMethodMember(value) ? target.name : undefined) : methodInPattern(target);
    if (name !== undefined) names.add(name);
    return true;
  });
  return names;
}

/** `msg.method` (or a local bound to it, see `methodBindings`) compared with `'tools/call'`: the comparisons a JSON-RPC message loop makes. */
function comparesMethod(node: AstNode, method: string, index: FileIndex, bound: ReadonlySet<string>): boolean {
  const isMethod = (side: AstNode | undefined): boolean => {
    const value = unwrap(side);
    return isMethodMember(value) || (value?.type === 'Identifier' && bound.has(value.name));
  };
  if (node.type === 'BinaryExpression' && (node.operator === '===' || node.operator === '==')) {
    for (const [side, other] of [[node.left, node.right], [node.right, node.left]] as const) {
      if (isMethod(side) && staticString(other, index) === method) return true;
    }
  }
  if (node.type === 'SwitchStatement') {
    if (!isMethod(node.discriminant)) return false;
    return node.cases.some((switchCase: AstNode) => switchCase.test && staticString(switchCase.test, index) === method);
  }
  return false;
}

/** Which of `tools/list` and `tools/call` the function's own body (not a nested function) compares with: one walk for both. */
function ownComparisons(fn: AstNode, index: FileIndex): { list: boolean; call: boolean } {
  const found = { list: false, call: false };
  const bound = methodBindings(fn);
  walk(fn.body, (node) => {
    if (node !== fn.body && isFunction(node)) return false;
    found.list ||= comparesMethod(node, 'tools/list', index, bound);
    found.call ||= comparesMethod(node, 'tools/call', index, bound);
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
