// The base layer of the JS/TS taint pass: analysing a function body with its parameters bound, summarising helper
// functions once (which parameters reach which sinks, what they return) and applying a summary at each call site, and
// recording a TaintFlow when a value reaches a sink. The layers above add guards, statements, expressions and calls;
// they call each other recursively, hence one class built in layers rather than separate objects.
import { admitsLeadingDash, guardedKindOf, isGuarded, isRestrictivePattern, isSafeFlow, REMOTE_RESPONSE_SINKS, settleOptionValues, type SourceKind } from '../catalog.js';
import type { Capability, FlowStep, TaintFlow, ToolDefinition } from '../../model.js';
import type { AstNode } from './ast.js';
import { containsOffset, isFunction, lineOf, locationOf, memberName, snippetOf, unwrap } from './ast.js';
import type { Callee } from './callee.js';
import { HelperCheckCache } from './guards.js';
import type { RequestHandler } from './http.js';
import { REMOTE_CALLBACK_PARAMS } from './http.js';
import type { Label, Taint } from './labels.js';
import { CLEAN, mapTaint, MAX_STEPS, memberPath, newLabel, originKey, RECEIVER, significant, storedUnder, union, wholeKey } from './labels.js';
import { CallResolver, type Target } from './resolver.js';
import { ClassModel, type Instance, type MethodLookup } from './classes.js';
import { annotatedType, methodClasses } from './file-index.js';
import { Scope, type FileContext } from './scope.js';
import { staticPrefix, type SinkArgument } from './sinks.js';
import { addCapability, atCall, functionRange, newReach, type Reach } from '../capabilities.js';
import { addSummarySink, exportedHandlersOf, fileHints, FUNCTION_BUDGET, type Ctx, type SinkSite, type Summary, type TaintOptions } from './engine-context.js';

/** The receiver of a method call: an instance, or the class itself for a static method. */
export interface Receiver {
  owner: Instance;
  statics: boolean;
}

export abstract class FunctionAnalysis {
  protected readonly flows = new Map<string, TaintFlow>();
  protected readonly summaries = new Map<AstNode, Summary>();
  protected readonly inProgress = new Set<AstNode>();
  protected readonly helperChecks = new HelperCheckCache();
  protected readonly toolParams = new Map<string, ToolDefinition>();
  /** What each tool's handler can do, by tool name (a dispatcher's branches each add to their tool's). */
  readonly toolReach = new Map<string, Reach>();

  protected readonly resolver: CallResolver;
  protected readonly classes: ClassModel;

  constructor(protected readonly options: TaintOptions) {
    for (const tool of options.tools) if (tool.kind === 'tool' && !this.toolParams.has(tool.name)) this.toolParams.set(tool.name, tool);
    this.resolver = new CallResolver(options.files);
    this.classes = new ClassModel(
      options.files,
      (name, source, from) => this.resolver.exportedClass(name, source, from),
      (name, source, from) => this.resolver.exportedValue(name, source, from),
    );
  }

  /** The function of the package a call goes to: through the class of its receiver when known, else see resolver.ts. */
  protected resolveCall(calleeNode: AstNode, ctx: Ctx): Target | undefined {
    const lookup = this.methodCall(calleeNode, this.receiverOf(calleeNode, ctx));
    return lookup ? lookup.target : this.resolver.resolve(calleeNode, ctx.scope, ctx.file);
  }

  /** The class or instance a method is called on (`Helper.run`, `ev.evaluate`, `this.impl.run`), when it is known. */
  protected receiverOf(calleeNode: AstNode, ctx: Ctx): Receiver | undefined {
    const callee = unwrap(calleeNode);
    if (callee?.type !== 'MemberExpression' || callee.computed) return undefined;
    const object = unwrap(callee.object);
    const named = object?.type === 'Identifier' || object?.type === 'MemberExpression' ? this.classes.classNamed(object, ctx.file) : undefined;
    if (named?.kind === 'class') return { owner: named, statics: true };
    const owner = this.classes.instanceOf(object, { file: ctx.file, scope: ctx.scope, ...(ctx.self && { self: ctx.self }) });
    return owner && { owner, statics: false };
  }

