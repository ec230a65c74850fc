// Static evaluation of the JS/TS shapes an obfuscated loader rebuilds its payload with, on literals only:
// `Buffer.from(x, 'base64' | 'hex')`, `atob`, `String.fromCharCode(...codes)`, `codes.map((c, i) => c ^ key…)`,
// `s.split('').reverse().join('')` and chains of them. A tiny interpreter over constants (see ../decode.ts): it never
// runs scanned code, and stops after a fixed number of steps.
import { arithmetic, decodeBase64, decodeHex, fromCodes, MAX_DECODED, reversed } from '../decode.js';
import type { AstNode } from './ast.js';
import { isFunction, memberName, unwrap } from './ast.js';
import { resolveCallee } from './callee.js';
import type { FileIndex } from './file-index.js';
import { staticValue } from './file-index.js';

type Value = string | number | Array<string | number>;

interface State {
  index: FileIndex;
  steps: number;
  /** The decoding operations applied, in order (`base64`, `reverse`, `char codes`, `xor`…). */
  ops: string[];
}

/** Calls whose result may be a decoded payload: where the taint pass asks for a decoded constant. */
export const DECODING_CALLS = new Set(['from', 'atob', 'fromCharCode', 'fromCodePoint', 'join', 'toString', 'reverse', 'map']);

const MAX_STEPS = 200_000;
const MAX_DEPTH = 24;

/**
 * The text a call computes from literals, when it applied at least one decoding operation; `ops` names them in order
 * (`reverse → base64`). Undefined when any input is not constant or the budget runs out.
 */
export function decodeStatically(node: AstNode, index: FileIndex): { text: string; ops: string[] } | undefined {
  const state: State = { index, steps: 0, ops: [] };
  const value = evaluate(node, new Map(), state, 0);
  if (value === undefined || !state.ops.length) return undefined;
  const text = typeof value === 'string' ? value : Array.isArray(value) && value.every((part) => typeof part === 'string') ? value.join('') : undefined;
  return text === undefined ? undefined : { text, ops: state.ops };
}

/**
 * `String.fromCharCode(data[i] ^ key.charCodeAt(i % key.length))` in a loop: codes computed with `^` from constants
 * and indexes, which the evaluator cannot follow through the loop. Every name in it is a constant of the file or only
 * an index (`data[i]`, `i % n`), so the result is the package's own hidden text, not input being transformed.
 */
export function xorOfConstants(args: readonly AstNode[], index: FileIndex): boolean {
  const seen = { xor: false, constant: false, input: false };
  const visit = (node: AstNode | undefined, asIndex: boolean): void => {
    const current = unwrap(node?.type === 'SpreadElement' ? node.argument : node);
    if (!current) return;
    switch (current.type) {
      case 'Literal':
        return;
      case 'Identifier': {
        const value = staticValue(current, index) ?? staticValue(index.variables.get(current.name), index);
        if (typeof value === 'string' || typeof value === 'number' || Array.isArray(value)) seen.constant = true;
        else if (!asIndex) seen.input = true;
        return;
      }
      case 'MemberExpression':
        visit(current.object, asIndex);
        if (current.computed) visit(current.property, true);
        return;
      case 'BinaryExpression':
        if (current.operator === '^') seen.xor = true;
        visit(current.left, asIndex);
        visit(current.right, asIndex || current.operator === '%');
        return;
      case 'CallExpression': {
        // `key.charCodeAt(i % key.length)`: a method of a constant, at an index.
        const callee = unwrap(current.callee);
        if (callee?.type !== 'MemberExpression') {
          seen.input = true;
          return;
        }
        visit(callee.object, asIndex);
        for (const arg of current.arguments) visit(arg, true);
        return;
      }
      default:
        seen.input = true;
    }
  };
  for (const arg of args) visit(arg, false);
  return seen.xor && seen.constant && !seen.input;
}

function evaluate(node: AstNode | null | undefined, env: Map<string, Value>, state: State, depth: number): Value | undefined {
  const current = unwrap(node);
  if (!current || depth > MAX_DEPTH || ++state.steps > MAX_STEPS) return undefined;
  switch (current.type) {
    case 'Literal':
      return typeof current.value === 'string' || typeof current.value === 'number' ? current.value : undefined;
    case 'Identifier': {
      const bound = env.get(current.name);
      if (bound !== undefined) return bound;
      const init = state.index.variables.get(current.name);
      return init ? evaluate(init, env, state, depth + 1) : plain(staticValue(current, state.index));
    }
    case 'TemplateLiteral':
      return plain(staticValue(current, state.index));
    case 'ArrayExpression': {
      const out: Array<string | number> = [];
      for (const element of current.elements) {
        const value = evaluate(element?.type === 'SpreadElement' ? element.argument : element, env, state, depth + 1);
        if (value === undefined) return undefined;
        if (Array.isArray(value) && element?.type === 'SpreadElement') out.push(...value);
        else if (!Array.isArray(value)) out.push(value);
        else return undefined;
        if (out.length > MAX_DECODED) return undefined;
      }
      return out;
    }
    case 'BinaryExpression': {
      const left = evaluate(current.left, env, state, depth + 1);
      const right = evaluate(current.right, env, state, depth + 1);
      if (typeof left === 'number' && typeof right === 'number') {
        if (current.operator === '^' && !state.ops.includes('xor')) state.ops.push('xor');
        return arithmetic(current.operator, left, right);
      }
      if (current.operator === '+' && (typeof left === 'string' || typeof right === 'string') && left !== undefined && right !== undefined && !Array.isArray(left) && !Array.isArray(right)) {
        const text = String(left) + String(right);
        return text.length > MAX_DECODED ? undefined : text;
      }
      return undefined;
    }
    case 'MemberExpression': {
      const object = evaluate(current.object, env, state, depth + 1);
      if (object === undefined || typeof object === 'number') return undefined;
      if (!current.computed && memberName(current) === 'length') return object.length;
      const key = current.computed ? evaluate(current.property, env, state, depth + 1) : undefined;
      return typeof key === 'number' ? object[key] : undefined;
    }
    case 'CallExpression':
      return call(current, env, state, depth);
    default:
      return undefined;
  }
}

