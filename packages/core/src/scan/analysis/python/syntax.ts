// Small readers over tree-sitter-python nodes, shared by the extractors, the dataflow and the code facts.
import type { Node } from 'web-tree-sitter';
import type { SourceLocation } from '../../model.js';

export type { Node };

export function location(file: string, node: Node): SourceLocation {
  return {
    file,
    line: node.startPosition.row + 1,
    column: node.startPosition.column + 1,
    endLine: node.endPosition.row + 1,
    endColumn: node.endPosition.column + 1,
  };
}

/** The first line of the node's text, trimmed and bounded: what a report shows as the code at fault. */
export function snippet(node: Node): string {
  const firstLine = node.text.split('\n', 1)[0] ?? '';
  const line = firstLine.trim();
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}

const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0', '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', v: '\v', '\n': '' };

function unescape(sequence: string): string {
  const body = sequence.slice(1);
  const simple = SIMPLE_ESCAPES[body];
  if (simple !== undefined) return simple;
  if (/^(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})$/.test(body)) return String.fromCodePoint(parseInt(body.slice(1), 16));
  if (/^[0-7]{1,3}$/.test(body)) return String.fromCodePoint(parseInt(body, 8));
  return sequence;
}

export function stringPrefix(node: Node): string {
  const start = node.children.find((child) => child?.type === 'string_start');
  return (start?.text ?? '').replace(/['"]/g, '').toLowerCase();
}

export function isFString(node: Node): boolean {
  if (node.type === 'concatenated_string') return node.namedChildren.some((part) => part !== null && isFString(part));
  return node.type === 'string' && stringPrefix(node).includes('f');
}

/** The text of a string part, escapes decoded (raw strings kept as written). Interpolations are rendered by `hole`. */
function renderString(node: Node, hole: (interpolation: Node) => string): string {
  if (node.type === 'concatenated_string') {
    return node.namedChildren.map((part) => (part ? renderString(part, hole) : '')).join('');
  }
  const raw = stringPrefix(node).includes('r');
  let out = '';
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === 'string_content') {
      if (raw) {
        out += child.text;
        continue;
      }
      // string_content holds escape_sequence children; splice decoded escapes into the surrounding text.
      let cursor = child.startIndex;
      for (const escape of child.namedChildren) {
        if (!escape || escape.type !== 'escape_sequence') continue;
        out += child.text.slice(cursor - child.startIndex, escape.startIndex - child.startIndex);
        out += unescape(escape.text);
        cursor = escape.endIndex;
      }
      out += child.text.slice(cursor - child.startIndex);
    } else if (child.type === 'interpolation') {
      out += hole(child);
    }
  }
  return out;
}

/** The value of a string literal without interpolations (implicit concatenation included), else undefined. */
export function stringValue(node: Node | null | undefined): string | undefined {
  if (!node) return undefined;
  if (node.type === 'parenthesized_expression' && node.namedChildren.length === 1) return stringValue(node.namedChildren[0]);
  if (node.type !== 'string' && node.type !== 'concatenated_string') return undefined;
  let dynamic = false;
  const text = renderString(node, () => {
    dynamic = true;
    return '';
  });
  return dynamic ? undefined : text;
}

/** The constant text of a string up to its first interpolation (`f"https://api.x.com/{q}"` → `https://api.x.com/`). */
export function constantPrefix(node: Node): string {
  const marker = '\u0000';
  const rendered = renderString(node, () => marker);
  const hole = rendered.indexOf(marker);
  return hole === -1 ? rendered : rendered.slice(0, hole);
}

export type Literal = string | number | boolean | null | Literal[] | { [key: string]: Literal };

const NOT_LITERAL = Symbol('not-literal');

/** Python literal → JSON-like value: strings, numbers, True/False/None, lists/tuples/sets, dicts with string keys. */
export function literalValue(node: Node | null | undefined): Literal | undefined {
  const value = literalOrMarker(node);
  return value === NOT_LITERAL ? undefined : value;
}

function literalOrMarker(node: Node | null | undefined): Literal | typeof NOT_LITERAL {
  if (!node) return NOT_LITERAL;
  switch (node.type) {
    case 'string':
    case 'concatenated_string':
      return stringValue(node) ?? NOT_LITERAL;
    case 'integer': {
      const n = Number(node.text.replace(/_/g, ''));
      return Number.isFinite(n) ? n : NOT_LITERAL;
    }
    case 'float':
      return Number(node.text.replace(/_/g, ''));
    case 'true':
      return true;
    case 'false':
      return false;
    case 'none':
      return null;
    case 'unary_operator': {
      const operand = literalOrMarker(node.childForFieldName('argument'));
      return typeof operand === 'number' && node.text.trim().startsWith('-') ? -operand : NOT_LITERAL;
    }
    case 'parenthesized_expression':
      return literalOrMarker(node.namedChildren[0]);
    case 'list':
    case 'tuple':
    case 'set': {
      const items: Literal[] = [];
      for (const child of node.namedChildren) {
        const item = literalOrMarker(child);
        if (item === NOT_LITERAL) return NOT_LITERAL;
        items.push(item);
      }
      return items;
    }
    case 'dictionary': {
      const object: Record<string, Literal> = {};
      for (const pair of node.namedChildren) {
        if (!pair || pair.type !== 'pair') return NOT_LITERAL;
        const key = literalOrMarker(pair.childForFieldName('key'));
        const value = literalOrMarker(pair.childForFieldName('value'));
        if (typeof key !== 'string' || value === NOT_LITERAL) return NOT_LITERAL;
        object[key] = value;
      }
      return object;
    }
    default:
      return NOT_LITERAL;
  }
}

