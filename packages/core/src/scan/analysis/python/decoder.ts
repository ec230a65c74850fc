// Static evaluation of the Python shapes an obfuscated loader rebuilds its payload with, on literals only:
// `base64.b64decode(s[::-1])`, `bytes.fromhex`, `codecs.decode(s, 'rot13')`, `"".join(chr(c ^ k) for c in data)`,
// `bytes(c ^ k for c in data).decode()` and chains of them. A tiny interpreter over constants (see ../decode.ts): it
// never runs scanned code, and stops after a fixed number of steps.
import { arithmetic, decodeBase64, decodeHex, fromCodes, MAX_DECODED, reversed, rot13 } from '../decode.js';
import { DECODERS } from './catalog.js';
import { callArguments, dottedName, stringValue, type Node } from './syntax.js';

type Value = string | number | Array<string | number>;

export interface DecodeEnvironment {
  /** The fully qualified name of a dotted name as written (`b64decode` → `base64.b64decode`). */
  qualify(name: string): string;
  /** The node a module-level constant is bound to. */
  constant(name: string): Node | undefined;
}

interface State {
  env: DecodeEnvironment;
  steps: number;
  ops: string[];
}

const MAX_STEPS = 200_000;
const MAX_DEPTH = 24;

/** The text a call computes from literals, when it applied at least one decoding operation (`ops`, in order). */
export function decodePython(node: Node, env: DecodeEnvironment): { text: string; ops: string[] } | undefined {
  const state: State = { env, steps: 0, ops: [] };
  const value = evaluate(node, new Map(), state, 0);
  if (value === undefined || !state.ops.length) return undefined;
  const text = typeof value === 'string' ? value : Array.isArray(value) && value.every((part) => typeof part === 'string') ? value.join('') : undefined;
  return text === undefined ? undefined : { text, ops: state.ops };
}

function evaluate(node: Node | null | undefined, locals: Map<string, Value>, state: State, depth: number): Value | undefined {
  if (!node || depth > MAX_DEPTH || ++state.steps > MAX_STEPS) return undefined;
  const next = (child: Node | null | undefined, scope = locals) => evaluate(child, scope, state, depth + 1);
  switch (node.type) {
    case 'string':
    case 'concatenated_string':
      return stringValue(node);
    case 'integer': {
      const value = Number(node.text.replace(/_/g, ''));
      return Number.isSafeInteger(value) ? value : undefined;
    }
    case 'parenthesized_expression':
      return next(node.namedChildren[0]);
    case 'identifier': {
      const bound = locals.get(node.text);
      if (bound !== undefined) return bound;
      const constant = state.env.constant(node.text);
      return constant && constant !== node ? next(constant) : undefined;
    }
    case 'list':
    case 'tuple': {
      const out: Array<string | number> = [];
      for (const element of node.namedChildren) {
        const value = next(element);
        if (value === undefined || Array.isArray(value) || out.length >= MAX_DECODED) return undefined;
        out.push(value);
      }
      return out;
    }
    case 'binary_operator': {
      const left = next(node.childForFieldName('left'));
      const right = next(node.childForFieldName('right'));
      const operator = node.childForFieldName('operator')?.text ?? '';
      if (typeof left === 'number' && typeof right === 'number') {
        if (operator === '^' && !state.ops.includes('xor')) state.ops.push('xor');
        return arithmetic(operator, left, right);
      }
      if (operator === '+' && typeof left === 'string' && typeof right === 'string') return left.length + right.length > MAX_DECODED ? undefined : left + right;
      return undefined;
    }
    case 'subscript': {
      const value = next(node.childForFieldName('value'));
      const subscript = node.childForFieldName('subscript');
      if (value === undefined || typeof value === 'number' || !subscript) return undefined;
      if (subscript.type === 'slice' && /^::\s*-\s*1$/.test(subscript.text)) {
        state.ops.push('reverse');
        return reversed(value as number[]) as Value;
      }
      const at = next(subscript);
      return typeof at === 'number' ? value.at(at) : undefined;
    }
    case 'generator_expression':
    case 'list_comprehension':
      return comprehension(node, locals, state, depth);
    case 'call':
      return call(node, locals, state, depth);
    default:
      return undefined;
  }
}

