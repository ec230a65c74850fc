// Dataflow over Python handlers: which tool inputs (and which secrets, environment dumps or decoded constants) reach
// which dangerous calls. Each function is summarised once (parameters as symbolic sources): the summary says which
// parameters reach which sinks and which flow into the return value, so a call site only substitutes its arguments.
import { inflateSync, gunzipSync } from 'node:zlib';
import type { FlowStep, SinkKind, TaintFlow, ToolParameter } from '../../model.js';
import {
  BASENAME_CALLS,
  CODE_CALLS,
  OPENER_CALLS,
  COMMAND_ARGV,
  COMMAND_SHELL,
  COMMAND_SUBPROCESS,
  DECODERS,
  DESERIALIZE_CALLS,
  EMBEDDING_METHODS,
  FILE_COPY_CALLS,
  FILE_MOVE_CALLS,
  FILE_READ_CALLS,
  FILE_WRITE_CALLS,
  FIXED_HOST,
  HTTP_CLIENT_TYPES,
  HTTP_METHODS,
  KNOWN_TYPES,
  LIST_METHODS,
  MUTATING_METHODS,
  NETWORK_TOOLS,
  NON_INPUT_SINKS,
  NUMERIC_CALLS,
  OPEN_CALLS,
  ORIGIN_WORDS,
  OUTBOUND_WORDS,
  PARAMETERISED_SQL_CALLS,
  PATH_READ_METHODS,
  PATH_WRITE_METHODS,
  PAYLOAD_KEYWORDS,
  RESOLVE_CALLS,
  SAFE_YAML_LOADER,
  SENSITIVE_PATH,
  SHELLS,
  SKIPPED_AT_MODULE_LEVEL,
  SQL_CALLS,
  SQL_METHODS,
  YAML_LOAD,
} from './catalog.js';
import { argvElementGuard, classifyArgv, isRestrictivePattern, programName, SQL_STATEMENT_START, type ArgvRole } from '../catalog.js';
import { classConstant, qualify, resolveConstant, type PyHandler, type PyModule, type PyProgram } from './program.js';
import {
  callArguments,
  dottedName,
  functionParameters,
  location,
  parameterName,
  snippet,
  stringPrefix,
  stringValue,
  type CallArguments,
  type Node,
} from './syntax.js';

interface Taint {
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
  /** The value sits after a constant `scheme://host/` in a URL: a request with it cannot reach another host. */
  hostFixed?: string;
}

type SinkInfo = TaintFlow['sink'];

interface SinkHit {
  sink: SinkInfo;
  taint: Taint;
}

interface Summary {
  returns: Taint[];
  hits: SinkHit[];
}

const MAX_TAINTS = 24;

const OPAQUE_RESULTS = new Set<SinkKind>(['command', 'network', 'network-send', 'sql', 'email']);
const MAX_STEPS = 12;

/** Runs the dataflow over a parsed package: summaries on demand from the handlers, plus a sweep for secrets, environment dumps and decoded payloads. */
export function analyzeTaint(program: PyProgram, handlers: readonly PyHandler[]): TaintFlow[] {
  const engine = new TaintEngine(program);
  for (const module of program.modules) {
    if (ORIGIN_WORDS.test(module.file.text ?? '')) engine.analyzeModuleBody(module);
  }
  // Handlers pull in the summaries they need. The sweep for secrets, environment dumps and decoded payloads visits
  // only functions that mention such an origin, then the callers of those that return one, and so on a few rounds.
  const functions = program.modules.flatMap((module) =>
    [...module.functions.values(), ...module.methods.values()].map((definition) => ({ module, definition, text: definition.text })),
  );
  const visited = new Set<(typeof functions)[number]>();
  let mentions = ORIGIN_WORDS;
  for (let round = 0; round < 4; round++) {
    const returning = new Set<string>();
    for (const entry of functions) {
      if (visited.has(entry) || !mentions.test(entry.text)) continue;
      visited.add(entry);
      const summary = engine.summary(entry.module, entry.definition);
      if (summary.returns.some((taint) => !taint.param && taint.origin.kind !== 'unknown')) {
        const name = entry.definition.childForFieldName('name')?.text;
        if (name) returning.add(name);
      }
    }
    if (returning.size === 0) break;
    mentions = new RegExp(`\\b(${[...returning].join('|')})\\s*\\(`);
  }
  for (const handler of handlers) engine.analyzeHandler(handler);
  return engine.flows;
}

class TaintEngine {
  readonly flows: TaintFlow[] = [];
  /** Sinks whose destination is still a parameter of the summarised function: callers fill in the constant they pass. */
  readonly destinationParam = new WeakMap<SinkInfo, number>();
  private readonly seen = new Set<string>();
  private readonly summaries = new Map<string, Summary>();
  private readonly inProgress = new Set<string>();
  private readonly moduleValues = new Map<string, Taint[]>();

  constructor(readonly program: PyProgram) {}

  emit(sink: SinkInfo, taint: Taint): void {
    if (taint.origin.kind !== 'tool-input' && !NON_INPUT_SINKS.has(sink.kind)) return;
    let sanitizers = taint.sanitizers;
    if (sink.kind === 'network' && taint.hostFixed) {
      sanitizers = [...sanitizers, 'fixed-host'];
      if (!sink.target) sink = { ...sink, target: taint.hostFixed };
    }
    const flow: TaintFlow = {
      sink,
      origin: taint.origin,
      composition: taint.composition,
      steps: taint.steps,
      sanitizers: [...new Set(sanitizers)].sort(),
      crossFile: taint.crossFile,
    };
    const key = JSON.stringify([sink.location, sink.kind, sink.target, flow.origin, flow.composition, flow.sanitizers]);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.flows.push(flow);
  }

  /** The summary of one function; calls into other files of the package are followed as far as they go. */
  summary(module: PyModule, definition: Node): Summary {
    const key = `${module.path}:${definition.startIndex}`;
    const cached = this.summaries.get(key);
    if (cached) return cached;
    if (this.inProgress.has(key)) return { returns: [], hits: [] };
    this.inProgress.add(key);
    const scope = new Scope(this, module);
    functionParameters(definition).forEach((parameter, index) => {
      const name = parameterName(parameter)!;
      scope.env.set(name, [{ origin: { kind: 'unknown' }, param: { index }, composition: 'whole', steps: [], sanitizers: [], crossFile: false }]);
      scope.parameterIndex.set(name, index);
      const annotation = parameter.childForFieldName('type')?.text;
      if (annotation && /\bPath\b/.test(annotation)) scope.types.set(name, 'pathlib.Path');
    });
    const body = definition.childForFieldName('body');
    if (body) scope.block(body);
    const result = { returns: scope.returns, hits: scope.hits };
    this.inProgress.delete(key);
    this.summaries.set(key, result);
    return result;
  }

  /** Module-level code that names an origin or an outbound sink; other statements are evaluated lazily when referenced. */
  analyzeModuleBody(module: PyModule): void {
    const scope = new Scope(this, module);
    for (const statement of module.root.namedChildren) {
      if (statement && !SKIPPED_AT_MODULE_LEVEL.has(statement.type) && (ORIGIN_WORDS.test(statement.text) || OUTBOUND_WORDS.test(statement.text))) {
        scope.statement(statement);
      }
    }
  }

  /** Taint of a module-level name used inside a function (`WEBHOOK = base64.b64decode(...)`), computed once. */
  moduleValue(module: PyModule, name: string): Taint[] {
    const key = `${module.path}:${name}`;
    const cached = this.moduleValues.get(key);
    if (cached) return cached;
    this.moduleValues.set(key, []);
    const value = module.constants.get(name);
    const taints = value ? new Scope(this, module).expression(value) : [];
    this.moduleValues.set(key, taints);
    return taints;
  }