  /** The method a call on a known package class reaches: undefined when the class is not known (or not the package's). */
  protected methodCall(calleeNode: AstNode, receiver: Receiver | undefined): MethodLookup | undefined {
    const name = receiver?.owner.kind === 'class' ? memberName(unwrap(calleeNode) as AstNode) : undefined;
    if (name === undefined || receiver?.owner.kind !== 'class') return undefined;
    const lookup = this.classes.methodOf(receiver.owner.info, name, receiver.statics ? 'statics' : 'methods');
    // A base class outside the package may define it: then the call is as unknown as before.
    return lookup.target || lookup.closed ? lookup : undefined;
  }

  protected abstract statements(statements: AstNode[], ctx: Ctx): void;
  protected abstract expr(node: AstNode | null | undefined, ctx: Ctx): Taint;
  protected abstract bind(pattern: AstNode, taint: Taint, ctx: Ctx, note: boolean): void;

  // ─── Functions ────────────────────────────────────────────────────────────────────────────────

  /** Analyses a function body; `params` binds parameter taint positionally. Returns what the function may return. */
  protected analyzeFunction(fn: AstNode, file: FileContext, parent: Scope, params: Taint[], inherit: Partial<Ctx> = {}, thisValue?: Taint): Taint {
    const handler = file.handlers.get(fn);
    const exported = exportedHandlersOf(file).get(fn);
    const live =
      inherit.live === true ||
      handler !== undefined ||
      exported !== undefined ||
      file.dispatchers.has(fn) ||
      inherit.summary !== undefined ||
      params.some(significant) ||
      parent.anyTainted();
    if (!live && !this.mayMatter(fn, file)) return CLEAN;
    // A tool's handler starts its tool's list; anything else adds to the list of whoever called it.
    const reach = handler ? this.reachOfTool(handler.tool.name) : inherit.reach;
    const toolResult = handler !== undefined || file.dispatchers.has(fn) ? { ...(handler && { tool: handler.tool.name }) } : undefined;
    const answering = toolResult ?? inherit.answering;
    const scope = new Scope(parent);
    const ctx: Ctx = {
      file,
      scope,
      guards: inherit.guards ?? new Map(),
      ownGuards: false,
      returns: [],
      budget: inherit.budget ?? { left: FUNCTION_BUDGET },
      ...(inherit.currentTool !== undefined && { currentTool: inherit.currentTool }),
      ...(inherit.summary && { summary: inherit.summary }),
      ...(reach && { reach }),
      ...(toolResult && { toolResult }),
      ...(answering && { answering }),
      live,
    };
    if (ctx.reach) {
      const parsed = file.index.parsed;
      ctx.reach.functions.add(functionRange(parsed.file.path, lineOf(parsed, fn.start), lineOf(parsed, fn.end)));
    }
    const owner = methodClasses.get(fn);
    const self: Instance | undefined = owner ? { kind: 'class', info: owner, file } : fn.type === 'ArrowFunctionExpression' ? inherit.self : undefined;
    if (self) ctx.self = self;
    // `this` of a method is what its summary binds (`receiver`); an arrow function keeps its enclosing `this`.
    const receiver = owner ? thisValue : fn.type === 'ArrowFunctionExpression' ? inherit.receiver : undefined;
    if (receiver) ctx.receiver = receiver;
    const paramNodes: AstNode[] = fn.params ?? [];
    paramNodes.forEach((param, position) => {
      // `client: DesignClient`, `constructor(private readonly git: GitClient)`: the parameter is an instance of that class.
      const id = param.type === 'TSParameterProperty' ? param.parameter : param.type === 'AssignmentPattern' ? param.left : param;
      if (id?.type === 'Identifier') {
        const type = annotatedType(param);
        scope.instances.set(id.name, (type && this.classes.classNamed(type, file)) ?? null);
      }
      let taint = params[position] ?? CLEAN;
      if (handler && position === handler.argsParam) {
        taint = union(taint, [newLabel({ kind: 'tool-input', tool: handler.tool.name }, [this.sourceStep(file, param, `input of tool \`${handler.tool.name}\``, 'tool-input')])]);
      }
      if (file.dispatchers.has(fn) && position === 0) taint = union(taint, [newLabel({ kind: 'request' }, [this.sourceStep(file, param, 'the tools/call request', 'tool-input')])]);
      if (exported && position === exported.requestParam) taint = union(taint, this.requestTaint(param, exported, file));
      this.bind(param, taint, ctx, false);
    });
    if (fn.body?.type === 'BlockStatement') {
      this.hoist(fn.body.body, scope);
      this.statements(fn.body.body, ctx);
    } else if (fn.body) {
      this.returned(fn.body, this.expr(fn.body, ctx), ctx);
    }
    return ctx.returns;
  }