function call(node: AstNode, env: Map<string, Value>, state: State, depth: number): Value | undefined {
  const calleeNode = unwrap(node.callee);
  const args: AstNode[] = node.arguments;
  const arg = (position: number) => evaluate(args[position], env, state, depth + 1);
  const decoded = (op: string, text: string | undefined) => {
    if (text !== undefined) state.ops.push(op);
    return text;
  };
  const callee = calleeNode ? resolveCallee(calleeNode, state.index) : undefined;
  if (callee?.name === 'atob' && !callee.receiver) {
    const text = arg(0);
    return typeof text === 'string' ? decoded('base64', decodeBase64(text)) : undefined;
  }
  if (callee?.module === 'global:Buffer' && callee.name === 'from') {
    const input = arg(0);
    const encoding = args[1] ? arg(1) : 'utf8';
    if (Array.isArray(input)) return input.every((part) => typeof part === 'number') ? decoded('bytes', fromCodes(input as number[])) : undefined;
    if (typeof input !== 'string') return undefined;
    if (encoding === 'base64' || encoding === 'base64url') return decoded('base64', decodeBase64(input));
    if (encoding === 'hex') return decoded('hex', decodeHex(input));
    return encoding === 'utf8' || encoding === 'utf-8' ? input : undefined;
  }
  if (callee?.module === 'global:String' && (callee.name === 'fromCharCode' || callee.name === 'fromCodePoint')) {
    const codes: number[] = [];
    for (const [position, part] of args.entries()) {
      const value = evaluate(part.type === 'SpreadElement' ? part.argument : part, env, state, depth + 1);
      if (typeof value === 'number') codes.push(value);
      else if (Array.isArray(value) && value.every((code) => typeof code === 'number')) codes.push(...(value as number[]));
      else return undefined;
      if (position > MAX_DECODED) return undefined;
    }
    return decoded('char codes', fromCodes(codes));
  }
  if (calleeNode?.type !== 'MemberExpression') return undefined;
  const method = memberName(calleeNode);
  const receiver = evaluate(calleeNode.object, env, state, depth + 1);
  if (receiver === undefined) return undefined;
  if (typeof receiver === 'string') {
    if (method === 'split' && arg(0) === '') return [...receiver];
    if (method === 'charCodeAt' || method === 'codePointAt') {
      const at = args[0] ? arg(0) : 0;
      return typeof at === 'number' ? receiver.codePointAt(at) : undefined;
    }
    if (method === 'toString' || method === 'valueOf' || method === 'trim') return receiver;
    return undefined;
  }
  if (typeof receiver === 'number') return undefined;
  if (method === 'reverse') {
    state.ops.push('reverse');
    return reversed(receiver as number[]) as Value;
  }
  if (method === 'join') {
    const separator = args[0] ? arg(0) : ',';
    if (typeof separator !== 'string') return undefined;
    const text = receiver.join(separator);
    return text.length > MAX_DECODED ? undefined : text;
  }
  if (method === 'map') return mapped(receiver, unwrap(args[0]), env, state, depth);
  return undefined;
}

/** `codes.map((c, i) => c ^ key.charCodeAt(i % key.length))`: the callback run on each constant element. */
function mapped(list: Array<string | number>, fn: AstNode | undefined, env: Map<string, Value>, state: State, depth: number): Value | undefined {
  if (!fn || !isFunction(fn) || list.length > MAX_DECODED) return undefined;
  const [element, position] = (fn.params ?? []).map((param: AstNode) => (param.type === 'Identifier' ? (param.name as string) : undefined));
  let body = fn.body;
  if (body?.type === 'BlockStatement') {
    const only = body.body.length === 1 ? body.body[0] : undefined;
    body = only?.type === 'ReturnStatement' ? only.argument : undefined;
  }
  if (!body || element === undefined) return undefined;
  const out: Array<string | number> = [];
  for (const [i, item] of list.entries()) {
    const scope = new Map(env);
    scope.set(element, item);
    if (position !== undefined) scope.set(position, i);
    const value = evaluate(body, scope, state, depth + 1);
    if (typeof value !== 'string' && typeof value !== 'number') return undefined;
    out.push(value);
  }
  return out;
}

function plain(value: unknown): Value | undefined {
  if (typeof value === 'string' || typeof value === 'number') return value;
  if (Array.isArray(value) && value.every((part) => typeof part === 'string' || typeof part === 'number')) return value as Array<string | number>;
  return undefined;
}