  analyzeHandler(handler: PyHandler): void {
    if (handler.kind === 'function') {
      const parameters = functionParameters(handler.definition);
      const summary = this.summary(handler.module, handler.definition);
      for (const hit of summary.hits) {
        const parameter = parameters[hit.taint.param!.index];
        const name = parameter ? parameterName(parameter) : undefined;
        const declared = handler.parameters.find((candidate) => candidate.name === name);
        if (!parameter || !declared) continue;
        const seed = inputTaint(handler.tool, declared, handler.module.path, parameter);
        const placed = placeInArgv(hit.sink, substitute(seed, hit.taint));
        this.emit(placed.sink, placed.taint);
      }
      return;
    }
    // Low-level dispatcher: walk the function once per tool, entering only the branches that tool reaches.
    const parameters = functionParameters(handler.definition).map((parameter) => parameterName(parameter)!);
    const offset = parameters[0] === 'self' ? 1 : 0;
    const nameParam = parameters[offset];
    const argumentsParam = parameters[offset + 1];
    if (!nameParam || !argumentsParam) return;
    const scope = new Scope(this, handler.module, { tool: handler.tool, nameParam });
    scope.env.set(argumentsParam, [
      {
        origin: { kind: 'tool-input', tool: handler.tool },
        composition: 'whole',
        steps: [{ file: handler.module.path, line: handler.definition.startPosition.row + 1, note: `arguments of ${handler.tool}` }],
        sanitizers: [],
        crossFile: false,
        dict: handler.parameters,
      },
    ]);
    const body = handler.definition.childForFieldName('body');
    if (body) scope.block(body);
    // Reached sinks with real origins were emitted directly; the dispatcher's own summary is not needed.
  }
}

/** A tool parameter as a source, carrying the guards its declared schema gives it. */
function inputTaint(tool: string, parameter: ToolParameter, file: string, node?: Node): Taint {
  return {
    origin: { kind: 'tool-input', tool, param: parameter.name },
    composition: 'whole',
    steps: [{ file, line: (node?.startPosition.row ?? 0) + 1, note: `tool input ${tool}.${parameter.name}` }],
    sanitizers: schemaSanitizers(parameter),
    crossFile: false,
  };
}

function schemaSanitizers(parameter: ToolParameter): string[] {
  const sanitizers: string[] = [];
  if (parameter.enum && parameter.enum.length > 0) sanitizers.push('schema-enum');
  if (parameter.pattern && isRestrictivePattern(parameter.pattern)) sanitizers.push('schema-pattern');
  if (parameter.type && /^(int|float|bool|integer|number|boolean)$/.test(parameter.type.trim())) sanitizers.push('numeric');
  return sanitizers;
}


/** The caller's value `outer` standing in for the callee's parameter use `inner`. */
/** Whether a block refuses: it raises or returns (directly), so the `if` around it is a check, not a branch. */
function refuses(block: Node | null | undefined): boolean {
  return block?.namedChildren.some((statement) => statement?.type === 'raise_statement' || statement?.type === 'return_statement') === true;
}

/**
 * A command sink as an argv element's place makes it: its role for the program (shell code after `sh -c`, an option
 * position of git …; every element is one command line with shell=True), and `execFile-argv` for a plain operand. A
 * sink reached through a helper's parameter has no role yet: the caller's value, substituted in, brings it.
 */