  /**
   * A value a function returns; in a tool handler it is also the tool's result, a sink for the whole environment since
   * the model, its transcript and whoever drives it all read it. Credential-file contents are not counted (see the
   * Python engine's `emitResults`: what a tool returns of them is usually parsed, not the secret).
   */
  protected returned(node: AstNode, taint: Taint, ctx: Ctx): void {
    const guarded = this.applyGuards(taint, ctx);
    ctx.returns.push(...guarded);
    if (ctx.toolResult) this.toolResultFlows(node, guarded, ctx);
  }

  /**
   * The `result` of a JSON-RPC response a server builds itself (`{ jsonrpc: '2.0', id, result }`, `send({ id, result })`):
   * a server without an SDK answers `tools/call` by writing one to stdout or a socket rather than returning the result,
   * so in a tool-call dispatcher it is the tool's result as much as a return value is. The response object is what
   * says so, not the write: a log line (`console.error(JSON.stringify(config))`) builds none. A helper that builds one
   * from its parameter (`function reply(id, result) { process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result })) }`)
   * gets a summary sink, reported where a dispatcher calls it (see `record`).
   */
  protected answered(node: AstNode, taint: Taint, ctx: Ctx): void {
    if (ctx.answering || ctx.summary) this.toolResultFlows(node, taint, ctx);
  }

  /** The tool is named where the result is recorded (`record`): a helper's summary learns it only from its caller. */
  private toolResultFlows(node: AstNode, taint: Taint, ctx: Ctx): void {
    const parsed = ctx.file.index.parsed;
    const site: SinkSite = { kind: 'tool-result', callee: 'the tool result', location: locationOf(parsed, node), snippet: snippetOf(parsed, node), isUrl: false, sanitizers: [] };
    for (const label of taint) this.record(site, label, ctx);
  }

  protected sourceStep(file: FileContext, node: AstNode, note: string, kind: SourceKind): FlowStep {
    return { file: file.index.parsed.file.path, line: lineOf(file.index.parsed, node.start), note, kind };
  }

  /** The request (or framework context) parameter of a request handler. */
  protected requestTaint(param: AstNode, handler: RequestHandler, file: FileContext): Taint {
    const name = param.type === 'Identifier' ? param.name : 'request';
    const hono = [...file.index.imports.values()].some((binding) => binding.source === 'hono' || binding.source.startsWith('hono/') || binding.source.startsWith('@hono/'));
    const origin = { kind: 'http-request' as const, detail: name, container: true, ...(hono && { honoContext: true }) };
    return [newLabel(origin, [this.sourceStep(file, param, `request to ${handler.route}`, 'http-request')])];
  }

  /** Parameters a library fills from a remote server (`redirectToAuthorization(url)`), by the method's name. */
  protected callbackParams(name: string | undefined, fn: AstNode, file: FileContext): Taint[] {
    const contract = name === undefined ? undefined : REMOTE_CALLBACK_PARAMS[name];
    const param = contract === undefined ? undefined : (fn.params?.[contract.param] as AstNode | undefined);
    if (!contract || !param) return [];
    const params: Taint[] = [];
    params[contract.param] = [newLabel({ kind: 'remote-response', detail: contract.what }, [this.sourceStep(file, param, `receives ${contract.what}`, 'remote-response')])];
    return params;
  }

