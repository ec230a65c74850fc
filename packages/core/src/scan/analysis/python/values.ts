// The values the Python dataflow passes around: a taint (where a value comes from, how it was built, which guards it
// passed), the sinks it reaches, function summaries, and the pure operations that combine them.
import type { Reach } from '../capabilities.js';
import type { FlowStep, TaintFlow, ToolParameter } from '../../model.js';
import { FIXED_HOST, SENSITIVE_PATH } from './catalog.js';
import { isRestrictivePattern, type ArgvRole } from '../catalog.js';
import type { PyModule, PyProgram } from './program.js';
import { callArguments, stringPrefix, type Node } from './syntax.js';

export interface Taint {
  origin: TaintFlow['origin'];
  /** Set while summarising a function: the value comes from its parameter `index` (`key`: a subscript of it). */
  param?: { index: number; key?: string };
  composition: 'whole' | 'embedded';
  steps: FlowStep[];
  sanitizers: string[];
  crossFile: boolean;
  /** Position in an argv list: the program itself, or one of its arguments. */
  argv?: 'program' | 'arg';
  /** The argv list starts with a shell and `-c`, so its arguments are shell code again. */
  shellList?: boolean;
  /** What the element is to the program of a literal argv list (shared catalogue's classifyArgv), and that program. */
  argvRole?: ArgvRole;
  argvProgram?: string;
  /** realpath / resolve() applied: a later prefix check is a real containment check. */
  resolved?: boolean;
  /** The low-level `arguments` mapping itself: a constant subscript picks one parameter. */
  dict?: ToolParameter[];
  /**
   * The whole request of a tools/call (v2 `params`, a JSON-RPC message): its `arguments` member is the mapping above,
   * its `name`, `id` and `method` are not tool input, and it reaches no sink as a whole.
   */
  envelope?: boolean;
  /** The answer to a request whose URL is the parameter in `param`: a remote response when the caller's URL is an outsider's. */
  responseOf?: boolean;
  /** The value sits after a constant `scheme://host/` in a URL: a request with it cannot reach another host. */
  hostFixed?: string;
  /**
   * One environment variable named like a credential (`os.environ.get("API_TOKEN")`): configuration where it is meant
   * to go, a finding only in a log line or a tool result. It travels through data, `str`, `json.dumps` and formatting,
   * not through the result of other calls it is handed to (a client built with the key returns its API's answers).
   */
  secret?: boolean;
  /** For a secret: the key of the dict literal it was stored under (`{"api_token": token}`); reading another key does not see it. */
  field?: string;
  /**
   * One path segment: `true` after `quote(x, safe='')`, `basename` or a substitution that strips `/` and `\\`; `false`
   * once unquoted again. Lost when embedded in a longer string (see the shared catalogue's `single-path-segment`).
   */
  segment?: boolean;
}

/** A credential read from the environment by name (see `Taint.secret`). */
export function secretEnvTaint(file: string, node: Node, name: string): Taint {
  return {
    origin: { kind: 'env', detail: name },
    composition: 'whole',
    steps: [{ file, line: node.startPosition.row + 1, note: `reads the environment variable ${name}`, kind: 'environment' }],
    sanitizers: [],
    crossFile: false,
    secret: true,
  };
}

export function withoutSecrets(taints: Taint[]): Taint[] {
  return taints.some((taint) => taint.secret) ? taints.filter((taint) => !taint.secret) : taints;
}

export type SinkInfo = TaintFlow['sink'];

export interface SinkHit {
  sink: SinkInfo;
  taint: Taint;
}

export interface ReturnSite {
  node: Node;
  taints: Taint[];
  /** The file `node` is in, when it may not be the handler's: a helper's JSON-RPC response (ScopeState `answers`). */
  file?: string;
}

export interface Summary {
  returns: Taint[];
  hits: SinkHit[];
  returnSites?: ReturnSite[];
  /** The JSON-RPC results the function sends (ScopeState `answers`): a tool's result when a dispatcher calls it. */
  answers?: ReturnSite[];
  /** What the function and its callees can do, whatever their arguments (capabilities.ts). */
  reach?: Reach;
}