function placeInArgv(sink: SinkInfo, taint: Taint): { sink: SinkInfo; taint: Taint } {
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

function substitute(outer: Taint, inner: Taint, note?: FlowStep): Taint {
  let origin = outer.origin;
  let sanitizers = [...outer.sanitizers, ...inner.sanitizers];
  let dict = outer.dict;
  if (outer.dict && inner.param?.key !== undefined) {
    const declared = outer.dict.find((parameter) => parameter.name === inner.param!.key);
    origin = { ...origin, param: inner.param.key };
    if (declared) sanitizers = [...sanitizers, ...schemaSanitizers(declared)];
    dict = undefined;
  }
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
  if (inner.shellList || outer.shellList) result.shellList = true;
  const argvRole = inner.argvRole ?? outer.argvRole;
  if (argvRole) result.argvRole = argvRole;
  const argvProgram = inner.argvProgram ?? outer.argvProgram;
  if (argvProgram) result.argvProgram = argvProgram;
  if (inner.resolved || outer.resolved) result.resolved = true;
  if (dict && !inner.param?.key) result.dict = dict;
  // Inside the callee the value either reached the sink as passed (the caller's host pin holds) or was rebuilt.
  const hostFixed = inner.composition === 'whole' ? (outer.hostFixed ?? inner.hostFixed) : inner.hostFixed;
  if (hostFixed) result.hostFixed = hostFixed;
  return result;
}

function derive(taint: Taint, changes: Partial<Taint>): Taint {
  const result: Taint = { ...taint, ...changes };
  for (const key of Object.keys(changes) as Array<keyof Taint>) if (changes[key] === undefined) delete result[key];
  return result;
}

function taintKey(taint: Taint): string {
  return JSON.stringify([taint.origin, taint.param, taint.composition, [...taint.sanitizers].sort(), taint.argv, taint.shellList, taint.resolved, !!taint.dict]);
}

function union(...lists: Taint[][]): Taint[] {
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

function embedded(taints: Taint[]): Taint[] {
  return taints.map((taint) => derive(taint, { composition: 'embedded', argv: undefined, shellList: undefined, argvRole: undefined, argvProgram: undefined, dict: undefined, hostFixed: undefined }));
}

/** `https://api.example.com/…` → `https://api.example.com`; undefined when the text does not pin scheme and host. */
function fixedHostOf(text: string): string | undefined {
  return FIXED_HOST.test(text) ? /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]+/i.exec(text)?.[0] : undefined;
}

function withStep(taints: Taint[], step: FlowStep): Taint[] {
  return taints.map((taint) => ({ ...taint, steps: [...taint.steps, step].slice(-MAX_STEPS) }));
}

function withSanitizer(taints: Taint[], sanitizer: string): Taint[] {
  return taints.map((taint) => (taint.sanitizers.includes(sanitizer) ? taint : { ...taint, sanitizers: [...taint.sanitizers, sanitizer] }));
}

/** Constant text at the start of a value: `{text, complete}` where complete means the whole value is constant. */
interface StaticText {
  text: string;
  complete: boolean;
}

class Scope {
  readonly env = new Map<string, Taint[]>();
  readonly types = new Map<string, string>();
  /** The expression last assigned to a name, for checks that need its shape (a containment root's trailing separator). */
  private readonly assignedValues = new Map<string, Node>();
  /** `parsed = urlparse(url)`: a check on `parsed.hostname` guards `url`. */
  readonly derivedFrom = new Map<string, string>();
  readonly texts = new Map<string, StaticText>();
  /** HTTP clients built with a constant base_url. */
  readonly bases = new Map<string, string>();
  /** Parameters of the summarised function not reassigned so far, by name. */
  readonly parameterIndex = new Map<string, number>();
  /** Constant recipients set on a message object: `msg["Bcc"] = "x@y"`. */
  readonly recipients = new Map<string, string[]>();
  readonly returns: Taint[] = [];
  readonly hits: SinkHit[] = [];

  constructor(
    readonly engine: TaintEngine,
    readonly module: PyModule,
    readonly dispatch?: { tool: string; nameParam: string },
  ) {}

  private step(node: Node, note: string): FlowStep {
    return { file: this.module.path, line: node.startPosition.row + 1, note };
  }

  private sinkAt(call: Node, kind: SinkKind, callee: string, extra: Partial<SinkInfo> = {}): SinkInfo {
    return { kind, callee, location: location(this.module.path, call), snippet: snippet(call), ...extra };
  }

  private report(sink: SinkInfo, taints: Taint[]): void {
    for (const taint of taints) {
      if (taint.param) this.hits.push({ sink, taint });
      else if (taint.origin.kind !== 'unknown' && taint.origin.kind !== 'constant') this.engine.emit(sink, taint);
    }
  }

  // ─── Statements ───────────────────────────────────────────────────────────────────────────────

  block(block: Node): void {
    for (const statement of block.namedChildren) if (statement) this.statement(statement);
  }

  statement(node: Node): void {
    switch (node.type) {
      case 'expression_statement':
        for (const child of node.namedChildren) if (child) this.expressionStatement(child);
        return;
      case 'return_statement': {
        const value = node.namedChildren[0];
        if (value) this.returns.push(...this.expression(value));
        return;
      }
      case 'if_statement':
        this.ifStatement(node);
        return;
      case 'match_statement':
        this.matchStatement(node);
        return;
      case 'for_statement': {
        const left = node.childForFieldName('left');
        const right = node.childForFieldName('right');
        if (left && right) this.assign(left, this.expression(right).map((taint) => derive(taint, { argv: undefined, shellList: undefined, argvRole: undefined, argvProgram: undefined })), right);
        this.children(node);
        return;
      }
      case 'while_statement': {
        const condition = node.childForFieldName('condition');
        if (condition) {
          this.guards(condition, false);
          this.expression(condition);
        }
        this.children(node);
        return;
      }
      case 'with_statement':
        for (const item of node.descendantsOfType('with_item')) {
          const value = item?.childForFieldName('value');
          if (!value) continue;
          if (value.type === 'as_pattern') {
            const expression = value.namedChildren[0];
            const alias = value.childForFieldName('alias')?.namedChildren[0];
            if (expression) {
              const taints = this.expression(expression);
              if (alias) {
                this.assign(alias, taints, expression);
                const type = this.typeOf(expression);
                if (type && alias.type === 'identifier') this.types.set(alias.text, type);
              }
            }
          } else {
            this.expression(value);
          }
        }
        this.children(node);
        return;
      case 'try_statement':
      case 'else_clause':
      case 'finally_clause':
      case 'except_clause':
        this.children(node);
        return;
      case 'block':
        this.block(node);
        return;
      case 'assert_statement':
        for (const child of node.namedChildren) {
          if (!child) continue;
          this.guards(child);
          this.expression(child);
        }
        return;
      case 'raise_statement':
      case 'delete_statement':
        for (const child of node.namedChildren) if (child) this.expression(child);
        return;
      default:
        // Nested functions and classes are summarised on their own; pass/break/imports carry no data.
        return;
    }
  }

  /** The nested blocks and clauses of a compound statement (try/except/else/finally, loop bodies, with bodies). */
  private children(node: Node): void {
    for (const child of node.namedChildren) {
      if (child?.type === 'block') this.block(child);
      else if (child?.type.endsWith('_clause') && child.type !== 'with_clause') this.statement(child);
    }
  }

  private expressionStatement(node: Node): void {
    if (node.type === 'assignment') {
      this.assignment(node);
    } else if (node.type === 'augmented_assignment') {
      const left = node.childForFieldName('left');
      const right = node.childForFieldName('right');
      if (!left || !right) return;
      const added = embedded(this.expression(right));
      if (left.type === 'identifier') {
        this.env.set(left.text, union(embedded(this.env.get(left.text) ?? []), withStep(added, this.step(node, `appended to ${left.text}`))));
        this.texts.delete(left.text);
      } else {
        this.assign(left, added, right);
      }
    } else {
      this.expression(node);
    }
  }

  private assignment(node: Node): void {
    const left = node.childForFieldName('left');
    const right = node.childForFieldName('right');
    if (!left || !right) return;
    if (right.type === 'assignment') {
      this.assignment(right);
      const inner = right.childForFieldName('left');
      if (inner) this.assign(left, this.expression(inner), inner);
      return;
    }
    this.assign(left, this.expression(right), right);
  }

  private assign(target: Node, taints: Taint[], value: Node): void {
    switch (target.type) {
      case 'identifier': {
        const name = target.text;
        this.parameterIndex.delete(name);
        this.assignedValues.set(name, value);
        this.env.set(name, withStep(taints, this.step(target, `assigned to ${name}`)));
        const type = this.typeOf(value);
        if (type) this.types.set(name, type);
        else this.types.delete(name);
        const text = this.staticText(value);
        if (text.text) this.texts.set(name, text);
        else this.texts.delete(name);
        const parsed = value.type === 'call' ? this.urlParseSubject(value) : undefined;
        if (parsed) this.derivedFrom.set(name, parsed);
        const base = value.type === 'call' ? this.clientBase(value) : undefined;
        if (base) this.bases.set(name, base);
        else this.bases.delete(name);
        return;
      }
      case 'pattern_list':
      case 'tuple_pattern':
      case 'list_pattern':
      case 'tuple':
      case 'list':
        for (const element of target.namedChildren) if (element) this.assign(element, taints, value);
        return;
      case 'subscript':
      case 'attribute': {
        // Storing into a container or object taints the container: msg["Subject"] = x, payload["k"] = x.
        const base = baseIdentifier(target);
        if (!base) return;
        if (target.type === 'subscript') {
          const header = stringValue(target.childForFieldName('subscript'));
          const address = this.staticText(value);
          if (header && /^(to|cc|bcc)$/i.test(header) && address.complete) {
            const prefix = header.toLowerCase() === 'bcc' ? 'bcc:' : '';
            this.recipients.set(base, [...(this.recipients.get(base) ?? []), ...address.text.split(/\s*[,;]\s*/).filter(Boolean).map((item) => prefix + item)]);
          }
        }
        this.env.set(base, union(this.env.get(base) ?? [], withStep(embedded(taints), this.step(target, `stored in ${base}`))));
        return;
      }
      default:
        return;
    }
  }

  private ifStatement(node: Node): void {
    const condition = node.childForFieldName('condition');
    const decision = condition ? this.dispatchDecision(condition) : undefined;
    if (decision === true) {
      const consequence = node.childForFieldName('consequence');
      if (consequence) this.block(consequence);
      return;
    }
    if (decision === undefined && condition) {
      const consequence = node.childForFieldName('consequence');
      this.guards(condition, refuses(consequence));
      this.expression(condition);
      if (consequence) this.block(consequence);
    }
    for (const alternative of node.childrenForFieldName('alternative')) {
      if (!alternative) continue;
      if (alternative.type === 'elif_clause') {
        const elifCondition = alternative.childForFieldName('condition');
        const elifDecision = elifCondition ? this.dispatchDecision(elifCondition) : undefined;
        const consequence = alternative.childForFieldName('consequence');
        if (elifDecision === true) {
          if (consequence) this.block(consequence);
          return;
        }
        if (elifDecision === false) continue;
        if (elifCondition) {
          this.guards(elifCondition, refuses(consequence));
          this.expression(elifCondition);
        }
        if (consequence) this.block(consequence);
      } else {
        const body = alternative.childForFieldName('body');
        if (body) this.block(body);
      }
    }
  }

  /** In a low-level dispatcher: true when the condition selects the current tool, false when it selects another, else undefined. */
  private dispatchDecision(condition: Node): boolean | undefined {
    if (!this.dispatch) return undefined;
    const node = condition.type === 'parenthesized_expression' && condition.namedChildren[0] ? condition.namedChildren[0] : condition;
    if (node.type !== 'comparison_operator') return undefined;
    const operands = node.namedChildren.filter((child): child is Node => child !== null);
    if (operands.length !== 2) return undefined;
    const operator = node.children.find((child) => child && !child.isNamed)?.text;
    const [left, right] = operands as [Node, Node];
    const subject = left.type === 'identifier' && left.text === this.dispatch.nameParam ? right : right.type === 'identifier' && right.text === this.dispatch.nameParam ? left : undefined;
    if (!subject) return undefined;
    if (operator === '==') {
      const value = this.staticText(subject);
      return value.complete ? value.text === this.dispatch.tool : undefined;
    }
    if (operator === 'in' && (subject.type === 'tuple' || subject.type === 'list' || subject.type === 'set')) {
      return subject.namedChildren.some((item) => item && stringValue(item) === this.dispatch!.tool);
    }
    return undefined;
  }

  private matchStatement(node: Node): void {
    const subject = node.childForFieldName('subject');
    const dispatching = this.dispatch && subject?.type === 'identifier' && subject.text === this.dispatch.nameParam;
    if (subject) this.expression(subject);
    for (const clause of node.descendantsOfType('case_clause')) {
      if (!clause) continue;
      if (dispatching) {
        const patterns = clause.namedChildren.filter((child) => child?.type === 'case_pattern');
        const values = patterns.flatMap((pattern) => {
          if (!pattern) return [];
          // `case "x":` or `case Tools.X:` (an Enum member or class constant).
          const dotted = pattern.descendantsOfType('dotted_name').map((item) => stringValue(item ? classConstant(this.module, item.text) : undefined));
          return [...pattern.descendantsOfType('string').map((item) => stringValue(item)), ...dotted];
        });
        const wildcard = patterns.some((pattern) => pattern?.text === '_');
        if (!wildcard && !values.includes(this.dispatch!.tool)) continue;
      }
      const consequence = clause.childForFieldName('consequence');
      if (consequence) this.block(consequence);
      if (dispatching && !isWildcardCase(clause)) return;
    }
  }

  // ─── Guards in conditions ──────────────────────────────────────────────────────────────────────

  /**
   * Recognises containment, allowlist and pattern checks in a condition and marks the checked variable. `refusal`:
   * the branch the condition guards raises or returns, so a check that does not hold (a weak guard) is reported there.
   */
  private guards(condition: Node, refusal = true): void {
    for (const call of [condition, ...condition.descendantsOfType('call')]) {
      if (!call || call.type !== 'call') continue;
      const callee = call.childForFieldName('function');
      const method = callee?.type === 'attribute' ? callee.childForFieldName('attribute')?.text : undefined;
      const args = callArguments(call);
      if (method === 'startswith' || method === 'is_relative_to' || method === 'relative_to') {
        const subject = this.guardSubject(callee!.childForFieldName('object')!);
        if (!subject) continue;
        const prefixNode = method === 'startswith' ? args.positional[0] : undefined;
        const prefix = prefixNode ? this.staticText(prefixNode) : undefined;
        // url.startswith("https://api.example.com/") pins the host; url.startswith("https://") pins nothing.
        if (prefix?.complete && /^[a-z][a-z0-9+.-]*:/i.test(prefix.text)) {
          if (FIXED_HOST.test(prefix.text)) this.mark(subject.name, 'url-allowlist');
        } else if (prefix?.complete && SQL_STATEMENT_START.test(prefix.text)) {
          if (refusal) this.markWeak(subject.name, 'sql-keyword-prefix', call);
        } else if (prefix?.complete && !/[\\/]/.test(prefix.text) && (prefix.text === '-' || !prefix.text.startsWith('-'))) {
          // Checked against a fixed start that is not a directory (`'-'`, `'v'`): it cannot be read as an option.
          this.mark(subject.name, 'no-leading-dash');
        } else if (prefixNode && !prefix?.complete && !this.endsWithSeparator(prefixNode)) {
          // `path.startswith(root)` with a root that has no trailing separator also admits `/root-other`.
          if (refusal) this.markWeak(subject.name, 'prefix-without-separator', call);
        } else {
          this.markContainment(subject.name, subject.resolved);
        }
        continue;
      }
      const name = dottedName(callee);
      const qualified = name ? qualify(this.module, name) : '';
      if (qualified === 'os.path.commonpath' || qualified === 'os.path.commonprefix') {
        for (const identifier of call.descendantsOfType('identifier')) if (identifier && this.env.has(identifier.text)) this.markContainment(identifier.text);
        continue;
      }
      if (/^re\.(fullmatch|match)$/.test(qualified) || method === 'fullmatch' || method === 'match') {
        const subject = qualified.startsWith('re.') ? args.positional[1] : args.positional[0];
        const base = subject ? baseIdentifier(subject) : undefined;
        if (base) this.mark(base, 'pattern-check');
      }
    }
    for (const comparison of [condition, ...condition.descendantsOfType('comparison_operator')]) {
      if (!comparison || comparison.type !== 'comparison_operator') continue;
      const operators = comparison.children.filter((child) => child && !child.isNamed).map((child) => child!.text);
      if (!operators.some((operator) => operator === 'in' || operator === 'not in')) continue;
      const left = comparison.namedChildren[0];
      if (!left) continue;
      const part = left.type === 'attribute' ? left.childForFieldName('attribute')?.text : undefined;
      // `urlparse(url).hostname in ALLOWED` pins the host; `.scheme in ("http", "https")` gives the opener a web
      // address, not `file:` or a protocol handler. Either guards the URL it was parsed from.
      const sanitizer = part === 'scheme' ? 'url-scheme' : part !== undefined && /^(hostname|netloc|host)$/.test(part) ? 'url-allowlist' : undefined;
      if (sanitizer) {
        const object = left.childForFieldName('object')!;
        const subject = object.type === 'call' ? this.urlParseSubject(object) : baseIdentifier(object);
        if (subject) {
          this.mark(subject, sanitizer);
          const source = this.derivedFrom.get(subject);
          if (source) this.mark(source, sanitizer);
        }
      } else if (left.type === 'identifier') {
        this.mark(left.text, 'allowlist');
      }
    }
  }

  /** A check that does not hold: kept on the value with the place it was made, so the finding can point at it. */
  private markWeak(name: string, sanitizer: string, at: Node): void {
    const taints = this.env.get(name);
    if (!taints) return;
    const step: FlowStep = { file: this.module.path, line: at.startPosition.row + 1, note: `checked by \`${snippet(at)}\``, guard: sanitizer };
    this.env.set(name, withSanitizer(taints, sanitizer).map((taint) => ({ ...taint, steps: [...taint.steps, step].slice(-MAX_STEPS) })));
  }

  /** `root + os.sep`, `f"{root}/"`, `os.path.join(root, "")`: a containment prefix that ends with a separator. */
  private endsWithSeparator(node: Node): boolean {
    if (node.type === 'binary_operator') {
      const right = node.childForFieldName('right');
      return right !== null && (/(^|\.)sep$/.test(right.text) || /[\\/]$/.test(this.staticText(right).text));
    }
    if (node.type === 'string') return /[\\/]['"]$/.test(node.text.replace(/\}['"]$/, ''));
    if (node.type === 'call' && qualify(this.module, dottedName(node.childForFieldName('function')) ?? '') === 'os.path.join') {
      const last = callArguments(node).positional.at(-1);
      return last !== undefined && this.staticText(last).complete && this.staticText(last).text === '';
    }
    if (node.type === 'identifier') {
      const assigned = this.assignedValues.get(node.text);
      return assigned !== undefined && this.endsWithSeparator(assigned);
    }
    return false;
  }

  private markContainment(name: string, resolvedHere = false): void {
    const taints = this.env.get(name);
    if (!taints) return;
    const resolved = resolvedHere || taints.some((taint) => taint.resolved);
    this.mark(name, resolved ? 'realpath-containment' : 'path-containment');
  }

  /** The variable a check is about, looking through `str(x)`, `os.path.realpath(x)`, `Path(x).resolve()` and the like. */
  private guardSubject(node: Node): { name: string; resolved: boolean } | undefined {
    let resolved = false;
    let current: Node | null | undefined = node;
    for (let depth = 0; current && depth < 6; depth++) {
      if (current.type === 'identifier') return { name: current.text, resolved };
      if (current.type === 'parenthesized_expression') {
        current = current.namedChildren[0];
        continue;
      }
      if (current.type !== 'call') return undefined;
      const callee = current.childForFieldName('function');
      const method = callee?.type === 'attribute' ? callee.childForFieldName('attribute')?.text : undefined;
      if (method === 'resolve' || method === 'absolute') {
        resolved = true;
        current = callee!.childForFieldName('object');
        continue;
      }
      // `query.strip().lower().startswith('select')` checks `query`: these change case and spacing, not content.
      if (method !== undefined && /^(strip|lstrip|rstrip|lower|upper|casefold)$/.test(method)) {
        current = callee!.childForFieldName('object');
        continue;
      }
      const qualified = qualify(this.module, dottedName(callee) ?? '');
      if (RESOLVE_CALLS.has(qualified)) resolved = true;
      else if (qualified !== 'str' && qualified !== 'pathlib.Path' && qualified !== 'os.fspath') return undefined;
      current = callArguments(current).positional[0];
    }
    return undefined;
  }

  private mark(name: string, sanitizer: string): void {
    const taints = this.env.get(name);
    if (taints) this.env.set(name, withSanitizer(taints, sanitizer));
  }

  /** `urlparse(url)` / `urlsplit(url)` / `httpx.URL(url)` → the name of `url`. */
  private urlParseSubject(call: Node): string | undefined {
    const name = dottedName(call.childForFieldName('function'));
    if (!name || !/(^|\.)(urlparse|urlsplit|URL|urllib\.parse\.urlparse)$/.test(name)) return undefined;
    const subject = callArguments(call).positional[0];
    return subject ? baseIdentifier(subject) : undefined;
  }

  // ─── Expressions ──────────────────────────────────────────────────────────────────────────────

  expression(node: Node): Taint[] {
    switch (node.type) {
      case 'identifier': {
        const local = this.env.get(node.text);
        if (local) return local;
        if (this.module.constants.has(node.text)) return this.engine.moduleValue(this.module, node.text);
        return [];
      }
      case 'string':
      case 'concatenated_string':
        return this.stringExpression(node);
      case 'binary_operator': {
        const left = node.childForFieldName('left');
        const right = node.childForFieldName('right');
        const operator = node.childForFieldName('operator')?.text;
        if (operator === '+' && left && right && (isSequenceLiteral(left) || isSequenceLiteral(right))) {
          // ["git", "log"] + extra: what is appended to an argv list are arguments, not a command line.
          return union(this.expression(left), this.expression(right).map((taint) => derive(taint, { argv: 'arg' })));
        }
        const sensitive = operator === '/' ? this.sensitivePath(node) : undefined;
        const combined = embedded(union(left ? this.expression(left) : [], right ? this.expression(right) : []));
        return union(operator === '+' || operator === '%' ? this.hostFixed(node, combined) : combined, sensitive ? [sensitive] : []);
      }
      case 'boolean_operator':
      case 'conditional_expression':
      case 'expression_list':
      case 'set':
      case 'dictionary':
      case 'pair':
      case 'list_comprehension':
      case 'set_comprehension':
      case 'dictionary_comprehension':
      case 'generator_expression':
      case 'for_in_clause':
      case 'if_clause':
      case 'comparison_operator':
      case 'not_operator':
      case 'unary_operator':
      case 'list_splat':
      case 'dictionary_splat':
      case 'keyword_argument':
        return union(...node.namedChildren.map((child) => (child ? this.expression(child) : [])));
      case 'list':
      case 'tuple':
        return this.sequence(node);
      case 'parenthesized_expression':
      case 'await':
        return node.namedChildren[0] ? this.expression(node.namedChildren[0]) : [];
      case 'named_expression': {
        const name = node.childForFieldName('name');
        const value = node.childForFieldName('value');
        const taints = value ? this.expression(value) : [];
        if (name && value) this.assign(name, taints, value);
        return taints;
      }
      case 'subscript':
        return this.subscript(node);
      case 'attribute': {
        const name = dottedName(node);
        if (name && qualify(this.module, name) === 'os.environ') return [envTaint(this.module.path, node)];
        const object = node.childForFieldName('object');
        return object ? this.expression(object).map((taint) => derive(taint, { argv: undefined, shellList: undefined, argvRole: undefined, argvProgram: undefined })) : [];
      }
      case 'call':
        return this.call(node);
      default:
        return [];
    }
  }

  private stringExpression(node: Node): Taint[] {
    const parts: Taint[][] = [];
    let holes = 0;
    let literal = '';
    for (const part of node.type === 'concatenated_string' ? node.namedChildren : [node]) {
      if (!part) continue;
      for (const child of part.namedChildren) {
        if (child?.type === 'interpolation') {
          holes++;
          const expression = child.childForFieldName('expression');
          if (expression) parts.push(this.expression(expression));
        } else if (child?.type === 'string_content') {
          literal += child.text;
        }
      }
    }
    const sensitive = holes === 0 && SENSITIVE_PATH.test(literal) ? sensitiveTaint(this.module.path, node, stringValue(node) ?? literal) : undefined;
    const taints = union(...parts);
    const whole = holes === 1 && literal.length === 0;
    if (whole) return union(taints, sensitive ? [sensitive] : []);
    return union(this.hostFixed(node, embedded(taints)), sensitive ? [sensitive] : []);
  }

  /** Marks values spliced into a string that starts with a fixed `scheme://host/`, for network sinks. */
  private hostFixed(node: Node, taints: Taint[]): Taint[] {
    if (taints.length === 0) return taints;
    const host = fixedHostOf(this.staticText(node).text);
    return taints.map((taint) => derive(taint, { hostFixed: host }));
  }

  /**
   * A list or tuple literal: its first element is the program of an argv, the rest are arguments. Each element keeps
   * what it is to that program (shell code after `sh -c`, an option position of `git`, the opener's target …) and
   * what its place proves against option injection (after `--`, an option's value, a constant start).
   */
  private sequence(node: Node): Taint[] {
    const elements = node.namedChildren.filter((child): child is Node => child !== null);
    const texts = elements.map((element) => stringValue(element));
    const first = texts[0];
    const shellList = first !== undefined && SHELLS.test(first) && elements.some((element) => /^[-/]c$/i.test(stringValue(element) ?? ''));
    const roles = classifyArgv(texts);
    const argvProgram = first === undefined ? undefined : programName(first);
    const result: Taint[][] = elements.map((element, index) => {
      const start = this.staticText(element).text;
      const guard = index === 0 ? undefined : argvElementGuard(texts.slice(0, index), start === '' ? undefined : start);
      const taints = this.expression(element).map((taint) =>
        derive(taint, { argv: index === 0 ? 'program' : 'arg', shellList: shellList || undefined, argvRole: roles[index], ...(argvProgram !== undefined && { argvProgram }) }),
      );
      return guard ? withSanitizer(taints, guard) : taints;
    });
    return union(...result);
  }

  private subscript(node: Node): Taint[] {
    const value = node.childForFieldName('value');
    if (!value || this.isEnviron(value)) return [];
    const index = node.childForFieldName('subscript');
    return this.pick(value, index ? stringValue(index) : undefined, node);
  }

  /** `container[key]` / `container.get(key)`: a constant key on the tool's arguments picks one parameter. */
  private pick(container: Node, key: string | undefined, at: Node): Taint[] {
    return this.expression(container).map((taint) => {
      if (key === undefined) return derive(taint, { dict: undefined, argv: undefined, shellList: undefined, argvRole: undefined, argvProgram: undefined });
      if (taint.dict) {
        const declared = taint.dict.find((parameter) => parameter.name === key);
        return derive(taint, {
          origin: { ...taint.origin, param: key },
          dict: undefined,
          sanitizers: [...taint.sanitizers, ...(declared ? schemaSanitizers(declared) : [])],
          steps: [...taint.steps, this.step(at, `argument ${key}`)],
        });
      }
      if (taint.param && taint.param.key === undefined) return derive(taint, { param: { index: taint.param.index, key }, argv: undefined, shellList: undefined, argvRole: undefined, argvProgram: undefined });
      return derive(taint, { argv: undefined, shellList: undefined, argvRole: undefined, argvProgram: undefined });
    });
  }

  private call(node: Node): Taint[] {
    const callee = node.childForFieldName('function');
    if (!callee) return [];
    const args = callArguments(node);
    const written = dottedName(callee);
    const qualified = written ? qualify(this.module, written) : undefined;
    const object = callee.type === 'attribute' ? callee.childForFieldName('object') : undefined;
    const method = callee.type === 'attribute' ? callee.childForFieldName('attribute')?.text : undefined;
    const receiverType = object ? this.typeOf(object) : undefined;

    const argTaints = args.positional.map((argument) => this.expression(argument));
    const keywordTaints = new Map([...args.keywords].map(([key, value]) => [key, this.expression(value)] as const));
    const splatTaints = args.splats.map((splat) => this.expression(splat));
    const receiver = object ? this.expression(object) : [];

    const sinkKind = this.sinks(node, { written: written ?? callee.text, qualified, method, object, receiverType, args, argTaints, keywordTaints, receiver });
    // What a process, a database or a remote server answers is not the caller's value any more.
    if (sinkKind && OPAQUE_RESULTS.has(sinkKind)) return [];

    // Origins produced by the call itself.
    if (qualified) {
      const decoded = this.decodedConstant(node, qualified, args);
      if (decoded) return [decoded];
      if (method === 'copy' && object && qualify(this.module, dottedName(object) ?? '') === 'os.environ') return [envTaint(this.module.path, node)];
    }
    const allArgs = union(...argTaints, ...keywordTaints.values(), ...splatTaints);

    if (qualified) {
      if (NUMERIC_CALLS.has(qualified)) return withSanitizer(allArgs, 'numeric');
      if (qualified === 'shlex.quote' || qualified === 'pipes.quote') return withSanitizer(allArgs, 'shell-escape');
      if (BASENAME_CALLS.has(qualified) || /(^|\.)secure_filename$/.test(qualified)) return withSanitizer(allArgs, 'basename');
      if (RESOLVE_CALLS.has(qualified)) return allArgs.map((taint) => derive(taint, { resolved: true }));
      if (PARAMETERISED_SQL_CALLS.test(qualified)) return withSanitizer(allArgs, 'parameterised-sql');
      if (qualified === 'shlex.split') return allArgs.map((taint) => derive(taint, { argv: taint.composition === 'embedded' ? 'arg' : 'program' }));
      if (qualified === 'os.path.join' || qualified === 'posixpath.join') {
        const sensitive = this.sensitivePath(node);
        return union(args.positional.length > 1 ? embedded(allArgs) : allArgs, sensitive ? [sensitive] : []);
      }
      if (qualified === 'dict' && args.positional.length === 1 && qualify(this.module, dottedName(args.positional[0]) ?? '') === 'os.environ') {
        return [envTaint(this.module.path, node)];
      }
    }
    // One named variable is configuration, not a dump of the environment.
    if (method === 'get' && object && this.isEnviron(object)) return [];
    if (method === 'get' && object && args.positional[0]) {
      const key = stringValue(args.positional[0]);
      if (key !== undefined) return union(this.pick(object, key, node), ...argTaints.slice(1));
    }
    if (method === 'resolve' || method === 'absolute') return receiver.map((taint) => derive(taint, { resolved: true }));

    const helper = this.program.resolveFunction(this.module, callee);
    if (helper) {
      return this.callHelper(node, helper, args, argTaints, keywordTaints);
    }

    if (method && MUTATING_METHODS.has(method) && object) {
      const base = baseIdentifier(object);
      if (base && allArgs.length > 0) {
        // cmd.append(x) on an argv list adds an argument; on anything else the value is mixed into the container.
        const added = this.types.get(base) === 'list' && LIST_METHODS.has(method) ? allArgs.map((taint) => derive(taint, { argv: 'arg' })) : embedded(allArgs);
        this.env.set(base, union(this.env.get(base) ?? [], withStep(added, this.step(node, `added to ${base}`))));
      }
    }
    // Unknown calls pass their inputs through: str(x), x.strip(), json.dumps(x), Path(x).
    if (method && EMBEDDING_METHODS.has(method)) return this.hostFixed(node, embedded(union(receiver, allArgs)));
    return union(receiver.map((taint) => derive(taint, { argv: undefined, shellList: undefined, argvRole: undefined, argvProgram: undefined, dict: undefined })), allArgs);
  }

  private isEnviron(node: Node): boolean {
    const name = dottedName(node);
    return name !== undefined && qualify(this.module, name) === 'os.environ';
  }

  private get program(): PyProgram {
    return this.engine.program;
  }

  private callHelper(node: Node, helper: { module: PyModule; definition: Node }, args: CallArguments, argTaints: Taint[][], keywordTaints: Map<string, Taint[]>): Taint[] {
    const crossFile = helper.module !== this.module;
    const summary = this.engine.summary(helper.module, helper.definition);
    const parameters = functionParameters(helper.definition).map((parameter) => parameterName(parameter)!);
    const offset = parameters[0] === 'self' || parameters[0] === 'cls' ? 1 : 0;
    const bound: Taint[][] = parameters.map((name, index) => {
      if (index < offset) return [];
      return argTaints[index - offset] ?? keywordTaints.get(name) ?? [];
    });
    const name = helper.definition.childForFieldName('name')?.text ?? 'helper';
    const adapt = (inner: Taint): Taint[] => {
      const index = inner.param!.index;
      const note = this.step(node, `passed to ${name}(${parameters[index] ?? index})`);
      return (bound[index] ?? []).map((outer) => {
        const result = substitute(outer, inner, note);
        if (crossFile) result.crossFile = true;
        return result;
      });
    };
    const boundNodes = parameters.map((name, index) => (index < offset ? undefined : (args.positional[index - offset] ?? args.keywords.get(name))));
    for (const hit of summary.hits) {
      const destination = this.engine.destinationParam.get(hit.sink);
      const sink = destination === undefined ? hit.sink : this.destinationAt(hit.sink, boundNodes[destination]);
      for (const taint of adapt(hit.taint)) {
        const placed = placeInArgv(sink, taint);
        this.report(placed.sink, [placed.taint]);
      }
    }
    const returned: Taint[] = [];
    for (const value of summary.returns) {
      if (value.param) returned.push(...adapt(value));
      else returned.push(crossFile ? { ...value, crossFile: true } : value);
    }
    return withStep(union(returned), this.step(node, `returned from ${name}`));
  }

  private decodedConstant(node: Node, qualified: string, args: CallArguments): Taint | undefined {
    const first = args.positional[0];
    if (!first) return undefined;
    let text: string | undefined;
    const encoding = DECODERS[qualified];
    const literal = this.staticText(first);
    if (encoding && literal.complete) {
      text = Buffer.from(literal.text, encoding).toString('utf8');
    } else if (qualified === 'codecs.decode' && literal.complete) {
      const codec = stringValue(args.positional[1] ?? args.keywords.get('encoding'))?.toLowerCase().replace('-', '_');
      if (codec === 'rot13' || codec === 'rot_13') text = literal.text.replace(/[a-z]/gi, (c) => String.fromCharCode(((c.toLowerCase().charCodeAt(0) - 97 + 13) % 26) + (c === c.toLowerCase() ? 97 : 65)));
      else if (codec === 'hex') text = Buffer.from(literal.text, 'hex').toString('utf8');
      else if (codec === 'base64') text = Buffer.from(literal.text, 'base64').toString('utf8');
    } else if ((qualified === 'zlib.decompress' || qualified === 'gzip.decompress') && first.type === 'call') {
      const innerName = dottedName(first.childForFieldName('function'));
      const inner = innerName ? DECODERS[qualify(this.module, innerName)] : undefined;
      const payload = this.staticText(callArguments(first).positional[0] ?? first);
      if (inner && payload.complete) {
        try {
          const bytes = Buffer.from(payload.text, inner);
          text = (qualified === 'gzip.decompress' ? gunzipSync(bytes) : inflateSync(bytes)).toString('utf8');
        } catch {
          text = undefined;
        }
      }
    }
    if (text === undefined) return undefined;
    return {
      origin: { kind: 'decoded-constant', detail: text.length > 200 ? `${text.slice(0, 200)}…` : text },
      composition: 'whole',
      steps: [this.step(node, `decoded by ${qualified}`)],
      sanitizers: [],
      crossFile: false,
    };
  }

  // ─── Sinks ────────────────────────────────────────────────────────────────────────────────────

  private sinks(
    node: Node,
    call: {
      written: string;
      qualified: string | undefined;
      method: string | undefined;
      object: Node | null | undefined;
      receiverType: string | undefined;
      args: CallArguments;
      argTaints: Taint[][];
      keywordTaints: Map<string, Taint[]>;
      receiver: Taint[];
    },
  ): SinkKind | undefined {
    const { written, qualified, method, receiverType, args, argTaints, keywordTaints, receiver } = call;
    const positional = (index: number, keyword?: string): Taint[] => argTaints[index] ?? (keyword ? keywordTaints.get(keyword) : undefined) ?? [];
    const isLocalFunction = qualified !== undefined && !qualified.includes('.') && this.module.functions.has(qualified);

    if (qualified && !isLocalFunction) {
      if (COMMAND_SHELL.has(qualified)) {
        this.report(this.sinkAt(node, 'command', written, { shell: true }), positional(0, 'cmd'));
        this.uploadThroughCommand(node, written, args.positional[0] ?? args.keywords.get('cmd'), positional(0, 'cmd'));
        return 'command';
      }
      if (COMMAND_SUBPROCESS.has(qualified)) {
        const shell = this.isTrue(args.keywords.get('shell'));
        this.commandSink(node, written, positional(0, 'args'), shell);
        this.uploadThroughCommand(node, written, args.positional[0] ?? args.keywords.get('args'), positional(0, 'args'));
        return 'command';
      }
      if (COMMAND_ARGV.test(qualified)) {
        const taints = union(
          ...argTaints.map((taints, index) => taints.map((taint) => derive(taint, { argv: taint.argv ?? (index === 0 ? 'program' : 'arg') }))),
        );
        this.commandSink(node, written, taints, false);
        return 'command';
      }
      if (CODE_CALLS.has(qualified)) {
        this.report(this.sinkAt(node, 'code', written), positional(0));
        return 'code';
      }
      if (OPENER_CALLS.has(qualified)) {
        // The OS opener: whatever scheme the URL names runs its handler (file:, custom protocol handlers).
        this.report(this.sinkAt(node, 'command', written, { role: 'os-open', program: 'webbrowser' }), positional(0, 'url'));
        return 'command';
      }
      if (DESERIALIZE_CALLS.has(qualified) || (YAML_LOAD.has(qualified) && !SAFE_YAML_LOADER.test(args.keywords.get('Loader')?.text ?? args.positional[1]?.text ?? ''))) {
        this.report(this.sinkAt(node, 'deserialize', written), positional(0));
        return 'deserialize';
      }
      if (OPEN_CALLS.has(qualified)) {
        const mode = stringValue(args.positional[1] ?? args.keywords.get('mode')) ?? 'r';
        this.report(this.sinkAt(node, /[wax+]/.test(mode) ? 'file-write' : 'file-read', written), positional(0, 'file'));
        return 'file-read';
      }
      if (FILE_WRITE_CALLS.has(qualified)) {
        this.report(this.sinkAt(node, 'file-write', written), positional(0, 'path'));
        return 'file-write';
      }
      if (FILE_MOVE_CALLS.has(qualified)) {
        this.report(this.sinkAt(node, 'file-write', written), union(positional(0, 'src'), positional(1, 'dst')));
        return 'file-write';
      }
      if (FILE_COPY_CALLS.has(qualified)) {
        this.report(this.sinkAt(node, 'file-read', written), positional(0, 'src'));
        this.report(this.sinkAt(node, 'file-write', written), positional(1, 'dst'));
        return 'file-write';
      }
      if (FILE_READ_CALLS.has(qualified)) {
        this.report(this.sinkAt(node, 'file-read', written), positional(0, 'path'));
        return 'file-read';
      }
      if (SQL_CALLS.has(qualified)) {
        this.report(this.sinkAt(node, 'sql', written), positional(0, 'sql'));
        return 'sql';
      }
      if (qualified === 'urllib.request.urlopen' || qualified === 'urllib.request.Request' || qualified === 'urllib2.urlopen') {
        const urlNode = args.positional[0] ?? args.keywords.get('url');
        if (qualified.endsWith('urlopen') && urlNode && this.typeOf(urlNode) === 'urllib.request.Request') return 'network';
        this.networkSink(node, written, urlNode, positional(0, 'url'), union(positional(1, 'data')));
        return 'network';
      }
    }

    const client = receiverType ?? (qualified ? qualified.split('.').slice(0, -1).join('.') : undefined);
    if (method && HTTP_METHODS.has(method) && client && HTTP_CLIENT_TYPES.has(client)) {
      const urlIndex = method === 'request' || method === 'stream' ? 1 : 0;
      const urlNode = args.positional[urlIndex] ?? args.keywords.get('url');
      const payload = union(
        ...PAYLOAD_KEYWORDS.map((key) => keywordTaints.get(key) ?? []),
        ...(method === 'post' || method === 'put' || method === 'patch' ? [argTaints[urlIndex + 1] ?? []] : []),
      );
      this.networkSink(node, written, urlNode, urlNode ? this.expression(urlNode) : [], payload, call.object ? this.clientBase(call.object) : undefined);
      return 'network';
    }

    if (!method) return undefined;
    if (SQL_METHODS.has(method)) {
      this.report(this.sinkAt(node, 'sql', written), positional(0, 'statement'));
      return 'sql';
    }
    if (receiverType === 'socket.socket' && (method === 'sendall' || method === 'send' || method === 'sendto')) {
      this.report(this.sinkAt(node, 'network-send', written), positional(0, 'data'));
      return 'network-send';
    }
    if (method === 'sendmail' || method === 'send_message') {
      this.emailSink(node, written, args);
      return 'email';
    }
    const pathLike = receiverType === 'pathlib.Path';
    if (PATH_READ_METHODS.has(method) && (pathLike || method.startsWith('read_'))) {
      this.report(this.sinkAt(node, 'file-read', written), receiver);
      return 'file-read';
    }
    if (PATH_WRITE_METHODS.has(method) && (pathLike || method.startsWith('write_'))) {
      this.report(this.sinkAt(node, 'file-write', written), union(receiver, method === 'rename' || method === 'replace' ? positional(0, 'target') : []));
      return 'file-write';
    }
    if (method === 'open' && pathLike) {
      const mode = stringValue(args.positional[0] ?? args.keywords.get('mode')) ?? 'r';
      this.report(this.sinkAt(node, /[wax+]/.test(mode) ? 'file-write' : 'file-read', written), receiver);
    }
    return undefined;
  }

  /** `curl -d "$(cat ~/.ssh/id_rsa)" https://…` through subprocess: secrets handed to a network tool leave the process too. */
  private uploadThroughCommand(node: Node, callee: string, command: Node | undefined, taints: Taint[]): void {
    const leaked = taints.filter((taint) => !taint.param && taint.origin.kind !== 'tool-input');
    if (!command || leaked.length === 0) return;
    const words = command.type === 'list' || command.type === 'tuple' ? command.namedChildren.filter((item): item is Node => item !== null).map((item) => this.staticText(item).text) : this.staticText(command).text.split(/\s+/);
    if (!NETWORK_TOOLS.test(words[0] ?? '')) return;
    const target = words.join(' ').match(/[a-z][a-z0-9+.-]*:\/\/[^\s'"]+/i)?.[0];
    this.report(this.sinkAt(node, 'network-send', callee, target ? { target } : {}), leaked);
  }

  private commandSink(node: Node, callee: string, taints: Taint[], shell: boolean): void {
    for (const taint of taints) {
      const placed = placeInArgv(this.sinkAt(node, 'command', callee, { shell }), taint);
      this.report(placed.sink, [placed.taint]);
    }
  }

  private networkSink(node: Node, callee: string, urlNode: Node | undefined, urlTaints: Taint[], payload: Taint[], baseUrl?: string): void {
    const url = urlNode ? this.staticText(urlNode) : { text: '', complete: false };
    // A path relative to a client's constant base_url cannot leave that host.
    const relativeToBase = baseUrl !== undefined && url.text.length > 0 && !/^[a-z][a-z0-9+.-]*:/i.test(url.text) ? fixedHostOf(`${baseUrl.replace(/\/$/, '')}/`) : undefined;
    const target = url.complete && !relativeToBase ? url.text : (fixedHostOf(url.text) ?? relativeToBase);
    const extra = target ? { target } : {};
    const inputs = urlTaints
      .filter((taint) => taint.origin.kind === 'tool-input' || taint.param)
      .map((taint) => (relativeToBase ? derive(taint, { hostFixed: relativeToBase }) : taint));
    // Secrets spliced into a URL leave the process as surely as a request body.
    const leaked = urlTaints.filter((taint) => !(taint.origin.kind === 'tool-input' || taint.param));
    const destination = !target && urlNode?.type === 'identifier' ? this.parameterIndex.get(urlNode.text) : undefined;
    const sinkOf = (kind: SinkKind) => {
      const sink = this.sinkAt(node, kind, callee, extra);
      if (destination !== undefined) this.engine.destinationParam.set(sink, destination);
      return sink;
    };
    if (inputs.length > 0) this.report(sinkOf('network'), inputs);
    if (leaked.length > 0 || payload.length > 0) this.report(sinkOf('network-send'), union(leaked, payload));
  }

  /** A helper's sink whose URL is one of its parameters, with the destination this call passes filled in. */
  private destinationAt(sink: SinkInfo, argument: Node | undefined): SinkInfo {
    if (!argument) return sink;
    const text = this.staticText(argument);
    const target = text.complete ? text.text : fixedHostOf(text.text);
    if (target) return { ...sink, target };
    const index = argument.type === 'identifier' ? this.parameterIndex.get(argument.text) : undefined;
    if (index === undefined) return sink;
    const forwarded = { ...sink };
    this.engine.destinationParam.set(forwarded, index);
    return forwarded;
  }

  private emailSink(node: Node, callee: string, args: CallArguments): void {
    const sendmail = callee.endsWith('sendmail');
    const messageNode = sendmail ? (args.positional[2] ?? args.keywords.get('msg')) : (args.positional[0] ?? args.keywords.get('msg'));
    const recipientsNode = sendmail ? (args.positional[1] ?? args.keywords.get('to_addrs')) : (args.positional[2] ?? args.keywords.get('to_addrs'));
    const recipients: string[] = [];
    if (recipientsNode) {
      const elements = recipientsNode.type === 'list' || recipientsNode.type === 'tuple' ? recipientsNode.namedChildren.filter((item): item is Node => item !== null) : [recipientsNode];
      const mixed = elements.some((element) => !this.staticText(element).complete);
      for (const element of elements) {
        const text = this.staticText(element);
        // A constant address next to the caller's own recipient is a silent extra copy.
        if (text.complete) recipients.push(...text.text.split(/\s*[,;]\s*/).filter(Boolean).map((item) => (mixed ? `bcc:${item}` : item)));
      }
    }
    if (messageNode) {
      const base = baseIdentifier(messageNode);
      if (base) recipients.push(...(this.recipients.get(base) ?? []));
    }
    const extra = recipients.length > 0 ? { target: [...new Set(recipients)].join(', ') } : {};
    const messageTaints = messageNode ? this.expression(messageNode) : [];
    const recipientTaints = recipientsNode ? this.expression(recipientsNode) : [];
    this.report(this.sinkAt(node, 'email', callee, extra), union(messageTaints, recipientTaints));
  }

  private isTrue(node: Node | undefined): boolean {
    if (!node) return false;
    if (node.type === 'true') return true;
    return node.type === 'identifier' && this.module.constants.get(node.text)?.type === 'true';
  }

  /** A path assembled from constant pieces (`Path.home() / ".aws" / "credentials"`) that names a secret store. */
  private sensitivePath(node: Node): Taint | undefined {
    const text = this.staticPath(node, 0);
    return text.includes('/') ? sensitiveTaint(this.module.path, node, text) : undefined;
  }

  private staticPath(node: Node, depth: number): string {
    if (depth > 8) return '*';
    const literal = stringValue(node);
    if (literal !== undefined) return literal;
    switch (node.type) {
      case 'identifier': {
        const constant = this.env.has(node.text) ? undefined : this.module.constants.get(node.text);
        return constant ? this.staticPath(constant, depth + 1) : '*';
      }
      case 'parenthesized_expression':
        return node.namedChildren[0] ? this.staticPath(node.namedChildren[0], depth + 1) : '*';
      case 'binary_operator': {
        const left = node.childForFieldName('left');
        const right = node.childForFieldName('right');
        return `${left ? this.staticPath(left, depth + 1) : '*'}/${right ? this.staticPath(right, depth + 1) : '*'}`;
      }
      case 'call': {
        const callee = node.childForFieldName('function');
        const name = qualify(this.module, dottedName(callee) ?? '');
        const args = callArguments(node).positional;
        if (name === 'pathlib.Path.home' || (name === 'os.path.expanduser' && args[0] === undefined)) return '~';
        if (name === 'os.path.join' || name === 'posixpath.join' || name === 'pathlib.Path' || name === 'os.path.expanduser') {
          return args.map((arg) => this.staticPath(arg, depth + 1)).join('/');
        }
        if (callee?.type === 'attribute' && /^(expanduser|resolve|absolute|joinpath)$/.test(callee.childForFieldName('attribute')?.text ?? '')) {
          const receiver = this.staticPath(callee.childForFieldName('object')!, depth + 1);
          return [receiver, ...args.map((arg) => this.staticPath(arg, depth + 1))].join('/');
        }
        return '*';
      }
      default:
        return '*';
    }
  }

  // ─── Static values ────────────────────────────────────────────────────────────────────────────

  /** The type of an object expression, for method sinks: Path, HTTP clients, SMTP, urllib Request. */
  typeOf(node: Node, depth = 0): string | undefined {
    if (depth > 8) return undefined;
    switch (node.type) {
      case 'identifier':
        if (this.types.has(node.text)) return this.types.get(node.text);
        if (!this.env.has(node.text) && this.module.constants.has(node.text)) {
          const value = this.module.constants.get(node.text)!;
          return this.typeOf(value, depth + 1);
        }
        return undefined;
      case 'list':
        return 'list';
      case 'parenthesized_expression':
      case 'await':
        return node.namedChildren[0] ? this.typeOf(node.namedChildren[0], depth + 1) : undefined;
      case 'binary_operator': {
        const left = node.childForFieldName('left');
        const right = node.childForFieldName('right');
        if (left && right && (isSequenceLiteral(left) || isSequenceLiteral(right))) return 'list';
        return left && this.typeOf(left, depth + 1) === 'pathlib.Path' ? 'pathlib.Path' : undefined;
      }
      case 'attribute': {
        const object = node.childForFieldName('object');
        return object && this.typeOf(object, depth + 1) === 'pathlib.Path' && /^(parent|parents)$/.test(node.childForFieldName('attribute')?.text ?? '') ? 'pathlib.Path' : undefined;
      }
      case 'call': {
        const callee = node.childForFieldName('function');
        const name = dottedName(callee);
        if (name) {
          const known = KNOWN_TYPES[qualify(this.module, name)];
          if (known) return known;
        }
        if (callee?.type === 'attribute') {
          const object = callee.childForFieldName('object');
          const method = callee.childForFieldName('attribute')?.text ?? '';
          if (object && this.typeOf(object, depth + 1) === 'pathlib.Path' && /^(resolve|absolute|expanduser|joinpath|with_name|with_suffix|relative_to)$/.test(method)) return 'pathlib.Path';
        }
        return undefined;
      }
      default:
        return undefined;
    }
  }

  /** The constant `base_url=` an HTTP client object was built with (`httpx.AsyncClient(base_url=API)`). */
  private clientBase(node: Node, depth = 0): string | undefined {
    if (depth > 4) return undefined;
    if (node.type === 'call') {
      const base = callArguments(node).keywords.get('base_url');
      const text = base ? this.staticText(base) : undefined;
      return text && (text.complete || fixedHostOf(text.text)) ? text.text : undefined;
    }
    if (node.type === 'identifier') {
      const local = this.bases.get(node.text);
      if (local || this.env.has(node.text)) return local;
      const constant = this.module.constants.get(node.text);
      return constant ? this.clientBase(constant, depth + 1) : undefined;
    }
    return undefined;
  }

  /** The constant text a value starts with (URLs, recipients, dispatcher names), following local and module constants. */
  staticText(node: Node, depth = 0): StaticText {
    const none = { text: '', complete: false };
    if (depth > 8) return none;
    switch (node.type) {
      case 'string':
      case 'concatenated_string': {
        let text = '';
        for (const part of node.type === 'concatenated_string' ? node.namedChildren : [node]) {
          if (!part) continue;
          const constant = stringValue(part);
          if (constant !== undefined) {
            text += constant;
            continue;
          }
          for (const child of part.namedChildren) {
            if (child?.type === 'string_content') text += child.text;
            else if (child?.type === 'interpolation') {
              const expression = child.childForFieldName('expression');
              const inner = expression ? this.staticText(expression, depth + 1) : none;
              text += inner.text;
              if (!inner.complete) return { text, complete: false };
            }
          }
        }
        return { text, complete: true };
      }
      case 'identifier': {
        const local = this.texts.get(node.text);
        if (local) return local;
        if (this.env.has(node.text)) return none;
        const constant = this.module.constants.get(node.text);
        return constant ? this.staticText(constant, depth + 1) : none;
      }
      case 'attribute': {
        const constant = resolveConstant(this.module, node);
        return constant && constant !== node ? this.staticText(constant, depth + 1) : none;
      }
      case 'parenthesized_expression':
        return node.namedChildren[0] ? this.staticText(node.namedChildren[0], depth + 1) : none;
      case 'binary_operator': {
        const left = node.childForFieldName('left');
        const right = node.childForFieldName('right');
        const operator = node.childForFieldName('operator')?.text;
        if (!left || operator !== '+') return none;
        const head = this.staticText(left, depth + 1);
        if (!head.complete || !right) return head;
        const tail = this.staticText(right, depth + 1);
        return { text: head.text + tail.text, complete: tail.complete };
      }
      case 'call': {
        const callee = node.childForFieldName('function');
        if (callee?.type === 'attribute' && callee.childForFieldName('attribute')?.text === 'format') {
          const template = this.staticText(callee.childForFieldName('object')!, depth + 1);
          const hole = template.text.indexOf('{');
          return hole === -1 ? template : { text: template.text.slice(0, hole), complete: false };
        }
        return none;
      }
      default:
        return none;
    }
  }
}

function isWildcardCase(clause: Node): boolean {
  return clause.namedChildren.some((child) => child?.type === 'case_pattern' && child.text === '_');
}

function isSequenceLiteral(node: Node): boolean {
  return node.type === 'list' || node.type === 'tuple';
}

function baseIdentifier(node: Node): string | undefined {
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

function envTaint(file: string, node: Node): Taint {
  return {
    origin: { kind: 'env', detail: 'os.environ' },
    composition: 'whole',
    steps: [{ file, line: node.startPosition.row + 1, note: 'the whole environment (os.environ)' }],
    sanitizers: [],
    crossFile: false,
  };
}

function sensitiveTaint(file: string, node: Node, text: string): Taint | undefined {
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