  /** Whether a function holds a possible source or a handler (binary search over the file's sorted hint offsets). */
  protected mayMatter(fn: AstNode, file: FileContext): boolean {
    file.hints ??= fileHints(file);
    return containsOffset(file.hints, fn.start, fn.end);
  }

  /** Function declarations are visible before their statement: register them so calls resolve to them. */
  protected hoist(statements: AstNode[], scope: Scope): void {
    for (const statement of statements) {
      const declaration = statement.type === 'ExportNamedDeclaration' || statement.type === 'ExportDefaultDeclaration' ? statement.declaration : statement;
      if (declaration?.type === 'FunctionDeclaration' && declaration.id) scope.functions.set(declaration.id.name, declaration);
      if (declaration?.type === 'VariableDeclaration') {
        for (const declarator of declaration.declarations) {
          const init = unwrap(declarator.init);
          if (declarator.id.type === 'Identifier' && isFunction(init)) scope.functions.set(declarator.id.name, init as AstNode);
        }
      }
    }
  }

  protected summaryOf(fn: AstNode, file: FileContext): Summary {
    const cached = this.summaries.get(fn);
    if (cached) return cached;
    const summary: Summary = { sinks: [], returns: [], answers: [], reach: newReach(), ...(methodClasses.get(fn)?.constructorFn === fn && { fields: new Map() }) };
    if (this.inProgress.has(fn)) return summary;
    this.inProgress.add(fn);
    const params: Taint[] = (fn.params ?? []).map((_: AstNode, index: number) => [newLabel({ kind: 'param', index })]);
    // `constructor(private readonly host: string)`: TypeScript stores the parameter in `this.host` before the body runs.
    (fn.params ?? []).forEach((param: AstNode, index: number) => {
      const name = param.type === 'TSParameterProperty' && param.parameter?.type === 'Identifier' ? param.parameter.name : undefined;
      if (name !== undefined) summary.fields?.set(name, [...(params[index] ?? CLEAN)]);
    });
    const receiver = methodClasses.has(fn) ? [newLabel({ kind: 'param', index: RECEIVER })] : undefined;
    summary.returns = [...this.analyzeFunction(fn, file, file.moduleScope, params, { summary, reach: summary.reach }, receiver)];
    this.inProgress.delete(fn);
    this.summaries.set(fn, summary);
    return summary;
  }

  /**
   * What `new X(…)` holds, for `this.<field>` in X's methods: what X's constructor stores in each field, with the call's
   * arguments put in for its parameters, each value kept under its field name (so `this.host` does not see what was
   * stored in `this.apiKey`). The constructor's own sinks are recorded on the way. Only the package's classes.
   */
  protected instanceContent(calleeNode: AstNode, args: Taint[], call: AstNode, ctx: Ctx): Taint {
    const named = this.classes.classNamed(calleeNode, ctx.file);
    const constructorFn = named?.kind === 'class' ? named.info.constructorFn : undefined;
    if (named?.kind !== 'class' || !constructorFn) return CLEAN;
    return this.applySummary(this.summaryOf(constructorFn, named.file), args, call, ctx, named.file, `new ${named.info.name}`);
  }

