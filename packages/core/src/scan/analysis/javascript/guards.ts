// What the JS/TS dataflow recognises as a check: the shapes of guards in conditions, what a helper checks about its
// arguments, and the predicates both use. The sanitizers they stand for, and what each protects, are the shared
// catalogue's (../catalog.ts).
import type { AstNode } from './ast.js';
import { memberName, unwrap, walk } from './ast.js';
import { stripsSeparators } from '../catalog.js';
import { resolveCallee } from './callee.js';
import type { ClassInfo, FileIndex } from './file-index.js';
import { staticString } from './file-index.js';

/** String methods that only normalise case or spacing: a check on the result is a check on the string. */
export const NORMALISING_METHODS = new Set(['trim', 'trimStart', 'trimEnd', 'toLowerCase', 'toUpperCase', 'toLocaleLowerCase', 'toLocaleUpperCase', 'normalize']);
/** Initialisers that may be a check kept in a variable for a later `if`. */
export const CONDITION_TYPES = new Set(['CallExpression', 'BinaryExpression', 'LogicalExpression', 'UnaryExpression', 'AwaitExpression']);

/** What a helper function checks about its arguments (see `helperChecks`). */
export interface HelperChecks {
  containment?: 'sound' | 'weak';
  leadingDash?: boolean;
  throws: boolean;
}

/** What helpers check, computed once per function. */
export class HelperCheckCache {
  private readonly cache = new Map<AstNode, HelperChecks | undefined>();

  /**
   * What a helper checks about the values it is given, so a call to it guards them: path containment (`startsWith(root)`,
   * `path.relative`), sound or missing its separator, and leading dashes (`arg.startsWith('-')`, `/^-/`), looking one
   * call deeper into helpers of the same file. `throws`: it can refuse, so calling it as a statement is an assertion.
   */
  of(fn: AstNode, index: FileIndex, depth = 0): HelperChecks | undefined {
    if (this.cache.has(fn)) return this.cache.get(fn);
    this.cache.set(fn, undefined);
    const checks: HelperChecks = { throws: false };
    walk(fn, (node) => {
      if (node.type === 'ThrowStatement') checks.throws = true;
      if (node.type === 'Literal' && node.regex && /^\^\\?-/.test(node.regex.pattern)) checks.leadingDash = true;
      if (node.type !== 'CallExpression') return true;
      const callee = unwrap(node.callee);
      const name = callee?.type === 'MemberExpression' ? memberName(callee) : callee?.type === 'Identifier' ? callee.name : undefined;
      const first = unwrap(node.arguments[0]);
      if (name === 'startsWith' && first?.type !== 'Literal' && checks.containment !== 'sound') checks.containment = endsWithSeparator(first, index) ? 'sound' : 'weak';
      if (name === 'startsWith' && staticString(first, index) === '-') checks.leadingDash = true;
      // `path.relative(root, p)`, also tsc's `node_path_1.default.relative`
      const pathModule = name === 'relative' && callee?.type === 'MemberExpression' ? resolveCallee(callee, index).module : undefined;
      if (name === 'relative' && ((callee?.object?.type === 'Identifier' && /path/i.test(callee.object.name)) || pathModule === 'path')) checks.containment = 'sound';
      const inner = callee?.type === 'Identifier' && depth < 2 ? index.functions.get(callee.name) : undefined;
      const nested = inner && inner !== fn ? this.of(inner, index, depth + 1) : undefined;
      if (nested) {
        checks.throws ||= nested.throws;
        checks.leadingDash ||= nested.leadingDash;
        if (nested.containment && checks.containment !== 'sound') checks.containment = nested.containment;
      }
      return true;
    });
    const found = checks.containment || checks.leadingDash ? checks : undefined;
    this.cache.set(fn, found);
    return found;
  }
}

/** Whether a branch ends the function or refuses (`throw`, `return`), i.e. the `if` around it is a check. */
export function refuses(node: AstNode | null | undefined): boolean {
  if (!node) return false;
  if (node.type === 'ThrowStatement' || node.type === 'ReturnStatement') return true;
  if (node.type === 'ExpressionStatement') {
    // `abort()`: a helper that throws.
    const call = unwrap(node.expression);
    return call?.type === 'CallExpression' && /^(abort|fail|deny|reject|die|bail)/i.test(unwrap(call.callee)?.name ?? '');
  }
  return node.type === 'BlockStatement' && node.body.some((statement: AstNode) => refuses(statement));
}