const MAX_TAINTS = 24;
export const OUTSIDER_ORIGINS = new Set<string>(['tool-input', 'http-request', 'remote-response']);
export const MAX_STEPS = 12;

/** What a scope needs from the engine that runs it: summaries of callees, module values, and the place flows go. */
export interface TaintContext {
  readonly program: PyProgram;
  readonly destinationParam: WeakMap<SinkInfo, number>;
  emit(sink: SinkInfo, taint: Taint): void;
  summary(module: PyModule, definition: Node): Summary;
  moduleValue(module: PyModule, name: string): Taint[];
}

/** A tool parameter as a source, carrying the guards its declared schema gives it. */
export function inputTaint(tool: string, parameter: ToolParameter, file: string, node?: Node): Taint {
  return {
    origin: { kind: 'tool-input', tool, param: parameter.name },
    composition: 'whole',
    steps: [{ file, line: (node?.startPosition.row ?? 0) + 1, note: `tool input ${tool}.${parameter.name}` }],
    sanitizers: schemaSanitizers(parameter),
    crossFile: false,
  };
}

export function schemaSanitizers(parameter: ToolParameter): string[] {
  const sanitizers: string[] = [];
  if (parameter.enum && parameter.enum.length > 0) sanitizers.push('schema-enum');
  if (parameter.pattern && isRestrictivePattern(parameter.pattern)) sanitizers.push('schema-pattern');
  if (parameter.type && /^(int|float|bool|integer|number|boolean)$/.test(parameter.type.trim())) sanitizers.push('numeric');
  if (parameter.maximum !== undefined || (parameter.type && /^(bool|boolean)$/.test(parameter.type.trim()))) sanitizers.push('bounded');
  return sanitizers;
}

/** Whether a block refuses: it raises or returns (directly), so the `if` around it is a check, not a branch. */
export function refuses(block: Node | null | undefined): boolean {
  return block?.namedChildren.some((statement) => statement?.type === 'raise_statement' || statement?.type === 'return_statement') === true;
}

/**
 * A command sink as an argv element's place makes it: its role for the program (shell code after `sh -c`, an option
 * position of git …; every element is one command line with shell=True), and `execFile-argv` for a plain operand. A
 * sink reached through a helper's parameter has no role yet: the caller's value, substituted in, brings it.
 */
export function placeInArgv(sink: SinkInfo, taint: Taint): { sink: SinkInfo; taint: Taint } {
  if (sink.kind !== 'command' || sink.role !== undefined || taint.param) return { sink, taint };
  const shell = sink.shell === true;
  const role: ArgvRole | undefined = shell
    ? taint.argv === 'program' ? 'program' : taint.argv === 'arg' ? 'shell-code' : undefined
    : (taint.argvRole ?? (taint.argv === 'program' ? 'program' : taint.argv === 'arg' ? 'operand' : undefined));
  const shellled = shell || !!taint.shellList || role === 'shell-code';
  const placed: SinkInfo = { ...sink, shell: shellled, ...(role && { role }), ...(taint.argvProgram !== undefined && { program: taint.argvProgram }) };
  const joined = shell && taint.argv === 'arg' ? derive(taint, { composition: 'embedded' }) : taint;
  // Without a shell, an argument past the program name cannot start another command (it may still be an option).
  return { sink: placed, taint: !shellled && role === 'operand' ? withSanitizer([joined], 'execFile-argv')[0]! : joined };
}

