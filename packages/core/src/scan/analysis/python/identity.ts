// Per tool handler (Python): does it read who is calling (`ctx.request_context`, `get_access_token()`), which of its
// parameters does it hold against that identity, and does it grant privileges on a role the caller states? The
// counterpart of javascript/identity.ts, for the authorization rule.
import type { CodeFact } from '../../model.js';
import { AUTHORIZING_CALL, CONTEXT_OBJECT, IDENTITY_CALL, IDENTITY_PROPERTY, PRIVILEGED_VALUE, ROLE_PARAMETER } from '../catalog.js';
import type { PyHandler } from './program.js';
import { dottedName, functionParameters, location, parameterName, snippet, stringValue, type Node } from './syntax.js';

const NESTED = new Set(['function_definition', 'lambda', 'class_definition']);
const ROLE_FLAG = /^(is_?)?(admin|super_?user|root|staff)$|^(privileged|elevated|sudo|as_?admin|bypass_?auth)$/i;

/** The nodes under `node` in source order, not entering nested functions. */
function within(node: Node | null | undefined, visit: (node: Node) => void): void {
  if (!node) return;
  const stack: Node[] = [node];
  while (stack.length) {
    const current = stack.pop() as Node;
    if (current !== node && NESTED.has(current.type)) continue;
    visit(current);
    for (let i = current.namedChildCount - 1; i >= 0; i--) {
      const child = current.namedChild(i);
      if (child) stack.push(child);
    }
  }
}

class HandlerReader {
  readonly identity = new Set<string>();
  readonly params = new Map<string, string>();
  readonly contexts = new Set<string>();
  firstIdentity: string | undefined;

  constructor(handler: PyHandler, private readonly helpers: ReadonlySet<string>) {
    const declared = new Set(handler.parameters.map((parameter) => parameter.name));
    for (const parameter of functionParameters(handler.definition)) {
      const name = parameterName(parameter);
      if (name === undefined) continue;
      if (declared.has(name)) this.params.set(name, name);
      else if (/\bContext\b/.test(parameter.childForFieldName('type')?.text ?? '') || CONTEXT_OBJECT.test(name)) this.contexts.add(name);
    }
  }

  isIdentity(node: Node): boolean {
    if (node.type === 'identifier') return this.identity.has(node.text);
    if (node.type === 'attribute') {
      const name = node.childForFieldName('attribute')?.text ?? '';
      const root = (dottedName(node.childForFieldName('object')) ?? '').split('.')[0] ?? '';
      if (IDENTITY_PROPERTY.test(name) && (this.contexts.has(root) || CONTEXT_OBJECT.test(root))) {
        this.firstIdentity ??= node.text;
        return true;
      }
      return false;
    }
    if (node.type === 'call') {
      const name = (dottedName(node.childForFieldName('function')) ?? '').split('.').at(-1) ?? '';
      if (IDENTITY_CALL.test(name) || this.helpers.has(name)) {
        this.firstIdentity ??= `${name}()`;
        return true;
      }
    }
    return false;
  }

  mentions(node: Node | null | undefined): { identity: boolean; params: Set<string>; strings: string[] } {
    const found = { identity: false, params: new Set<string>(), strings: [] as string[] };
    within(node, (inner) => {
      if (this.isIdentity(inner)) found.identity = true;
      if (inner.type === 'identifier' && this.params.has(inner.text)) found.params.add(this.params.get(inner.text) as string);
      if (inner.type === 'string') {
        const value = stringValue(inner);
        if (value !== undefined) found.strings.push(value);
      }
    });
    return found;
  }

  /** `me = get_access_token()`, `owner = user_id`: locals derived from the identity or from one parameter. */
  assign(node: Node): void {
    const left = node.childForFieldName('left');
    if (left?.type !== 'identifier') return;
    const { identity, params } = this.mentions(node.childForFieldName('right'));
    if (identity) this.identity.add(left.text);
    else if (params.size === 1) this.params.set(left.text, [...params][0] as string);
  }
}

/** Module functions of the handlers' modules that return the caller (`def caller_account(): token = get_access_token() …`). */
function identityHelpers(handlers: readonly PyHandler[]): Set<string> {
  const helpers = new Set<string>();
  for (const module of new Set(handlers.map((handler) => handler.module))) {
    for (const [name, definition] of module.functions) {
      const calls = definition.text.matchAll(/\b(\w+)\s*\(/g);
      if ([...calls].some((call) => call[1] !== name && IDENTITY_CALL.test(call[1] ?? ''))) helpers.add(name);
    }
  }
  return helpers;
}

/** The `caller-identity` and `caller-stated-role` facts of each Python tool handler (see javascript/identity.ts). */
export function pythonHandlerIdentityFacts(handlers: readonly PyHandler[]): CodeFact[] {
  const facts: CodeFact[] = [];
  const helpers = identityHelpers(handlers);
  for (const handler of handlers) {
    if (handler.kind !== 'function') continue;
    const reader = new HandlerReader(handler, helpers);
    const checked = new Set<string>();
    let readsIdentity = false;
    let authorised = false;
    let role: { param: string; test: Node } | undefined;
    within(handler.definition.childForFieldName('body'), (node) => {
      if (node.type === 'assignment') reader.assign(node);
      if (reader.isIdentity(node)) readsIdentity = true;
      if (node.type === 'comparison_operator' || node.type === 'call') {
        const { identity, params } = reader.mentions(node);
        if (identity) for (const param of params) checked.add(param);
      }
      if ((node.type === 'if_statement' || node.type === 'conditional_expression' || node.type === 'elif_clause') && role === undefined) {
        const test = node.type === 'conditional_expression' ? node.namedChild(1) : node.childForFieldName('condition');
        const { identity, params, strings } = reader.mentions(test);
        const stated = [...params].find((param) => ROLE_PARAMETER.test(param) && (ROLE_FLAG.test(param) || strings.some((value) => PRIVILEGED_VALUE.test(value))));
        if (!identity && stated !== undefined && test) role = { param: stated, test };
        // A test of the identity that decides something (a scope, a role of the token), not one of whether there is one.
        if (identity && params.size === 0 && (strings.length > 0 || /[=!<>]=|\bin\b|\(/.test(test?.text ?? ''))) authorised = true;
      }
      if (node.type === 'call' && AUTHORIZING_CALL.test((dottedName(node.childForFieldName('function')) ?? '').split('.').at(-1) ?? '') && reader.mentions(node).identity) authorised = true;
    });
    const at = location(handler.module.path, handler.definition);
    if (readsIdentity) {
      facts.push({ kind: 'caller-identity', location: at, snippet: handler.tool, detail: reader.firstIdentity ?? 'the request context', handler: { tool: handler.tool, params: (authorised ? handler.parameters.map((parameter) => parameter.name) : [...checked]).sort() } });
    }
    if (role !== undefined) {
      facts.push({ kind: 'caller-stated-role', location: location(handler.module.path, role.test), snippet: snippet(role.test), detail: role.param, handler: { tool: handler.tool, params: [role.param] } });
    }
  }
  return facts;
}
