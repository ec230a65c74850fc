// Dataflow over Python handlers: which tool inputs (and which secrets, environment dumps or decoded constants) reach
// which dangerous calls. Each function is summarised once (parameters as symbolic sources): the summary says which
// parameters reach which sinks and which flow into the return value, so a call site only substitutes its arguments.
import type { TaintFlow } from '../../model.js';
import { functionRange, mergeReach, newReach, type Reach } from '../capabilities.js';
import { EXECUTING_SINKS, NON_INPUT_SINKS, ORIGIN_WORDS, OUTBOUND_WORDS, SKIPPED_AT_MODULE_LEVEL } from './catalog.js';
import type { PyHandler, PyModule, PyProgram } from './program.js';
import { classType, enclosingClass } from './classes.js';
import { findRoutes, type PyRoute } from './routes.js';
import { Scope } from './scope.js';
import { functionParameters, location, parameterName, snippet, splatParameters, type Node } from './syntax.js';
import { inputTaint, placeInArgv, requestTaint, substitute, type ReturnSite, type SinkInfo, type Summary, type Taint, type TaintContext } from './values.js';

/**
 * Runs the dataflow over a parsed package: summaries on demand from the handlers, plus a sweep for secrets, environment
 * dumps and decoded payloads. `between` runs between units of work (the scan's yielder: cancellation gets a turn).
 */