  /** `receiver`: what the instance a method is called on holds (see `instanceContent`); `this` in the summary. */
  protected applySummary(summary: Summary, args: Taint[], call: AstNode, ctx: Ctx, target: FileContext, display: string, receiver: Taint = CLEAN): Taint {
    const reach = this.reachHere(ctx);
    if (reach) this.mergeAt(reach, summary.reach, args, call, ctx);
    const crossFile = target !== ctx.file;
    const step: FlowStep = { file: ctx.file.index.parsed.file.path, line: lineOf(ctx.file.index.parsed, call.start), note: `passed to ${display}()` };
    const combine = (outer: Label, inner: Label): Label => ({
      origin: outer.origin,
      embedded: outer.embedded || inner.embedded,
      sanitizers: inner.sanitizers.length ? [...new Set([...outer.sanitizers, ...inner.sanitizers])] : outer.sanitizers,
      steps: [...outer.steps, step, ...inner.steps].slice(0, MAX_STEPS),
      crossFile: outer.crossFile || inner.crossFile || crossFile,
      realpath: outer.realpath || inner.realpath,
      hostFixed: outer.hostFixed || inner.hostFixed,
      ...((outer.prefixed || inner.prefixed) && { prefixed: true }),
      // What the callee made of it (encoded, decoded); a value it returns unchanged stays what the caller had.
      ...segmentAfterCall(outer, inner),
      // Where the callee stored the value in what it returns; else wherever the caller's value already sat.
      ...((inner.field ?? outer.field) !== undefined && { field: inner.field ?? outer.field }),
    });
    const argument = (param: number, path: string | undefined): Taint => {
      return memberPath(param === RECEIVER ? receiver : (args[param] ?? CLEAN), path);
    };
    for (const entry of summary.sinks) {
      for (const outer of argument(entry.param, entry.path)) this.record(entry.site, combine(outer, entry.label), ctx);
    }
    for (const answer of summary.answers) this.record(answer.site, crossFile && !answer.label.crossFile ? { ...answer.label, crossFile: true } : answer.label, ctx);
    const substitute = (inner: Label): Taint =>
      inner.origin.kind === 'param'
        ? argument(inner.origin.index, inner.origin.path).map((outer) => combine(outer, inner))
        : [crossFile && !inner.crossFile ? { ...inner, crossFile: true } : inner];
    let result: Taint = CLEAN;
    for (const inner of summary.returns) result = union(result, substitute(inner));
    // A constructor's value is the instance: what it keeps in each field, under that field's name (`instanceContent`).
    for (const [field, stored] of summary.fields ?? []) {
      for (const inner of stored) result = union(result, mapTaint(substitute(inner), (label) => storedUnder(label, field)));
    }
    return result;
  }

  // ─── Flows ────────────────────────────────────────────────────────────────────────────────────

  protected applyGuards(taint: Taint, ctx: Ctx): Taint {
    if (ctx.operatorSwitch !== undefined) {
      // Returned or used where only the operator's switch leads (see guards.ts `operatorSwitch`).
      taint = mapTaint(taint, (label) => (label.sanitizers.includes('operator-opt-in') ? label : { ...label, sanitizers: [...label.sanitizers, 'operator-opt-in'] }));
    }
    if (ctx.guards.size === 0 || taint.length === 0) return taint;
    return mapTaint(taint, (label) => {
      // A check of the whole value (`url.protocol` of `url`) also covers the parts later read from it (`url.href`).
      const whole = wholeKey(label.origin);
      const guards = [...(ctx.guards.get(originKey(label.origin)) ?? []), ...(whole === undefined ? [] : (ctx.guards.get(whole) ?? []))];
      if (guards.length === 0) return label;
      const sanitizers = [...new Set([...label.sanitizers, ...guards.map((guard) => guard.name)])];
      if (sanitizers.length === label.sanitizers.length) return label;
      const checks = guards.flatMap((guard) => (guard.step && !label.sanitizers.includes(guard.name) ? [guard.step] : []));
      return { ...label, sanitizers, ...(checks.length > 0 && { steps: [...label.steps, ...checks].slice(0, MAX_STEPS) }) };
    });
  }

