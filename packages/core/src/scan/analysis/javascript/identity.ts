// Per tool handler: does it read who is calling, which of its parameters does it hold against that identity, and does
// it grant privileges on a role the caller states? Read from the handler's own body (the check that matters is where
// the request context is), for the authorization rule (rules/missing-object-authorization.ts).
import type { CodeFact } from '../../model.js';
import type { ToolHandler } from '../../extract/mcp-sdk.js';
import { AUTHORIZING_CALL, CONTEXT_OBJECT, IDENTITY_CALL, IDENTITY_PROPERTY, PRIVILEGED_VALUE, ROLE_PARAMETER } from '../catalog.js';
import type { AstNode } from './ast.js';
import { dottedName, isFunction, locationOf, memberName, propertyName, snippetOf, unwrap, walk } from './ast.js';
import type { FileIndex } from './file-index.js';

const COMPARISONS = new Set(['===', '!==', '==', '!=']);

/** The nodes under `node`, not entering nested functions (a callback's body is another handler's business). */
function within(node: AstNode | undefined, visit: (node: AstNode) => void): void {
  if (!node) return;
  walk(node, (inner) => {
    if (inner !== node && isFunction(inner)) return false;
    visit(inner);
    return true;
  });
}

function rootName(node: AstNode | undefined): string | undefined {
  let current = unwrap(node);
  while (current?.type === 'MemberExpression' || current?.type === 'CallExpression' || current?.type === 'AwaitExpression' || current?.type === 'ChainExpression') {
    current = unwrap(current.type === 'MemberExpression' ? current.object : current.type === 'CallExpression' ? current.callee : current.type === 'AwaitExpression' ? current.argument : current.expression);
  }
  return current?.type === 'Identifier' ? current.name : undefined;
}

/** The local names a destructuring pattern binds, by the property they come from. */
function patternNames(pattern: AstNode | undefined): Array<[string | undefined, string]> {
  const node = unwrap(pattern);
  if (node?.type === 'Identifier') return [[undefined, node.name]];
  if (node?.type === 'AssignmentPattern') return patternNames(node.left);
  if (node?.type !== 'ObjectPattern') return [];
  return node.properties.flatMap((property: AstNode): Array<[string | undefined, string]> => {
    if (property.type === 'RestElement') return [];
    const key = propertyName(property.key, property.computed);
    const value = unwrap(property.value);
    const local = value?.type === 'AssignmentPattern' ? unwrap(value.left) : value;
    return local?.type === 'Identifier' ? [[key, local.name]] : [];
  });
}

class HandlerReader {
  /** Local names that hold the caller's identity (or something derived from it). */
  readonly identity = new Set<string>();
  /** Local name → the tool parameter it holds. */
  readonly params = new Map<string, string>();
  firstIdentity: string | undefined;
  private argsName: string | undefined;
  private contextName: string | undefined;

  constructor(private readonly handler: ToolHandler) {
    const fn = handler.node;
    const args = unwrap(fn.params?.[handler.argsParam]);
    const declared = new Set(handler.tool.parameters.map((parameter) => parameter.name));
    if (args?.type === 'Identifier') this.argsName = args.name;
    else for (const [key, local] of patternNames(args)) if (key !== undefined && declared.has(key)) this.params.set(local, key);
    const context = unwrap(fn.params?.[handler.argsParam + 1]);
    if (context?.type === 'Identifier') this.contextName = context.name;
    else for (const [key, local] of patternNames(context)) if (key !== undefined && IDENTITY_PROPERTY.test(key)) this.noteIdentity(local, key);
  }

  private noteIdentity(local: string, text: string): void {
    this.identity.add(local);
    this.firstIdentity ??= text;
  }

  /** `extra.authInfo`, `req.user.id`, `getCurrentUser()`, or a local holding one of them. */
  isIdentity(node: AstNode): boolean {
    if (node.type === 'Identifier') return this.identity.has(node.name);
    if (node.type === 'MemberExpression') {
      const name = memberName(node);
      const root = rootName(node.object);
      if (name === undefined || root === undefined || root === this.argsName) return false;
      if (IDENTITY_PROPERTY.test(name) && (root === this.contextName || CONTEXT_OBJECT.test(root))) {
        this.firstIdentity ??= dottedName(node) ?? name;
        return true;
      }
      return false;
    }
    if (node.type === 'CallExpression') {
      const callee = unwrap(node.callee);
      const name = callee?.type === 'Identifier' ? callee.name : callee?.type === 'MemberExpression' ? memberName(callee) : undefined;
      if (name !== undefined && IDENTITY_CALL.test(name)) {
        this.firstIdentity ??= `${dottedName(callee) ?? name}()`;
        return true;
      }
    }
    return false;
  }

  /** The tool parameter a node reads: `args.userId`, or a local bound to one. */
  paramOf(node: AstNode): string | undefined {
    if (node.type === 'Identifier') return this.params.get(node.name);
    const object = node.type === 'MemberExpression' ? unwrap(node.object) : undefined;
    if (object?.type === 'Identifier' && this.argsName !== undefined && object.name === this.argsName) {
      const name = memberName(node);
      return this.handler.tool.parameters.some((parameter) => parameter.name === name) ? name : undefined;
    }
    return undefined;
  }