export async function analyzeTaint(
  program: PyProgram,
  handlers: readonly PyHandler[],
  between: () => Promise<void> = async () => {},
  toolReach?: Map<string, Reach>,
): Promise<TaintFlow[]> {
  const engine = new TaintEngine(program);
  for (const module of program.modules) {
    await between();
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
      await between();
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
  for (const handler of handlers) {
    await between();
    engine.analyzeHandler(handler);
  }
  if (toolReach) for (const [tool, reach] of engine.toolReach) toolReach.set(tool, reach);
  for (const route of findRoutes(program)) {
    await between();
    engine.analyzeRoute(route);
  }
  return engine.flows;
}

class TaintEngine implements TaintContext {
  readonly flows: TaintFlow[] = [];
  /** Sinks whose destination is still a parameter of the summarised function: callers fill in the constant they pass. */
  readonly destinationParam = new WeakMap<SinkInfo, number>();
  private readonly seen = new Set<string>();
  private readonly summaries = new Map<string, Summary>();
  private readonly inProgress = new Set<string>();
  private readonly moduleValues = new Map<string, Taint[]>();

  /** What each tool's handler can do, by tool name. */
  readonly toolReach = new Map<string, Reach>();

  constructor(readonly program: PyProgram) {}

  reachOf(tool: string): Reach {
    let reach = this.toolReach.get(tool);
    if (!reach) this.toolReach.set(tool, (reach = newReach()));
    return reach;
  }

  emit(sink: SinkInfo, taint: Taint): void {
    // A whole tools/call request is not a value anyone chose: only its arguments are.
    if (taint.envelope) return;
    const kind = taint.origin.kind;
    if (kind === 'remote-response' && !EXECUTING_SINKS.has(sink.kind)) return;
    if (kind !== 'tool-input' && kind !== 'http-request' && !NON_INPUT_SINKS.has(sink.kind)) return;
    // A credential by name is configuration where it is meant to go (its API); kept in a log or a result it leaks.
    if (taint.secret && sink.kind !== 'log' && sink.kind !== 'tool-result') return;
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
    // `*args` / `**kwargs` are parameters past the named ones: a call binds the rest of its arguments to them.
    const splats = splatParameters(definition);
    const named = functionParameters(definition).length;
    [splats.list?.name, splats.dict].forEach((name, extra) => {
      if (!name) return;
      const index = named + extra;
      scope.env.set(name, [{ origin: { kind: 'unknown' }, param: { index }, composition: 'whole', steps: [], sanitizers: [], crossFile: false }]);
      scope.parameterIndex.set(name, index);
    });
    // `self` / `cls` of a method: calls through them reach the methods and attributes of its class.
    const owner = enclosingClass(module, definition);
    const first = functionParameters(definition)[0];
    const receiver = first ? parameterName(first) : undefined;
    if (owner && (receiver === 'self' || receiver === 'cls')) scope.types.set(receiver, classType(owner));
    scope.reach = newReach();
    scope.reach.functions.add(functionRange(module.path, definition.startPosition.row + 1, definition.endPosition.row + 1));
    const body = definition.childForFieldName('body');
    if (body) scope.block(body);
    const result = { returns: scope.returns, hits: scope.hits, returnSites: scope.returnSites, answers: scope.answers, reach: scope.reach };
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

  /** A route of the package's own web server: its request parameters are `http-request` sources. */
  analyzeRoute(route: PyRoute): void {
    const parameters = functionParameters(route.definition);
    const summary = this.summary(route.module, route.definition);
    for (const hit of summary.hits) {
      const parameter = parameters[hit.taint.param!.index];
      const name = parameter ? parameterName(parameter) : undefined;
      if (!parameter || !name || !route.parameters.has(name)) continue;
      const detail = name === 'self' ? route.route : `${route.route} ${name}`;
      const seed = requestTaint(route.module.path, parameter, detail, parameter.childForFieldName('type')?.text);
      const placed = placeInArgv(hit.sink, substitute(seed, hit.taint));
      this.emit(placed.sink, placed.taint);
    }
  }

  /**
   * What a tool handler returns is the tool's result: the model, its transcript and whoever drives it read it, so the
   * whole environment returned there is exposed. So is what it sends as a JSON-RPC result (ScopeState `answers`). A
   * file read from a credential path is not counted: what a tool returns of it is usually parsed (the host names of
   * ~/.ssh/config), which taint cannot tell from the key itself.
   */
  private emitResults(handler: PyHandler, sites: readonly ReturnSite[], tool: string): void {
    for (const site of sites) {
      for (const taint of site.taints) {
        if (taint.param || taint.origin.kind !== 'env') continue;
        const sink: SinkInfo = { kind: 'tool-result', callee: `the result of tool \`${tool}\``, location: location(site.file ?? handler.module.path, site.node), snippet: snippet(site.node), tool };
        this.emit(sink, taint);
      }
    }
  }

  analyzeHandler(handler: PyHandler): void {
    if (handler.kind === 'function') {
      const parameters = functionParameters(handler.definition);
      const summary = this.summary(handler.module, handler.definition);
      if (summary.reach) mergeReach(this.reachOf(handler.tool), summary.reach);
      for (const hit of summary.hits) {
        const parameter = parameters[hit.taint.param!.index];
        const name = parameter ? parameterName(parameter) : undefined;
        const declared = handler.parameters.find((candidate) => candidate.name === name);
        if (!parameter || !declared) continue;
        const seed = inputTaint(handler.tool, declared, handler.module.path, parameter);
        const placed = placeInArgv(hit.sink, substitute(seed, hit.taint));
        this.emit(placed.sink, placed.taint);
      }
      this.emitResults(handler, [...(summary.returnSites ?? []), ...(summary.answers ?? [])], handler.tool);
      return;
    }
    // Low-level dispatcher: walk the function once per tool, entering only the branches that tool reaches.
    const parameters = functionParameters(handler.definition).map((parameter) => parameterName(parameter)!);
    const offset = parameters[0] === 'self' ? 1 : 0;
    const argumentsTaint = (envelope: boolean): Taint => ({
      origin: { kind: 'tool-input', tool: handler.tool },
      composition: 'whole',
      steps: [{ file: handler.module.path, line: handler.definition.startPosition.row + 1, note: `arguments of ${handler.tool}` }],
      sanitizers: [],
      crossFile: false,
      dict: handler.parameters,
      ...(envelope && { envelope }),
    });
    if (handler.inputs === 'request') {
      // `(ctx, params)`: the request context is the server's; every other parameter is (part of) the request.
      const requests = parameters.slice(offset).filter((name) => !/^(ctx|context)$/.test(name));
      const scope = new Scope(this, handler.module, {
        tool: handler.tool,
        names: new Set(handler.nameExpression ? [handler.nameExpression] : []),
        ...(handler.messages && { messages: { names: new Set(handler.messages), request: argumentsTaint(true) } }),
      });
      for (const name of requests) scope.env.set(name, [argumentsTaint(true)]);
      scope.reach = this.reachOf(handler.tool);
      const body = handler.definition.childForFieldName('body');
      if (body) scope.block(body);
      this.emitResults(handler, [...scope.returnSites, ...scope.answers], handler.tool);
      return;
    }
    const nameParam = handler.nameExpression ?? parameters[offset];
    const argumentsParam = parameters.slice(offset).find((name) => name !== nameParam);
    if (!nameParam || !argumentsParam) return;
    const scope = new Scope(this, handler.module, { tool: handler.tool, names: new Set([nameParam]) });
    scope.env.set(argumentsParam, [argumentsTaint(false)]);
    scope.reach = this.reachOf(handler.tool);
    const body = handler.definition.childForFieldName('body');
    if (body) scope.block(body);
    this.emitResults(handler, [...scope.returnSites, ...scope.answers], handler.tool);
    // Reached sinks with real origins were emitted directly; the dispatcher's own summary is not needed.
  }
}