  protected record(site: SinkSite, raw: Label, ctx: Ctx): void {
    const [label] = this.applyGuards([raw], ctx);
    if (!label) return;
    const origin = label.origin;
    if (origin.kind === 'param') {
      if (ctx.summary) addSummarySink(ctx.summary, { param: origin.index, ...(origin.path !== undefined && { path: origin.path }), site, label });
      return;
    }
    if (site.kind === 'tool-result') {
      // A tool's result is a sink for the environment and credentials only, and only where a tool call is answered: a
      // helper that sends a JSON-RPC result (`answered`) leaks what it sends when a dispatcher calls it, so its
      // summary keeps it for the callers.
      if (origin.kind !== 'env' && origin.kind !== 'secret') return;
      if (!ctx.answering) {
        if (ctx.summary && !ctx.summary.answers.some((answer) => answer.site === site && originKey(answer.label.origin) === originKey(origin))) {
          ctx.summary.answers.push({ site, label });
        }
        return;
      }
      const tool = site.tool ?? ctx.answering.tool ?? ctx.currentTool;
      if (tool !== undefined && site.tool === undefined) site = { ...site, callee: `the result of tool \`${tool}\``, tool };
    }
    let kind = site.kind;
    let flowOrigin: TaintFlow['origin'];
    // An element placed after an option in a list built before its program was known: the program is known here.
    const sanitizers = new Set(settleOptionValues([...site.sanitizers, ...label.sanitizers], site.program));
    if (origin.kind === 'tool-input') {
      const tool = origin.tool ?? ctx.currentTool;
      flowOrigin = { kind: 'tool-input', ...(tool !== undefined && { tool }), ...(origin.param !== undefined && { param: origin.param }) };
      const parameter = tool !== undefined ? this.toolParams.get(tool)?.parameters.find((p) => p.name === origin.param) : undefined;
      if (parameter?.enum?.length) sanitizers.add('schema-enum');
      if (parameter?.type === 'number' || parameter?.type === 'integer' || parameter?.type === 'boolean') sanitizers.add('numeric');
      if (parameter?.maximum !== undefined || parameter?.type === 'boolean') sanitizers.add('bounded');
      if (site.role === 'option' && label.prefixed) sanitizers.add('no-leading-dash');
      if (parameter?.pattern !== undefined && isRestrictivePattern(parameter.pattern)) {
        sanitizers.add('schema-pattern');
        if (!admitsLeadingDash(parameter.pattern)) sanitizers.add('no-leading-dash');
      }
    } else if (origin.kind === 'http-request') {
      flowOrigin = { kind: 'http-request', detail: origin.detail };
    } else if (origin.kind === 'remote-response') {
      if (!REMOTE_RESPONSE_SINKS.has(kind)) return;
      flowOrigin = { kind: 'remote-response', detail: origin.detail };
    } else if (origin.kind === 'secret') {
      // A credential by name is configuration where it is meant to go (its API); kept in a log or a result it leaks.
      if (kind !== 'log' && kind !== 'tool-result') return;
      flowOrigin = { kind: 'env', detail: origin.detail };
    } else if (origin.kind === 'env' || origin.kind === 'sensitive-file' || origin.kind === 'decoded-constant') {
      if (kind === 'file-read' || kind === 'file-write' || kind === 'sql') return;
      // Secrets embedded in a URL are a payload leaving the machine, not a choice of destination.
      if (kind === 'network' && origin.kind !== 'decoded-constant') kind = 'network-send';
      flowOrigin = { kind: origin.kind, detail: origin.detail.length > 200 ? origin.detail.slice(0, 200) : origin.detail };
    } else return;
    if (site.isUrl && label.hostFixed) sanitizers.add('fixed-host');
    const flow: TaintFlow = {
      sink: {
        kind,
        callee: site.callee,
        location: site.location,
        snippet: site.snippet,
        ...(site.shell !== undefined && { shell: site.shell }),
        ...(site.target !== undefined && { target: site.target }),
        ...(site.role !== undefined && { role: site.role }),
        ...(site.program !== undefined && { program: site.program }),
        ...(site.linkPreviews && { linkPreviews: true }),
        ...(site.tool !== undefined && { tool: site.tool }),
      },
      origin: flowOrigin,
      composition: label.embedded || site.embeds ? 'embedded' : 'whole',
      steps: [...label.steps],
      sanitizers: [...sanitizers].sort(),
      crossFile: label.crossFile,
    };
    const key = [
      site.location.file, site.location.line, site.location.column, kind, flowOrigin.kind, flowOrigin.tool, flowOrigin.param,
      // A request's data or a remote answer reaching a sink is one problem, whichever part or call it came through.
      flowOrigin.kind === 'remote-response' || flowOrigin.kind === 'http-request' ? '' : flowOrigin.detail, flow.composition, site.role, site.linkPreviews,
    ].join('|');
    // Several paths to one sink from one origin: the flow is only as guarded as its least guarded path.
    const existing = this.flows.get(key);
    if (!existing) this.flows.set(key, flow);
    else {
      const common = existing.sanitizers.filter((name) => flow.sanitizers.includes(name));
      // Each path guarded by a check of its own (containment on one, the operator's switch on another) is guarded on
      // every path: keep the checks that protect this sink from both, so the merged flow stays safe exactly when both are.
      const protecting = isSafeFlow(existing) && isSafeFlow(flow) ? [...existing.sanitizers, ...flow.sanitizers].filter((name) => isGuarded(guardedKindOf(flow), [name])) : [];
      existing.sanitizers = [...new Set([...common, ...protecting])].sort();
    }
  }