/** `a.b.c` for identifier/attribute chains, else undefined. */
export function dottedName(node: Node | null | undefined): string | undefined {
  if (!node) return undefined;
  if (node.type === 'identifier') return node.text;
  if (node.type === 'attribute') {
    const object = dottedName(node.childForFieldName('object'));
    const attribute = node.childForFieldName('attribute')?.text;
    return object && attribute ? `${object}.${attribute}` : undefined;
  }
  return undefined;
}

export interface CallArguments {
  positional: Node[];
  keywords: Map<string, Node>;
  /** `*args` / `**kwargs` at the call: argument positions are then unknown. */
  splats: Node[];
}

export function callArguments(call: Node): CallArguments {
  const result: CallArguments = { positional: [], keywords: new Map(), splats: [] };
  const list = call.childForFieldName('arguments');
  if (!list) return result;
  // A call like f(x for x in y) has a generator_expression as its arguments node.
  if (list.type !== 'argument_list') {
    result.positional.push(list);
    return result;
  }
  for (const argument of list.namedChildren) {
    if (!argument || argument.type === 'comment') continue;
    if (argument.type === 'keyword_argument') {
      const name = argument.childForFieldName('name')?.text;
      const value = argument.childForFieldName('value');
      if (name && value) result.keywords.set(name, value);
    } else if (argument.type === 'list_splat' || argument.type === 'dictionary_splat') {
      result.splats.push(argument);
    } else {
      result.positional.push(argument);
    }
  }
  return result;
}

/** Positional argument `index` or keyword `name`, whichever the call uses. */
export function argument(args: CallArguments, index: number, name?: string): Node | undefined {
  return args.positional[index] ?? (name ? args.keywords.get(name) : undefined);
}

/** inspect.cleandoc: strip the common indentation of all lines but the first, and blank lines at either end. */
export function cleandoc(doc: string): string {
  const lines = doc.replace(/\t/g, '        ').split('\n');
  let margin = Infinity;
  for (const line of lines.slice(1)) {
    const content = line.trimStart();
    if (content.length > 0) margin = Math.min(margin, line.length - content.length);
  }
  const cleaned = [(lines[0] ?? '').trimStart(), ...lines.slice(1).map((line) => (margin === Infinity ? line : line.slice(margin)))];
  while (cleaned.length > 0 && cleaned[0]!.trim() === '') cleaned.shift();
  while (cleaned.length > 0 && cleaned[cleaned.length - 1]!.trim() === '') cleaned.pop();
  return cleaned.map((line) => line.trimEnd()).join('\n');
}

/** The docstring of a function or class body, cleaned like inspect.getdoc. */
export function docstring(definition: Node): string | undefined {
  const body = definition.childForFieldName('body');
  const first = body?.namedChildren[0];
  if (!first || first.type !== 'expression_statement') return undefined;
  const value = stringValue(first.namedChildren[0]);
  return value === undefined ? undefined : cleandoc(value);
}

/** Unwraps `await x` and `(x)`. */
export function unwrap(node: Node): Node {
  let current = node;
  for (;;) {
    if ((current.type === 'await' || current.type === 'parenthesized_expression') && current.namedChildren[0]) {
      current = current.namedChildren[0];
    } else {
      return current;
    }
  }
}

export function parameterName(parameter: Node): string | undefined {
  switch (parameter.type) {
    case 'identifier':
      return parameter.text;
    case 'typed_parameter':
      return parameter.namedChildren.find((child) => child?.type === 'identifier')?.text;
    case 'default_parameter':
    case 'typed_default_parameter':
      return parameter.childForFieldName('name')?.text;
    default:
      return undefined;
  }
}

/** The parameters of a function definition that callers can bind, in order (splats and separators left out). */
export function functionParameters(definition: Node): Node[] {
  const list = definition.childForFieldName('parameters');
  return (list?.namedChildren ?? []).filter(
    (parameter): parameter is Node => parameter !== null && parameterName(parameter) !== undefined,
  );
}

/** `*args` and `**kwargs` of a definition: their names, and how many named parameters stand before `*args`. */
export function splatParameters(definition: Node): { list?: { name: string; before: number }; dict?: string } {
  const result: { list?: { name: string; before: number }; dict?: string } = {};
  let before = 0;
  for (const parameter of definition.childForFieldName('parameters')?.namedChildren ?? []) {
    if (!parameter) continue;
    // `*args: str` is a typed_parameter around the splat pattern.
    const pattern = parameter.type === 'typed_parameter' ? (parameter.namedChildren[0] ?? parameter) : parameter;
    const name = pattern.namedChildren.find((child) => child?.type === 'identifier')?.text;
    if (pattern.type === 'list_splat_pattern' && name) result.list = { name, before };
    else if (pattern.type === 'dictionary_splat_pattern' && name) result.dict = name;
    else if (!result.list && parameterName(parameter) !== undefined) before++;
  }
  return result;
}