/** `chr(c ^ key) for c in data`: one `for` clause over a constant sequence, no condition. */
function comprehension(node: Node, locals: Map<string, Value>, state: State, depth: number): Value | undefined {
  const body = node.childForFieldName('body');
  const clauses = node.namedChildren.filter((child) => child?.type === 'for_in_clause' || child?.type === 'if_clause');
  const clause = clauses.length === 1 ? clauses[0] : undefined;
  const name = clause?.childForFieldName('left');
  if (!body || !clause || clause.type !== 'for_in_clause' || name?.type !== 'identifier') return undefined;
  const source = evaluate(clause.childForFieldName('right'), locals, state, depth + 1);
  if (source === undefined || typeof source === 'number') return undefined;
  const items = typeof source === 'string' ? [...source] : source;
  const out: Array<string | number> = [];
  for (const item of items) {
    const value = evaluate(body, new Map(locals).set(name.text, item), state, depth + 1);
    if (value === undefined || Array.isArray(value)) return undefined;
    out.push(value);
  }
  return out;
}

function call(node: Node, locals: Map<string, Value>, state: State, depth: number): Value | undefined {
  const fn = node.childForFieldName('function');
  const args = callArguments(node);
  const arg = (position: number) => evaluate(args.positional[position], locals, state, depth + 1);
  const decoded = (op: string, text: string | undefined) => {
    if (text !== undefined) state.ops.push(op);
    return text;
  };
  const written = dottedName(fn);
  const qualified = written ? state.env.qualify(written) : undefined;
  if (qualified) {
    const encoding = DECODERS[qualified];
    if (encoding) {
      const input = arg(0);
      if (typeof input !== 'string') return undefined;
      return encoding === 'hex' ? decoded('hex', decodeHex(input)) : decoded('base64', decodeBase64(input));
    }
    if (qualified === 'codecs.decode' || qualified === 'codecs.encode') {
      const input = arg(0);
      const codec = (args.positional[1] ? arg(1) : stringValue(args.keywords.get('encoding')))?.toString().toLowerCase().replace('-', '_');
      if (typeof input !== 'string') return undefined;
      if (codec === 'rot13' || codec === 'rot_13') return decoded('rot13', rot13(input));
      if (qualified === 'codecs.decode' && codec === 'hex') return decoded('hex', decodeHex(input));
      if (qualified === 'codecs.decode' && codec === 'base64') return decoded('base64', decodeBase64(input));
      return undefined;
    }
    if (qualified === 'chr') {
      const code = arg(0);
      return typeof code === 'number' ? decoded('char codes', fromCodes([code])) : undefined;
    }
    if (qualified === 'ord') {
      const text = arg(0);
      return typeof text === 'string' && text.length === 1 ? text.codePointAt(0) : undefined;
    }
    if (qualified === 'bytes' || qualified === 'bytearray') {
      const codes = arg(0);
      return Array.isArray(codes) && codes.every((code) => typeof code === 'number') ? decoded('bytes', fromCodes(codes as number[])) : undefined;
    }
    if (qualified === 'reversed') {
      const value = arg(0);
      if (value === undefined || typeof value === 'number') return undefined;
      state.ops.push('reverse');
      return typeof value === 'string' ? [...value].reverse() : reversed(value as number[]) as Value;
    }
    if (qualified === 'list' || qualified === 'str') return arg(0);
  }
  if (fn?.type !== 'attribute') return undefined;
  const method = fn.childForFieldName('attribute')?.text;
  const receiver = evaluate(fn.childForFieldName('object'), locals, state, depth + 1);
  if (typeof receiver !== 'string') return undefined;
  if (method === 'join') {
    const parts = arg(0);
    if (parts === undefined || typeof parts === 'number') return undefined;
    const text = (typeof parts === 'string' ? [...parts] : parts).join(receiver);
    return text.length > MAX_DECODED ? undefined : text;
  }
  if (method === 'decode' || method === 'encode' || method === 'strip') return receiver;
  return undefined;
}