  mentions(node: AstNode | undefined): { identity: boolean; params: Set<string> } {
    const found = { identity: false, params: new Set<string>() };
    within(node, (inner) => {
      if (this.isIdentity(inner)) found.identity = true;
      const param = this.paramOf(inner);
      if (param !== undefined) found.params.add(param);
    });
    return found;
  }

  /** Follows locals in source order: `const me = extra.authInfo?.clientId`, `const { userId } = args`. */
  declare(node: AstNode): void {
    const init = unwrap(node.init);
    if (!init) return;
    const names = patternNames(node.id);
    if (init.type === 'Identifier' && init.name === this.argsName) {
      const declared = new Set(this.handler.tool.parameters.map((parameter) => parameter.name));
      for (const [key, local] of names) if (key !== undefined && declared.has(key)) this.params.set(local, key);
      return;
    }
    const { identity, params } = this.mentions(init);
    for (const [, local] of names) {
      if (identity) this.noteIdentity(local, this.firstIdentity ?? local);
      else if (params.size === 1) this.params.set(local, [...params][0] as string);
    }
  }
}

/** Whether a test grants more on a caller-stated role: `args.isAdmin`, `role === 'admin'`, `scopes.includes('write')`. */
function roleTest(test: AstNode, reader: HandlerReader): string | undefined {
  let granted: string | undefined;
  within(test, (inner) => {
    if (granted !== undefined) return;
    const param = reader.paramOf(inner);
    if (param === undefined || !ROLE_PARAMETER.test(param)) return;
    const flag = /^(is_?)?(admin|super_?user|root|staff)$|^(privileged|elevated|sudo|as_?admin|bypass_?auth)$/i.test(param);
    const literals: string[] = [];
    within(test, (node) => {
      if (node.type === 'Literal' && typeof node.value === 'string') literals.push(node.value);
    });
    if (flag || literals.some((value) => PRIVILEGED_VALUE.test(value))) granted = param;
  });
  return granted;
}

/**
 * A test of the identity that decides something, not one of whether there is one (`if (!extra.authInfo) throw` only
 * authenticates): it compares with or looks up a value (`scopes.includes('admin')`, `auth.role === 'owner'`).
 */
function decidesOnIdentity(test: AstNode): boolean {
  let decides = false;
  within(test, (node) => {
    if ((node.type === 'Literal' && typeof node.value === 'string') || node.type === 'CallExpression' || (node.type === 'BinaryExpression' && COMPARISONS.has(node.operator))) decides = true;
  });
  return decides;
}

function authorisingCall(call: AstNode): boolean {
  const callee = unwrap(call.callee);
  const name = callee?.type === 'Identifier' ? callee.name : callee?.type === 'MemberExpression' ? memberName(callee) : undefined;
  return name !== undefined && AUTHORIZING_CALL.test(name);
}

/**
 * The `caller-identity` and `caller-stated-role` facts of each tool handler. A parameter counts as checked when a
 * comparison or one call mentions it together with the identity (`if (userId !== auth.clientId) throw`,
 * `notes.forOwner(auth.clientId, noteId)`, `assertMember(extra.authInfo, orgId)`).
 */
export function handlerIdentityFacts(handlers: Iterable<ToolHandler>, indexOf: (handler: ToolHandler) => FileIndex | undefined): CodeFact[] {
  const facts: CodeFact[] = [];
  for (const handler of handlers) {
    if (handler.tool.kind !== 'tool' || !handler.node.body) continue;
    const reader = new HandlerReader(handler);
    const checked = new Set<string>();
    const roles: Array<[string, AstNode]> = [];
    let readsIdentity = reader.identity.size > 0;
    // A check of what the caller may do (a scope, a role of the verified token) authorises every argument after it.
    let authorised = false;
    within(handler.node.body, (node) => {
      if (node.type === 'VariableDeclarator') reader.declare(node);
      if (reader.isIdentity(node)) readsIdentity = true;
      const compared = (node.type === 'BinaryExpression' && COMPARISONS.has(node.operator)) || node.type === 'CallExpression';
      if (compared) {
        const { identity, params } = reader.mentions(node);
        if (identity) for (const param of params) checked.add(param);
      }
      if (node.type === 'IfStatement' || node.type === 'ConditionalExpression') {
        const { identity, params } = reader.mentions(node.test);
        if (!identity) {
          const role = roleTest(node.test, reader);
          if (role !== undefined) roles.push([role, node.test]);
        } else if (params.size === 0 && decidesOnIdentity(node.test)) authorised = true;
      }
      if (node.type === 'CallExpression' && authorisingCall(node) && reader.mentions(node).identity) authorised = true;
    });
    const { tool } = handler;
    if (readsIdentity) {
      const params = authorised ? tool.parameters.map((parameter) => parameter.name) : [...checked];
      facts.push({ kind: 'caller-identity', location: tool.location, snippet: tool.name, detail: reader.firstIdentity ?? 'the request context', handler: { tool: tool.name, params: params.sort() } });
    }
    const parsed = indexOf(handler)?.parsed;
    for (const [param, test] of roles.slice(0, 1)) {
      const at = parsed ? { location: locationOf(parsed, test), snippet: snippetOf(parsed, test) } : { location: tool.location, snippet: tool.name };
      facts.push({ kind: 'caller-stated-role', ...at, detail: param, handler: { tool: tool.name, params: [param] } });
    }
  }
  return facts;
}