/** The caller's value `outer` standing in for the callee's parameter use `inner`. */
export function substitute(outer: Taint, inner: Taint, note?: FlowStep): Taint {
  let origin = outer.origin;
  let sanitizers = [...outer.sanitizers, ...inner.sanitizers];
  let dict = outer.dict;
  // A whole request passed to a helper that reads one member: `arguments` is the mapping; other members stay opaque.
  const envelope = outer.envelope && inner.param?.key !== 'arguments';
  if (!outer.envelope && outer.dict && inner.param?.key !== undefined) {
    const declared = outer.dict.find((parameter) => parameter.name === inner.param!.key);
    origin = { ...origin, param: inner.param.key };
    if (declared) sanitizers = [...sanitizers, ...schemaSanitizers(declared)];
    dict = undefined;
  }
  if (inner.responseOf) origin = outer.param || OUTSIDER_ORIGINS.has(outer.origin.kind) ? inner.origin : { kind: 'unknown' };
  const steps = [...outer.steps, ...(note ? [note] : []), ...inner.steps].slice(-MAX_STEPS);
  const result: Taint = {
    origin,
    composition: outer.composition === 'embedded' || inner.composition === 'embedded' ? 'embedded' : 'whole',
    steps,
    sanitizers: [...new Set(sanitizers)],
    crossFile: outer.crossFile || inner.crossFile,
  };
  // A subscript inside the callee still picks one key of the caller's parameter: carry it outwards.
  if (outer.param) result.param = outer.param.key === undefined && inner.param?.key !== undefined ? { index: outer.param.index, key: inner.param.key } : outer.param;
  const argv = inner.argv ?? outer.argv;
  if (argv) result.argv = argv;
  // What the callee made of it (quoted, unquoted); a value it returns unchanged stays what the caller had.
  const segment = inner.segment ?? (inner.composition === 'embedded' ? undefined : outer.segment);
  if (segment !== undefined) result.segment = segment;
  if (inner.shellList || outer.shellList) result.shellList = true;
  const argvRole = inner.argvRole ?? outer.argvRole;
  if (argvRole) result.argvRole = argvRole;
  const argvProgram = inner.argvProgram ?? outer.argvProgram;
  if (argvProgram) result.argvProgram = argvProgram;
  if (inner.resolved || outer.resolved) result.resolved = true;
  if (dict && (!inner.param?.key || outer.envelope)) result.dict = dict;
  if (envelope) result.envelope = true;
  // Still the caller's parameter one level up: the answer becomes an outsider's only when the URL does.
  if (inner.responseOf && outer.param) result.responseOf = true;
  // Inside the callee the value either reached the sink as passed (the caller's host pin holds) or was rebuilt.
  const hostFixed = inner.composition === 'whole' ? (outer.hostFixed ?? inner.hostFixed) : inner.hostFixed;
  if (hostFixed) result.hostFixed = hostFixed;
  return result;
}

/** One argument picked from the tool's argument mapping, with the guards its declared schema gives it. */
export function argumentOf(taint: Taint, key: string, step: FlowStep): Taint {
  const declared = taint.dict?.find((parameter) => parameter.name === key);
  return derive(taint, {
    origin: { ...taint.origin, param: key },
    dict: undefined,
    sanitizers: [...taint.sanitizers, ...(declared ? schemaSanitizers(declared) : [])],
    steps: [...taint.steps, step],
  });
}

/** A member of a tools/call request: `arguments` is the argument mapping; the tool name, id and method carry nothing. */
export function envelopeMember(taint: Taint, key: string | undefined): Taint | undefined {
  if (key === 'arguments') return derive(taint, { envelope: undefined });
  if (key === undefined || /^(name|method|id|jsonrpc|_meta|meta)$/.test(key)) return undefined;
  return taint;
}

export function derive(taint: Taint, changes: Partial<Taint>): Taint {
  const result: Taint = { ...taint, ...changes };
  for (const key of Object.keys(changes) as Array<keyof Taint>) if (changes[key] === undefined) delete result[key];
  return result;
}

export function taintKey(taint: Taint): string {
  return JSON.stringify([taint.origin, taint.param, taint.composition, [...taint.sanitizers].sort(), taint.argv, taint.shellList, taint.resolved, !!taint.dict, !!taint.envelope, !!taint.responseOf, taint.field, taint.segment]);
}

export function union(...lists: Taint[][]): Taint[] {
  const result: Taint[] = [];
  const keys = new Set<string>();
  for (const list of lists) {
    for (const taint of list) {
      const key = taintKey(taint);
      if (keys.has(key)) continue;
      keys.add(key);
      result.push(taint);
      if (result.length >= MAX_TAINTS) return result;
    }
  }
  return result;
}