  protected sinkSite(sink: SinkArgument, callee: Callee, call: AstNode, ctx: Ctx): SinkSite {
    const parsed = ctx.file.index.parsed;
    return {
      kind: sink.kind,
      callee: callee.display,
      location: locationOf(parsed, call),
      snippet: snippetOf(parsed, call),
      isUrl: sink.isUrl === true,
      sanitizers: sink.sanitizers ?? [],
      ...(sink.shell !== undefined && { shell: sink.shell }),
      ...(sink.target !== undefined && { target: sink.target }),
      ...(sink.role !== undefined && { role: sink.role }),
      ...(sink.program !== undefined && { program: sink.program }),
      ...(sink.embeds && { embeds: true }),
      ...(sink.linkPreviews && { linkPreviews: true }),
    };
  }

  protected sinkFlows(sinks: SinkArgument[], argTaints: Map<AstNode, Taint>, callee: Callee, call: AstNode, ctx: Ctx): void {
    for (const sink of sinks) {
      const taint = argTaints.get(sink.node) ?? this.expr(sink.node, ctx);
      if (!taint.length) continue;
      const site = this.sinkSite(sink, callee, call, ctx);
      for (const label of taint) this.record(site, label, ctx);
    }
  }


  protected inherit(ctx: Ctx): Partial<Ctx> {
    return {
      guards: ctx.guards,
      budget: ctx.budget,
      live: ctx.live,
      ...(ctx.currentTool !== undefined && { currentTool: ctx.currentTool }),
      ...(ctx.answering && { answering: ctx.answering }),
      ...(ctx.summary && { summary: ctx.summary }),
      ...(ctx.self && { self: ctx.self }),
      ...(ctx.receiver && { receiver: ctx.receiver }),
      ...(ctx.reach && { reach: ctx.reach }),
    };
  }

  protected reachOfTool(tool: string): Reach {
    let reach = this.toolReach.get(tool);
    if (!reach) this.toolReach.set(tool, (reach = newReach()));
    return reach;
  }

  /** Where a capability found here belongs: the tool of a dispatcher's branch, else the body's own reach. */
  protected reachHere(ctx: Ctx): Reach | undefined {
    return ctx.currentTool !== undefined && !ctx.summary ? this.reachOfTool(ctx.currentTool) : ctx.reach;
  }

  /** Adds a callee's capabilities at a call, filling in the host of a request whose URL this call passes. */
  private mergeAt(into: Reach, from: Reach, args: Taint[], call: AstNode, ctx: Ctx): void {
    for (const fn of from.functions) into.functions.add(fn);
    const location = locationOf(ctx.file.index.parsed, call);
    const text = (index: number) => staticPrefix((call.arguments as AstNode[])[index], ctx.file.index);
    const forwarded = (index: number) => {
      const label = (args[index] ?? []).find((candidate) => candidate.origin.kind === 'param');
      return label?.origin.kind === 'param' ? label.origin.index : undefined;
    };
    for (const capability of from.capabilities.values()) addCapability(into, atCall(capability, text, forwarded, location));
  }

  protected noteCapabilities(capabilities: readonly Capability[], ctx: Ctx): void {
    const reach = this.reachHere(ctx);
    if (reach) for (const capability of capabilities) addCapability(reach, capability);
  }

}

/** The one-segment mark of a value a callee returns (see `Label.segment`): the callee's verdict, else the caller's if not embedded. */
function segmentAfterCall(outer: Label, inner: Label): Pick<Label, 'segment'> {
  const segment = inner.segment ?? (inner.embedded ? undefined : outer.segment);
  return segment === undefined ? {} : { segment };
}