/** Whether a containment prefix ends with a path separator: `root + path.sep`, `` `${root}/` ``, a constant `'/srv/data/'`. */
export function endsWithSeparator(node: AstNode | undefined, index: FileIndex, depth = 0): boolean {
  const current = unwrap(node);
  if (!current || depth > 3) return false;
  const text = staticString(current, index);
  if (text !== undefined) return /[\\/]$/.test(text);
  if (current.type === 'MemberExpression') return memberName(current) === 'sep';
  if (current.type === 'BinaryExpression' && current.operator === '+') return endsWithSeparator(current.right, index, depth + 1);
  if (current.type === 'TemplateLiteral') {
    const tail = current.quasis.at(-1)?.value.cooked ?? '';
    return tail !== '' ? /[\\/]$/.test(tail) : endsWithSeparator(current.expressions.at(-1), index, depth + 1);
  }
  if (current.type === 'Identifier') return endsWithSeparator(index.variables.get(current.name), index, depth + 1);
  return false;
}

/** `.replace(/[^a-z0-9_-]/g, '')`: everything outside a class without path or shell metacharacters is removed. */
export function removesAllButSafeCharacters(node: AstNode | undefined): boolean {
  const regex = unwrap(node)?.regex as { pattern: string; flags: string } | undefined;
  if (!regex || !regex.flags.includes('g')) return false;
  const match = /^\[\^([^\]]*)\][+*]?$/.exec(regex.pattern);
  return match !== null && match[1] !== undefined && !/[./\\;&|`$<>'"\s]|\\[sSWD]/.test(match[1].replace(/\\[wd-]/g, ''));
}

/** `.replace(/[\\/]/g, '_')`: every separator replaced, so one path segment is left (see `stripsSeparators`). */
export function removesSeparators(pattern: AstNode | undefined, replacement: AstNode | undefined, index: FileIndex): boolean {
  const regex = unwrap(pattern)?.regex as { pattern: string; flags: string } | undefined;
  const by = staticString(replacement, index);
  return regex !== undefined && by !== undefined && stripsSeparators(regex.pattern, regex.flags, by);
}

/**
 * The switch an `if` needs to be on, when it is one the operator must turn on: `if (this.#roots === undefined &&
 * this.#allowUnrestrictedPaths) return resolved;`. A field counts when the constructor stores it off unless told
 * otherwise (`options.x ?? false`, `options.x === true`, `false`) and no method assigns it, so no tool call can flip it:
 * the branch is the operator's choice, not a path the model can take.
 */
export function operatorSwitch(test: AstNode | undefined, owner: ClassInfo | undefined): string | undefined {
  const node = unwrap(test);
  if (!node || !owner) return undefined;
  if (node.type === 'LogicalExpression' && node.operator === '&&') return operatorSwitch(node.left, owner) ?? operatorSwitch(node.right, owner);
  const field = node.type === 'MemberExpression' && !node.computed && unwrap(node.object)?.type === 'ThisExpression' ? memberName(node) : undefined;
  if (field === undefined || !offByDefault(owner.fields.get(field))) return undefined;
  const assigned = [...owner.methods.values(), ...owner.statics.values(), ...owner.getters.values()].some((method) => assigns(method, field));
  return assigned ? undefined : field;
}

/** `false`, `x ?? false`, `x || false`, `x === true`: a switch that stays off unless set. */
function offByDefault(init: AstNode | undefined): boolean {
  const node = unwrap(init);
  if (!node) return false;
  if (node.type === 'Literal') return node.value === false;
  if (node.type === 'LogicalExpression' && (node.operator === '??' || node.operator === '||')) return unwrap(node.right)?.type === 'Literal' && unwrap(node.right)?.value === false;
  if (node.type === 'BinaryExpression' && node.operator === '===') return [node.left, node.right].some((side) => unwrap(side)?.type === 'Literal' && unwrap(side)?.value === true);
  return false;
}

/** Whether a method stores into `this.<field>`. */
function assigns(method: AstNode, field: string): boolean {
  let found = false;
  walk(method, (node) => {
    if (found) return false;
    const left = node.type === 'AssignmentExpression' ? unwrap(node.left) : undefined;
    if (left?.type === 'MemberExpression' && unwrap(left.object)?.type === 'ThisExpression' && memberName(left) === field) found = true;
    return !found;
  });
  return found;
}