export function embedded(taints: Taint[]): Taint[] {
  return taints.map((taint) => derive(taint, { composition: 'embedded', argv: undefined, shellList: undefined, argvRole: undefined, argvProgram: undefined, dict: undefined, envelope: undefined, hostFixed: undefined, segment: undefined }));
}

/** `https://api.example.com/…` → `https://api.example.com`; undefined when the text does not pin scheme and host. */
export function fixedHostOf(text: string): string | undefined {
  return FIXED_HOST.test(text) ? /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]+/i.exec(text)?.[0] : undefined;
}

export function withStep(taints: Taint[], step: FlowStep): Taint[] {
  return taints.map((taint) => ({ ...taint, steps: [...taint.steps, step].slice(-MAX_STEPS) }));
}

/** A one-segment value with constant text beside it in that segment: it names one entry of the folder. */
export function segmentBesideText(taints: Taint[]): Taint[] {
  return taints.map((taint) => (taint.segment === true ? withSanitizer([taint], 'single-path-segment')[0] ?? taint : taint));
}

export function withSanitizer(taints: Taint[], sanitizer: string): Taint[] {
  return taints.map((taint) => (taint.sanitizers.includes(sanitizer) ? taint : { ...taint, sanitizers: [...taint.sanitizers, sanitizer] }));
}

/** Constant text at the start of a value: `{text, complete}` where complete means the whole value is constant. */
export interface StaticText {
  text: string;
  complete: boolean;
}

export function isWildcardCase(clause: Node): boolean {
  return clause.namedChildren.some((child) => child?.type === 'case_pattern' && child.text === '_');
}

export function isSequenceLiteral(node: Node): boolean {
  return node.type === 'list' || node.type === 'tuple';
}

export function baseIdentifier(node: Node): string | undefined {
  let current: Node | null = node;
  while (current) {
    if (current.type === 'identifier') return current.text;
    if (current.type === 'attribute') current = current.childForFieldName('object');
    else if (current.type === 'subscript') current = current.childForFieldName('value');
    else if (current.type === 'parenthesized_expression' || current.type === 'await') current = current.namedChildren[0] ?? null;
    else if (current.type === 'call' && current.childForFieldName('function')?.text === 'str') current = callArguments(current).positional[0] ?? null;
    else return undefined;
  }
  return undefined;
}

/** Data of a request to the package's own HTTP routes. */
export function requestTaint(file: string, node: Node, detail: string, type?: string): Taint {
  const sanitizers = type && /^(int|float|bool|Decimal|UUID|uuid\.UUID|datetime|date)$/.test(type.trim()) ? ['numeric'] : [];
  return {
    origin: { kind: 'http-request', detail },
    composition: 'whole',
    steps: [{ file, line: node.startPosition.row + 1, note: `request data (${detail})`, kind: 'http-request' }],
    sanitizers,
    crossFile: false,
  };
}

/** What a server the package talks to answered. */
export function responseTaint(file: string, node: Node, detail: string): Taint {
  return {
    origin: { kind: 'remote-response', detail },
    composition: 'whole',
    steps: [{ file, line: node.startPosition.row + 1, note: detail, kind: 'remote-response' }],
    sanitizers: [],
    crossFile: false,
  };
}

export function envTaint(file: string, node: Node): Taint {
  return {
    origin: { kind: 'env', detail: 'os.environ' },
    composition: 'whole',
    steps: [{ file, line: node.startPosition.row + 1, note: 'the whole environment (os.environ)' }],
    sanitizers: [],
    crossFile: false,
  };
}

export function sensitiveTaint(file: string, node: Node, text: string): Taint | undefined {
  if (text.length > 300 || !SENSITIVE_PATH.test(text)) return undefined;
  // Byte strings and docstrings are not paths.
  if (stringPrefix(node).includes('b')) return undefined;
  return {
    origin: { kind: 'sensitive-file', detail: text },
    composition: 'whole',
    steps: [{ file, line: node.startPosition.row + 1, note: `reads ${text}` }],
    sanitizers: [],
    crossFile: false,
  };
}
