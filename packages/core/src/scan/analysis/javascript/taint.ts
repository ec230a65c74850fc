// The JS/TS taint pass: abstract interpretation of function bodies in source order, tracking which values derive from
// tool inputs (or other origins) through variables, expressions and calls, and recording a TaintFlow whenever such a
// value reaches a sink argument. Helper functions are summarised once (which parameters reach which sinks and the
// return value) and the summary is reused at every call site.
import { admitsLeadingDash, argvElementGuard, isRestrictivePattern, REMOTE_RESPONSE_SINKS, SQL_STATEMENT_START, WEAK_GUARDS, type ArgvRole, type SourceKind } from '../catalog.js';
import type { FlowStep, SinkKind, SourceLocation, TaintFlow, ToolDefinition } from '../../model.js';
import type { AstNode } from './ast.js';
import { containsOffset, isFunction, lineOf, locationOf, memberName, offsetsOf, propertyName, snippetOf, unwrap, walk, wordsPattern } from './ast.js';
import type { Callee } from './callee.js';
import { resolveCallee } from './callee.js';
import { staticString, staticValue } from './file-index.js';
import { CONDITION_TYPES, endsWithSeparator, HelperCheckCache, NORMALISING_METHODS, refuses, removesAllButSafeCharacters } from './guards.js';
import { CallResolver, type Target } from './resolver.js';
import { Scope, type FileContext } from './scope.js';
import type { SinkArgument } from './sinks.js';
import { sinkArguments, staticPrefix } from './sinks.js';
import type { Label, Taint } from './labels.js';
import type { RequestHandler } from './http.js';
import { exportedRequestHandlers, mayRegisterRoutes, REMOTE_CALLBACK_PARAMS, returnsRemoteData, routeHandlers } from './http.js';
import { addStep, CLEAN, CONFIG, embed, fixHost, holdsRequest, mapTaint, MAX_STEPS, member, newLabel, originKey, prefixed, sanitize, significant, union, wholeKey } from './labels.js';

const FUNCTION_BUDGET = 25_000;

interface SinkSite {
  kind: SinkKind;
  callee: string;
  location: SourceLocation;
  snippet: string;
  shell?: boolean;
  target?: string;
  isUrl: boolean;
  sanitizers: readonly string[];
  role?: ArgvRole;
  program?: string;
  embeds?: boolean;
  linkPreviews?: boolean;
}

/** A recognised check: the sanitizer it stands for, and for a check that does not hold, where it is (shown in the flow). */
interface Guard {
  name: string;
  step?: FlowStep;
}

interface Summary {
  sinks: Array<{ param: number; path?: string; site: SinkSite; label: Label }>;
  returns: Label[];
}

/**
 * Text that may start a non-tool origin inside a function: the whole environment, home-directory credential paths,
 * run-time decoding. A function without any of these (and without a handler inside) analysed with clean inputs cannot
 * produce a flow, so the pass skips it; in bundles that is most of the inlined third-party code.
 */
const SOURCE_WORDS = wordsPattern([
  'process.env', 'homedir', 'HOME', 'USERPROFILE', '.ssh', 'id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519', '.aws', 'gcloud',
  'npmrc', 'pypirc', 'git-credentials', 'netrc', '.docker', '.kube', '.env', 'eychain', 'Cookies', 'Login Data',
  'Local State', 'Chrome', 'Firefox', 'mozilla', 'Brave', '_history', 'pgpass', 'wallet', 'gnupg', 'solana', 'base64',
  'hex', 'atob', 'fromCharCode', 'createServer', 'serve(', 'callTool', 'readResource', 'getPrompt', 'redirectToAuthorization',
  'discoverOAuth', 'discoverAuthorization', 'startAuthorization',
]);
/**
 * The words above, and route registrations (`app.get('/x', …)`, `server.on('request', …)`) where request handlers
 * hide inside other functions: one pass over the text.
 */
const SOURCE_HINTS = new RegExp(`${SOURCE_WORDS.source}|\\.(?:get|post|put|patch|delete|all|options|head|use|route)\\(\\s*['"\`]\\/|\\.on\\(\\s*['"]request['"]`, 'g');

interface Ctx {
  file: FileContext;
  scope: Scope;
  /** Origin key → guards seen so far. Copied on first write, so a callee never leaks guards to its caller. */
  guards: Map<string, readonly Guard[]>;
  ownGuards: boolean;
  returns: Label[];
  currentTool?: string;
  summary?: Summary;
  budget: { left: number };
  /** Inside a handler, a summary or a function called with tainted arguments: nothing may be skipped. */
  live: boolean;
}

/** A constant `scheme://host/` (path, query or fragment must follow) at the start of a URL: the host is not the model's choice. */
function hasFixedHost(prefix: string | undefined): boolean {
  return prefix !== undefined && /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]+[/?#]/i.test(prefix);
}

const SENSITIVE_PATH =
  /(^|[/\\])\.ssh([/\\]|$)|id_(rsa|dsa|ecdsa|ed25519)|\.aws[/\\]|\.aws$|\.config[/\\]gcloud|(^|[/\\])\.env(\.[a-z]+)?$|\.npmrc|\.pypirc|\.git-credentials|\.netrc|\.docker[/\\]config\.json|\.kube[/\\]config|Keychains|\.keychain|Login Data|Cookies$|Local State|[/\\]Google[/\\]Chrome|[/\\]\.mozilla|Firefox[/\\]Profiles|BraveSoftware|\.bash_history|\.zsh_history|\.pgpass|wallet\.dat|\.gnupg|solana[/\\]id\.json/i;

const DECODE_ENCODINGS = new Set(['base64', 'base64url', 'hex']);

const ARRAY_CALLBACKS = new Set(['map', 'forEach', 'filter', 'flatMap', 'some', 'every', 'find', 'findIndex', 'findLast', 'then', 'sort']);
const RESULT_FROM_CALLBACK = new Set(['map', 'flatMap', 'then']);
const NON_PROPAGATING_METHODS = new Set([
  'includes', 'has', 'startsWith', 'endsWith', 'test', 'indexOf', 'lastIndexOf', 'some', 'every', 'findIndex', 'localeCompare',
  'hasOwnProperty', 'isFile', 'isDirectory', 'push', 'set', 'add', 'delete', 'write', 'end', 'emit', 'log', 'info', 'warn',
  'error', 'debug', 'send', 'json', 'status',
]);
const VALUE_FUNCTIONS = new Set(['String', 'encodeURIComponent', 'encodeURI', 'decodeURIComponent', 'decodeURI', 'structuredClone', 'escape', 'unescape']);
const GLOBAL_PROPAGATORS: Record<string, Set<string>> = {
  'global:JSON': new Set(['stringify', 'parse']),
  'global:Object': new Set(['entries', 'values', 'keys', 'assign', 'fromEntries', 'freeze']),
  'global:Array': new Set(['from', 'of']),
  'global:Buffer': new Set(['from', 'concat']),
  'global:path': new Set(['join', 'resolve', 'normalize']),
};
const NUMERIC = new Set(['Number', 'parseInt', 'parseFloat', 'BigInt']);

const NO_ROUTES: ReadonlySet<AstNode> = new Set();

/** Origins an outsider chooses (a URL from one of these points at a server nobody vetted). */
const OUTSIDER = new Set(['tool-input', 'http-request', 'remote-response', 'request', 'request-params']);
/** Library functions whose result does not carry their argument's content: hashes, escaping, checks, counts. */
const OPAQUE_FUNCTION_NAME =
  /escape|quote|sanitiz|hash|digest|encrypt|^(sign|verify|validate|compare|count|uuid|random|exists|stat|log|debug|info|warn|error|emit|send|write|spawn|exec|fork)|^(is|has)[A-Z]|(Valid|Count|Length|Size)$/;
const PATH_JOINERS = new Set(['join', 'resolve', 'posix.join', 'posix.resolve', 'win32.join', 'win32.resolve']);

export interface TaintOptions {
  files: Map<string, FileContext>;
  tools: readonly ToolDefinition[];
}

export class TaintEngine {
  private readonly flows = new Map<string, TaintFlow>();
  private readonly summaries = new Map<AstNode, Summary>();
  private readonly inProgress = new Set<AstNode>();
  private readonly helperChecks = new HelperCheckCache();
  private readonly toolParams = new Map<string, ToolDefinition>();

  private readonly resolver: CallResolver;

  constructor(private readonly options: TaintOptions) {
    for (const tool of options.tools) if (tool.kind === 'tool' && !this.toolParams.has(tool.name)) this.toolParams.set(tool.name, tool);
    this.resolver = new CallResolver(options.files);
  }

  /** The function of the package a call goes to (see resolver.ts). */
  private resolveCall(calleeNode: AstNode, ctx: Ctx): Target | undefined {
    return this.resolver.resolve(calleeNode, ctx.scope, ctx.file);
  }

  run(): TaintFlow[] {
    for (const file of this.options.files.values()) {
      const ctx: Ctx = {
        file,
        scope: file.moduleScope,
        guards: new Map(),
        ownGuards: true,
        returns: [],
        budget: { left: FUNCTION_BUDGET * 4 },
        live: false,
      };
      this.hoist(file.index.parsed.program.body, ctx.scope);
      this.statements(file.index.parsed.program.body, ctx);
    }
    return [...this.flows.values()];
  }

  // ─── Functions ────────────────────────────────────────────────────────────────────────────────

  /** Analyses a function body; `params` binds parameter taint positionally. Returns what the function may return. */
  private analyzeFunction(fn: AstNode, file: FileContext, parent: Scope, params: Taint[], inherit: Partial<Ctx> = {}): Taint {
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
      live,
    };
    const paramNodes: AstNode[] = fn.params ?? [];
    paramNodes.forEach((param, position) => {
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
      ctx.returns.push(...this.applyGuards(this.expr(fn.body, ctx), ctx));
    }
    return ctx.returns;
  }

  private sourceStep(file: FileContext, node: AstNode, note: string, kind: SourceKind): FlowStep {
    return { file: file.index.parsed.file.path, line: lineOf(file.index.parsed, node.start), note, kind };
  }

  /** The request (or framework context) parameter of a request handler. */
  private requestTaint(param: AstNode, handler: RequestHandler, file: FileContext): Taint {
    const name = param.type === 'Identifier' ? param.name : 'request';
    return [newLabel({ kind: 'http-request', detail: name, container: true }, [this.sourceStep(file, param, `request to ${handler.route}`, 'http-request')])];
  }

  /** Parameters a library fills from a remote server (`redirectToAuthorization(url)`), by the method's name. */
  private callbackParams(name: string | undefined, fn: AstNode, file: FileContext): Taint[] {
    const contract = name === undefined ? undefined : REMOTE_CALLBACK_PARAMS[name];
    const param = contract === undefined ? undefined : (fn.params?.[contract.param] as AstNode | undefined);
    if (!contract || !param) return [];
    const params: Taint[] = [];
    params[contract.param] = [newLabel({ kind: 'remote-response', detail: contract.what }, [this.sourceStep(file, param, `receives ${contract.what}`, 'remote-response')])];
    return params;
  }

  /** Whether a function holds a possible source or a handler (binary search over the file's sorted hint offsets). */
  private mayMatter(fn: AstNode, file: FileContext): boolean {
    file.hints ??= fileHints(file);
    return containsOffset(file.hints, fn.start, fn.end);
  }

  /** Function declarations are visible before their statement: register them so calls resolve to them. */
  private hoist(statements: AstNode[], scope: Scope): void {
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

  private summaryOf(fn: AstNode, file: FileContext): Summary {
    const cached = this.summaries.get(fn);
    if (cached) return cached;
    const summary: Summary = { sinks: [], returns: [] };
    if (this.inProgress.has(fn)) return summary;
    this.inProgress.add(fn);
    const params: Taint[] = (fn.params ?? []).map((_: AstNode, index: number) => [newLabel({ kind: 'param', index })]);
    summary.returns = [...this.analyzeFunction(fn, file, file.moduleScope, params, { summary })];
    this.inProgress.delete(fn);
    this.summaries.set(fn, summary);
    return summary;
  }

  private applySummary(summary: Summary, args: Taint[], call: AstNode, ctx: Ctx, target: FileContext, display: string): Taint {
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
      // Where the callee stored the value in what it returns; else wherever the caller's value already sat.
      ...((inner.field ?? outer.field) !== undefined && { field: inner.field ?? outer.field }),
    });
    const argument = (param: number, path: string | undefined): Taint => {
      const taint = args[param] ?? CLEAN;
      return path === undefined ? taint : member(taint, path);
    };
    for (const entry of summary.sinks) {
      for (const outer of argument(entry.param, entry.path)) this.record(entry.site, combine(outer, entry.label), ctx);
    }
    let result: Taint = CLEAN;
    for (const inner of summary.returns) {
      if (inner.origin.kind === 'param') {
        const origin = inner.origin;
        result = union(result, argument(origin.index, origin.path).map((outer) => combine(outer, inner)));
      } else {
        result = union(result, [crossFile && !inner.crossFile ? { ...inner, crossFile: true } : inner]);
      }
    }
    return result;
  }

  // ─── Flows ────────────────────────────────────────────────────────────────────────────────────

  private applyGuards(taint: Taint, ctx: Ctx): Taint {
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

  private record(site: SinkSite, raw: Label, ctx: Ctx): void {
    const [label] = this.applyGuards([raw], ctx);
    if (!label) return;
    const origin = label.origin;
    if (origin.kind === 'param') {
      ctx.summary?.sinks.push({ param: origin.index, ...(origin.path !== undefined && { path: origin.path }), site, label });
      return;
    }
    let kind = site.kind;
    let flowOrigin: TaintFlow['origin'];
    const sanitizers = new Set([...site.sanitizers, ...label.sanitizers]);
    if (origin.kind === 'tool-input') {
      const tool = origin.tool ?? ctx.currentTool;
      flowOrigin = { kind: 'tool-input', ...(tool !== undefined && { tool }), ...(origin.param !== undefined && { param: origin.param }) };
      const parameter = tool !== undefined ? this.toolParams.get(tool)?.parameters.find((p) => p.name === origin.param) : undefined;
      if (parameter?.enum?.length) sanitizers.add('schema-enum');
      if (parameter?.type === 'number' || parameter?.type === 'integer' || parameter?.type === 'boolean') sanitizers.add('numeric');
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
    else existing.sanitizers = existing.sanitizers.filter((name) => flow.sanitizers.includes(name));
  }

  private sinkSite(sink: SinkArgument, callee: Callee, call: AstNode, ctx: Ctx): SinkSite {
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

  // ─── Statements ───────────────────────────────────────────────────────────────────────────────

  private statements(statements: AstNode[], ctx: Ctx): void {
    for (const statement of statements) {
      if (ctx.budget.left <= 0) return;
      this.statement(statement, ctx);
    }
  }

  private statement(node: AstNode, ctx: Ctx): void {
    ctx.budget.left--;
    switch (node.type) {
      case 'ExpressionStatement': {
        this.expr(node.expression, ctx);
        const expression = unwrap(node.expression);
        const call = unwrap(expression?.type === 'AwaitExpression' ? expression.argument : expression);
        if (call?.type === 'CallExpression' && this.isAssertion(call, ctx)) this.detectGuards(call, ctx, 0, true);
        return;
      }
      case 'VariableDeclaration':
        for (const declarator of node.declarations) {
          const init = unwrap(declarator.init);
          if (!init) continue;
          if (isFunction(init) && declarator.id.type === 'Identifier') {
            ctx.scope.functions.set(declarator.id.name, init);
          }
          if (declarator.id.type === 'Identifier' && CONDITION_TYPES.has(init.type)) ctx.scope.conditions.set(declarator.id.name, init);
          const text = declarator.id.type === 'Identifier' && node.kind === 'const' ? staticString(init, ctx.file.index) : undefined;
          if (text !== undefined) ctx.scope.constants.set(declarator.id.name, text);
          this.bind(declarator.id, this.expr(declarator.init, ctx), ctx, true);
        }
        return;
      case 'FunctionDeclaration':
        if (node.id) ctx.scope.functions.set(node.id.name, node);
        this.analyzeFunction(node, ctx.file, ctx.scope, [], { live: ctx.live });
        return;
      case 'ClassDeclaration':
      case 'ClassExpression':
        this.classBody(node, ctx);
        return;
      case 'ReturnStatement':
        if (node.argument) ctx.returns.push(...this.applyGuards(this.expr(node.argument, ctx), ctx));
        return;
      case 'IfStatement': {
        const tool = this.toolCase(node.test, ctx);
        this.expr(node.test, ctx);
        this.detectGuards(node.test, ctx, 0, refuses(node.consequent) || (node.alternate !== null && refuses(node.alternate)));
        if (tool !== undefined) {
          const previous = ctx.currentTool;
          ctx.currentTool = tool;
          this.statement(node.consequent, ctx);
          ctx.currentTool = previous;
        } else this.statement(node.consequent, ctx);
        if (node.alternate) this.statement(node.alternate, ctx);
        return;
      }
      case 'SwitchStatement': {
        const discriminant = this.expr(node.discriminant, ctx);
        const dispatch = discriminant.some((label) => label.origin.kind === 'tool-name');
        for (const switchCase of node.cases) {
          const previous = ctx.currentTool;
          if (dispatch && switchCase.test) {
            const name = staticString(switchCase.test, ctx.file.index);
            if (name !== undefined) ctx.currentTool = name;
          }
          this.statements(switchCase.consequent, ctx);
          ctx.currentTool = previous;
        }
        return;
      }
      case 'BlockStatement':
        this.hoist(node.body, ctx.scope);
        this.statements(node.body, ctx);
        return;
      case 'ForOfStatement':
      case 'ForInStatement': {
        const right = this.expr(node.right, ctx);
        const left = node.left.type === 'VariableDeclaration' ? node.left.declarations[0]?.id : node.left;
        if (left) this.bind(left, node.type === 'ForInStatement' ? CLEAN : right, ctx, true);
        this.statement(node.body, ctx);
        return;
      }
      case 'ForStatement':
        if (node.init?.type === 'VariableDeclaration') this.statement(node.init, ctx);
        else if (node.init) this.expr(node.init, ctx);
        if (node.test) this.expr(node.test, ctx);
        if (node.update) this.expr(node.update, ctx);
        this.statement(node.body, ctx);
        return;
      case 'WhileStatement':
      case 'DoWhileStatement':
        this.expr(node.test, ctx);
        this.statement(node.body, ctx);
        return;
      case 'TryStatement':
        this.statement(node.block, ctx);
        if (node.handler) {
          if (node.handler.param) this.bind(node.handler.param, CLEAN, ctx, true);
          this.statement(node.handler.body, ctx);
        }
        if (node.finalizer) this.statement(node.finalizer, ctx);
        return;
      case 'ThrowStatement':
        this.expr(node.argument, ctx);
        return;
      case 'LabeledStatement':
        this.statement(node.body, ctx);
        return;
      case 'ExportNamedDeclaration':
        if (node.declaration) this.statement(node.declaration, ctx);
        return;
      case 'ExportDefaultDeclaration':
        if (node.declaration.type === 'FunctionDeclaration' || node.declaration.type === 'ClassDeclaration') this.statement(node.declaration, ctx);
        else this.expr(node.declaration, ctx);
        return;
      default:
        return;
    }
  }

  private classBody(node: AstNode, ctx: Ctx): void {
    for (const element of node.body.body) {
      if (element.type === 'MethodDefinition' && element.value) {
        const params = this.callbackParams(propertyName(element.key, element.computed), element.value, ctx.file);
        this.analyzeFunction(element.value, ctx.file, ctx.scope, params, { live: ctx.live });
      } else if (element.type === 'PropertyDefinition' && element.value) {
        this.expr(element.value, ctx);
      } else if (element.type === 'StaticBlock') {
        this.statements(element.body, ctx);
      }
    }
  }

  /** `if (name === 'run_command')` inside a CallTool dispatcher attributes the branch to that tool. */
  private toolCase(test: AstNode, ctx: Ctx): string | undefined {
    const node = unwrap(test);
    if (node?.type !== 'BinaryExpression' || (node.operator !== '===' && node.operator !== '==')) return undefined;
    for (const [side, other] of [[node.left, node.right], [node.right, node.left]] as const) {
      const name = staticString(other, ctx.file.index);
      if (name === undefined) continue;
      const taint = this.peek(side, ctx);
      if (taint.some((label) => label.origin.kind === 'tool-name')) return name;
    }
    return undefined;
  }

  /** Evaluates an expression without recording sinks (for tests of conditions already evaluated). */
  private peek(node: AstNode, ctx: Ctx): Taint {
    const current = unwrap(node);
    if (current?.type === 'Identifier') return ctx.scope.lookup(current.name);
    if (current?.type === 'MemberExpression') return member(this.peek(current.object, ctx), memberName(current));
    // `sql.trim().toLowerCase().startsWith('select')` checks `sql`: these methods change case and spacing, not content.
    const callee = current?.type === 'CallExpression' ? unwrap(current.callee) : undefined;
    if (callee?.type === 'MemberExpression' && NORMALISING_METHODS.has(memberName(callee) ?? '')) return this.peek(callee.object, ctx);
    return CLEAN;
  }

  /**
   * Recognises guards in an `if` condition and remembers them for the origins they check: later sinks in the same
   * function see the sanitizer. Dominance is approximated by source order, which is what the brief asks for.
   */
  private detectGuards(test: AstNode, ctx: Ctx, depth: number, refusal: boolean): void {
    const guard = (taint: Taint, sanitizer: string, at?: AstNode): void => {
      // A check that does not hold matters where it refuses (throws or returns), elsewhere it only picks a branch; it is
      // kept with its place, so the finding can point at it.
      if (sanitizer in WEAK_GUARDS && !refusal) return;
      const parsed = ctx.file.index.parsed;
      const step: FlowStep | undefined =
        at && sanitizer in WEAK_GUARDS ? { file: parsed.file.path, line: lineOf(parsed, at.start), note: `checked by \`${snippetOf(parsed, at)}\``, guard: sanitizer } : undefined;
      for (const label of taint) {
        const key = originKey(label.origin);
        const list = ctx.guards.get(key) ?? [];
        if (list.some((existing) => existing.name === sanitizer)) continue;
        if (!ctx.ownGuards) {
          ctx.guards = new Map(ctx.guards);
          ctx.ownGuards = true;
        }
        ctx.guards.set(key, [...list, step ? { name: sanitizer, step } : { name: sanitizer }]);
      }
    };
    // Membership tests guard only when failing them leaves: `if (!ALLOWED.includes(x)) throw`, `indexOf(x) === -1`.
    const negated = new Set<AstNode>();
    walk(test, (node) => {
      if (isFunction(node)) {
        // `allowed.some((d) => host.endsWith(d))`
        return true;
      }
      if (node.type === 'Identifier' && depth < 2) {
        // `const isAllowed = dirs.some((d) => p.startsWith(d)); if (!isAllowed) throw …`: the check lives in the variable.
        const condition = ctx.scope.findCondition(node.name);
        if (condition) this.detectGuards(condition, ctx, depth + 1, refusal);
        return false;
      }
      if (node.type === 'UnaryExpression' && node.operator === '!') {
        const argument = unwrap(node.argument);
        if (argument) negated.add(argument);
        return true;
      }
      if (node.type === 'BinaryExpression' && /^(===?|<)$/.test(node.operator)) {
        const value = staticValue(node.right, ctx.file.index);
        const left = unwrap(node.left);
        if (left && (value === -1 || value === 0 || value === false)) negated.add(left);
      }
      if (node.type === 'BinaryExpression' && /^[!=]==?$/.test(node.operator)) {
        for (const [side, other] of [[node.left, node.right], [node.right, node.left]] as const) {
          const text = staticString(other, ctx.file.index);
          if (text === undefined) continue;
          // `url.protocol !== 'https:'`: the scheme is pinned, so the opener gets a web address, not `file:` or a handler.
          const scheme = /^https?:$/.test(text) && unwrap(side)?.type === 'MemberExpression' && memberName(unwrap(side) as AstNode) === 'protocol';
          if (scheme) guard(this.peek((unwrap(side) as AstNode).object, ctx), 'url-scheme');
          else if (isHostish(side, ctx)) guard(this.peek(side, ctx), 'url-allowlist');
        }
        return true;
      }
      if (node.type !== 'CallExpression') return true;
      const callee = unwrap(node.callee);
      const args: AstNode[] = node.arguments;
      if (callee?.type === 'MemberExpression') {
        const method = memberName(callee);
        const receiver = this.peek(callee.object, ctx);
        if (method === 'startsWith' && receiver.length) {
          const prefix = staticString(args[0], ctx.file.index);
          if (prefix === undefined || prefix.startsWith('..') || /^([a-z]:)?[\\/].*[\\/]$/i.test(prefix)) {
            // `rel.startsWith('..')` after path.relative, `p.startsWith(root + sep)`, `p.startsWith('/srv/files/')`; a
            // root without its separator also admits `/root-other` (CVE-2025-53110).
            const sound = prefix !== undefined || endsWithSeparator(args[0], ctx.file.index);
            guard(receiver, !sound ? 'prefix-without-separator' : receiver.some((label) => label.realpath) ? 'realpath-containment' : 'path-containment', node);
          } else if (SQL_STATEMENT_START.test(prefix)) {
            // `sql.trim().toLowerCase().startsWith('select')`: the first word, not what the whole text does.
            guard(receiver, 'sql-keyword-prefix', node);
          } else if (prefix === '-' || !prefix.startsWith('-')) {
            // Checked against `-` or against a fixed start (`https://`, `/`): it cannot be read as an option.
            guard(receiver, 'no-leading-dash');
          }
          return true;
        }
        if (method && ['includes', 'has', 'test', 'some', 'indexOf', 'find'].includes(method) && !receiver.length && negated.has(node)) {
          for (const arg of args) {
            const argTaint = isFunction(unwrap(arg)) ? this.callbackSubjects(unwrap(arg) as AstNode, ctx) : this.peek(arg, ctx);
            if (!argTaint.length) continue;
            // A list of hosts/origins, or a pattern that pins the scheme and host, makes it a URL allowlist.
            const pattern = unwrap(callee.object)?.regex?.pattern as string | undefined;
            const urlList = isHostish(arg, ctx) || isHostish(callee.object, ctx) || (pattern !== undefined && /:\\?\/\\?\//.test(pattern));
            guard(argTaint, urlList ? 'url-allowlist' : 'allowlist');
          }
          return true;
        }
      }
      const resolved = resolveCallee(node.callee, ctx.file.index);
      if (resolved.module === 'validator' && /^is[A-Z]/.test(resolved.name)) {
        for (const arg of args) guard(this.peek(arg, ctx), 'validator');
        return true;
      }
      const target = this.resolveCall(node.callee, ctx);
      const checks = target ? this.helperChecks.of(target.fn, target.file.index) : undefined;
      if (checks) {
        for (const arg of args) {
          const argTaint = this.peek(arg, ctx);
          if (checks.containment) {
            guard(argTaint, checks.containment === 'weak' ? 'prefix-without-separator' : argTaint.some((label) => label.realpath) ? 'realpath-containment' : 'path-containment', node);
          }
          if (checks.leadingDash) guard(argTaint, 'no-leading-dash');
        }
      }
      return true;
    });
  }

  /** `assert(p.startsWith(root))` or `assertInside(p)` (a helper that checks containment and throws) guard what follows. */
  private isAssertion(call: AstNode, ctx: Ctx): boolean {
    const callee = unwrap(call.callee);
    const name = callee?.type === 'Identifier' ? callee.name : callee?.type === 'MemberExpression' ? memberName(callee) : undefined;
    if (name && /^(assert|invariant|ok$|strictEqual$)/.test(name)) return true;
    const target = this.resolveCall(call.callee, ctx);
    return target !== undefined && this.helperChecks.of(target.fn, target.file.index)?.throws === true;
  }

  /** Tainted values a guard callback compares against (`list.some((d) => url.hostname.endsWith(d))`). */
  private callbackSubjects(fn: AstNode, ctx: Ctx): Taint {
    let taint: Taint = CLEAN;
    walk(fn.body, (node) => {
      if (node.type === 'Identifier' || node.type === 'MemberExpression') {
        const found = this.peek(node, ctx);
        if (found.length) taint = union(taint, found);
        return false;
      }
      return true;
    });
    return taint;
  }

  /** Whether a helper's body compares paths for containment (`startsWith(root)`, `path.relative(…)`). */
  // ─── Bindings ─────────────────────────────────────────────────────────────────────────────────

  private bind(pattern: AstNode, taint: Taint, ctx: Ctx, note: boolean): void {
    switch (pattern.type) {
      case 'Identifier': {
        const stepped = note && taint.length
          ? addStep(taint, { file: ctx.file.index.parsed.file.path, line: lineOf(ctx.file.index.parsed, pattern.start), note: `assigned to ${pattern.name}` })
          : taint;
        ctx.scope.declare(pattern.name, stepped);
        return;
      }
      case 'ObjectPattern':
        for (const property of pattern.properties) {
          if (property.type === 'RestElement') this.bind(property.argument, taint, ctx, note);
          else this.bind(property.value, member(taint, propertyName(property.key, property.computed)), ctx, note);
        }
        return;
      case 'ArrayPattern':
        for (const element of pattern.elements) if (element) this.bind(element.type === 'RestElement' ? element.argument : element, taint, ctx, note);
        return;
      case 'AssignmentPattern':
        this.bind(pattern.left, union(taint, this.expr(pattern.right, ctx)), ctx, note);
        return;
      case 'RestElement':
        this.bind(pattern.argument, taint, ctx, note);
        return;
      case 'TSParameterProperty':
        this.bind(pattern.parameter, taint, ctx, note);
        return;
      case 'MemberExpression': {
        // `options.body = data` taints the object it is stored in.
        const base = rootIdentifier(pattern);
        if (base && taint.length) ctx.scope.assign(base, taint);
        return;
      }
      default:
        return;
    }
  }

  // ─── Expressions ──────────────────────────────────────────────────────────────────────────────

  private expr(node: AstNode | null | undefined, ctx: Ctx): Taint {
    if (!node || ctx.budget.left <= 0) return CLEAN;
    ctx.budget.left--;
    switch (node.type) {
      case 'Identifier':
        return ctx.scope.lookup(node.name);
      case 'Literal':
        if (typeof node.value === 'string' && node.value.length < 300 && SENSITIVE_PATH.test(node.value)) {
          return [newLabel({ kind: 'sensitive-path', detail: node.value })];
        }
        return CLEAN;
      case 'TemplateLiteral': {
        let taint: Taint = CLEAN;
        let leading: Taint = CLEAN;
        node.expressions.forEach((expression: AstNode, position: number) => {
          const part = this.expr(expression, ctx);
          if (position === 0) leading = part;
          // Text or another value before it: the string cannot start with what this part holds.
          taint = union(taint, position > 0 || node.quasis[0]?.value.cooked ? prefixed(part) : part);
        });
        const text = node.quasis.map((quasi: AstNode) => quasi.value.cooked ?? '').join('*');
        if (node.expressions.length && text.length < 300 && SENSITIVE_PATH.test(text)) {
          taint = union(taint, [newLabel({ kind: 'sensitive-path', detail: text.replace(/^\*/, '~') })]);
        }
        if (!taint.length) return taint;
        const hasText = node.quasis.some((quasi: AstNode) => quasi.value.cooked) || node.expressions.length > 1;
        const mixed = this.mixed(taint, node, hasText, ctx);
        // `${API_URL}/repos/${x}`, `${this.baseUrl}/v2${path}`: when the expression before the first `/` or `?` is not
        // the model's (a constant, the operator's environment, a client's base URL), the model fills the path, not
        // the host. `${proto}//${host}` is excluded: there the host comes after.
        const configuredBase =
          node.quasis[0]?.value.cooked === '' &&
          /^(\/(?!\/)|\?)/.test(node.quasis[1]?.value.cooked ?? '') &&
          leading.every((label) => label.origin.kind === 'config' || label.hostFixed);
        return configuredBase ? fixHost(mixed) : mixed;
      }
      case 'BinaryExpression': {
        const left = this.expr(node.left, ctx);
        const right = this.expr(node.right, ctx);
        if (node.operator !== '+') return CLEAN;
        const combined = this.mixed(union(left, prefixed(right)), node, true, ctx);
        // `url + query` where `url` already starts with a fixed (or operator-configured) host: what follows cannot change it.
        return left.length > 0 && left.every((label) => label.hostFixed || label.origin.kind === 'config') ? fixHost(combined) : combined;
      }
      case 'LogicalExpression':
        return union(this.expr(node.left, ctx), this.expr(node.right, ctx));
      case 'ConditionalExpression':
        this.expr(node.test, ctx);
        return union(this.expr(node.consequent, ctx), this.expr(node.alternate, ctx));
      case 'AwaitExpression':
      case 'SpreadElement':
      case 'TSAsExpression':
      case 'TSSatisfiesExpression':
      case 'TSNonNullExpression':
      case 'TSTypeAssertion':
      case 'ParenthesizedExpression':
      case 'ChainExpression':
        return this.expr(node.expression ?? node.argument, ctx);
      case 'YieldExpression':
        return this.expr(node.argument, ctx);
      case 'UnaryExpression':
        this.expr(node.argument, ctx);
        return CLEAN;
      case 'UpdateExpression':
        return CLEAN;
      case 'SequenceExpression': {
        let last: Taint = CLEAN;
        for (const expression of node.expressions) last = this.expr(expression, ctx);
        return last;
      }
      case 'ArrayExpression':
        return this.listElements(node.elements, ctx);
      case 'ObjectExpression': {
        let taint: Taint = CLEAN;
        for (const property of node.properties) {
          if (property.type === 'SpreadElement') taint = union(taint, this.expr(property.argument, ctx));
          else {
            if (property.computed) this.expr(property.key, ctx);
            const value = unwrap(property.value);
            if (isFunction(value)) {
              const params = property.computed ? [] : this.callbackParams(propertyName(property.key, false), value as AstNode, ctx.file);
              this.analyzeFunction(value as AstNode, ctx.file, ctx.scope, params, this.inherit(ctx));
            }
            else {
              const key = property.computed ? undefined : propertyName(property.key, false);
              const stored = this.expr(property.value, ctx);
              taint = union(taint, key === undefined ? stored : mapTaint(stored, (label) => ({ ...label, field: key })));
            }
          }
        }
        return taint;
      }
      case 'MemberExpression': {
        const object = unwrap(node.object);
        if (object?.type === 'Identifier' && object.name === 'process' && memberName(node) === 'env') {
          return [newLabel({ kind: 'env', detail: 'process.env' }, [this.sourceStep(ctx.file, node, 'reads process.env', 'environment')])];
        }
        if (object?.type === 'MemberExpression' && unwrap(object.object)?.name === 'process' && memberName(object) === 'env') {
          // One named variable (an API key sent to its own API) is normal; the whole environment is not.
          return CONFIG;
        }
        const taint = this.expr(node.object, ctx);
        if (node.computed) this.expr(node.property, ctx);
        return member(taint, node.computed ? staticString(node.property, ctx.file.index) : memberName(node));
      }
      case 'AssignmentExpression': {
        let value = this.expr(node.right, ctx);
        const left = node.left;
        if (left.type === 'Identifier' && node.operator === '+=' && value.length > 0) {
          const previous = ctx.scope.lookup(left.name);
          value = previous.length > 0 && previous.every((label) => label.hostFixed) ? fixHost(embed(value)) : embed(value);
        }
        if (left.type === 'Identifier') {
          ctx.scope.assign(left.name, value);
          const init = unwrap(node.right);
          if (isFunction(init)) ctx.scope.functions.set(left.name, init as AstNode);
        } else this.bind(left, value, ctx, true);
        return value;
      }
      case 'ArrowFunctionExpression':
      case 'FunctionExpression':
        this.analyzeFunction(node, ctx.file, ctx.scope, [], this.inherit(ctx));
        return CLEAN;
      case 'ClassExpression':
        this.classBody(node, ctx);
        return CLEAN;
      case 'CallExpression':
      case 'NewExpression':
        return this.call(node, ctx);
      case 'TaggedTemplateExpression':
        return this.taggedTemplate(node, ctx);
      case 'ImportExpression': {
        const taint = this.expr(node.source, ctx);
        const callee: Callee = { name: 'import', display: 'import' };
        this.sinkFlows([{ kind: 'code', node: node.source }], new Map([[node.source, taint]]), callee, node, ctx);
        return CLEAN;
      }
      default:
        return CLEAN;
    }
  }

  /**
   * The taint of list elements (an array literal, or what `push` adds), each marked with what its place proves against
   * option injection should the list become an argv (after `--`, after an option that takes it as its value, or built
   * with a constant start): see catalog.ts `argvElementGuard`.
   */
  private listElements(elements: ReadonlyArray<AstNode | null>, ctx: Ctx, evaluated?: readonly Taint[]): Taint {
    let taint: Taint = CLEAN;
    const previous: Array<string | undefined> = [];
    for (const [position, element] of elements.entries()) {
      if (!element) continue;
      const value = element.type === 'SpreadElement' ? element.argument : element;
      const text = staticString(value, ctx.file.index);
      let part = evaluated?.[position] ?? this.expr(element, ctx);
      if (part.length) {
        const guard = argvElementGuard(previous, text === undefined ? staticPrefix(value, ctx.file.index) : text);
        if (guard) part = sanitize(part, guard);
        taint = union(taint, part);
      }
      previous.push(element.type === 'SpreadElement' ? undefined : text);
    }
    return taint;
  }

  private localConstant(node: AstNode | undefined, ctx: Ctx): string | undefined {
    const current = unwrap(node);
    return current?.type === 'Identifier' ? ctx.scope.findConstant(current.name) : undefined;
  }

  private inherit(ctx: Ctx): Partial<Ctx> {
    return {
      guards: ctx.guards,
      budget: ctx.budget,
      live: ctx.live,
      ...(ctx.currentTool !== undefined && { currentTool: ctx.currentTool }),
      ...(ctx.summary && { summary: ctx.summary }),
    };
  }

  /** A value mixed into a string: embedded if there is other text, and host-fixed when a constant `scheme://host/` precedes it. */
  private mixed(taint: Taint, node: AstNode, hasText: boolean, ctx: Ctx): Taint {
    let out = hasText ? embed(taint) : taint;
    if (hasFixedHost(staticPrefix(node, ctx.file.index))) out = fixHost(out);
    return out;
  }

  private taggedTemplate(node: AstNode, ctx: Ctx): Taint {
    let taint: Taint = CLEAN;
    for (const expression of node.quasi.expressions) taint = union(taint, this.expr(expression, ctx));
    const callee = resolveCallee(node.tag, ctx.file.index);
    if (callee.name === '$' && (callee.module === 'zx' || callee.module === 'execa')) {
      // zx quotes every interpolation; execa's $ splits the template into argv without a shell.
      const site: SinkSite = {
        kind: 'command',
        callee: callee.display,
        location: locationOf(ctx.file.index.parsed, node),
        snippet: snippetOf(ctx.file.index.parsed, node),
        shell: callee.module === 'zx',
        isUrl: false,
        sanitizers: [callee.module === 'zx' ? 'shell-escape' : 'execFile-argv'],
      };
      for (const label of taint) this.record(site, label, ctx);
      return CLEAN;
    }
    if (/(^|\.)(sql|raw|queryRaw|executeRaw|\$queryRaw|\$executeRaw)$/i.test(callee.display) && !/unsafe/i.test(callee.display)) {
      return sanitize(taint, 'parameterised-sql');
    }
    return embed(taint);
  }

  // ─── Calls ────────────────────────────────────────────────────────────────────────────────────

  private call(node: AstNode, ctx: Ctx): Taint {
    const index = ctx.file.index;
    const calleeNode = unwrap(node.callee);
    const args: AstNode[] = node.arguments;
    if (!calleeNode) return CLEAN;
    // IIFE
    if (isFunction(calleeNode)) {
      return this.analyzeFunction(calleeNode, ctx.file, ctx.scope, args.map((arg) => this.expr(arg, ctx)), this.inherit(ctx));
    }
    const callee = resolveCallee(calleeNode, index);
    const method = calleeNode.type === 'MemberExpression' ? memberName(calleeNode) : undefined;
    const isModuleCall = callee.module !== undefined && !callee.module.startsWith('global:');
    const receiver = calleeNode.type === 'MemberExpression' && !isModuleCall ? this.expr(calleeNode.object, ctx) : CLEAN;

    const argTaints = new Map<AstNode, Taint>();
    const positional: Taint[] = [];
    const callbacks: Array<[AstNode, number]> = [];
    const routes = mayRegisterRoutes(callee, calleeNode) ? this.routes(callee, node, ctx) : NO_ROUTES;
    args.forEach((arg, position) => {
      const value = unwrap(arg);
      if (routes.has(value as AstNode)) {
        positional.push(CLEAN);
        return;
      }
      if (isFunction(value)) {
        callbacks.push([value as AstNode, position]);
        positional.push(CLEAN);
        return;
      }
      const taint = this.expr(arg, ctx);
      argTaints.set(arg, taint);
      positional.push(taint);
    });

    let result = this.callbackResults(callbacks, method, receiver, ctx);
    if ((method === 'push' || method === 'unshift') && calleeNode.type === 'MemberExpression') {
      // `args.push('-n', ns)`: the list now holds what was added (with what its place proves, as in a literal).
      const root = rootIdentifier(calleeNode.object);
      const added = this.listElements(args, ctx, positional);
      if (root && added.length) ctx.scope.assign(root, addStep(added, { file: ctx.file.index.parsed.file.path, line: lineOf(ctx.file.index.parsed, node.start), note: `added to ${root}` }));
    }

    const sinks = sinkArguments(callee, node, index, (arg) => staticString(arg, index) ?? this.localConstant(arg, ctx));
    if (sinks.length) this.sinkFlows(sinks, argTaints, callee, node, ctx);
    result = union(result, this.remoteData(callee, method, sinks, argTaints, node, ctx));
    // `c.req.query('x')`, `await request.json()`, `req.get('host')`: a request's data methods return the client's input.
    if (method && holdsRequest(receiver)) return union(result, member(receiver, method));

    const known = this.knownCall(callee, method, node, args, positional, receiver, ctx);
    if (known !== undefined) return union(result, known);

    const target = this.resolveCall(calleeNode, ctx);
    if (target) {
      const inline = positional.some((taint) => taint.some((label) => label.origin.kind === 'tool-name' || label.origin.kind === 'request'));
      if (inline && !this.inProgress.has(target.fn)) {
        // A dispatcher handing the tool name to a helper: analyse the helper in the caller's context so its switch binds tools.
        this.inProgress.add(target.fn);
        const returned = this.analyzeFunction(target.fn, target.file, target.file.moduleScope, positional, { ...this.inherit(ctx), guards: new Map() });
        this.inProgress.delete(target.fn);
        return union(result, returned);
      }
      const summary = this.summaryOf(target.fn, target.file);
      return union(result, this.applySummary(summary, positional, node, ctx, target.file, callee.display));
    }
    // `adapter.all(sql)` where a few classes of the package (one per database) define `all`: any of them may run.
    const implementations = method && calleeNode.type === 'MemberExpression' && !isModuleCall ? this.resolver.implementations(method) : [];
    for (const implementation of implementations) {
      result = union(result, this.applySummary(this.summaryOf(implementation.fn, implementation.file), positional, node, ctx, implementation.file, callee.display));
    }
    if (implementations.length > 0) return result;
    if (node.type === 'NewExpression') {
      const name = callee.name;
      if (name === 'URL') return args.length > 1 ? embed(positional[0] ?? CLEAN) : (positional[0] ?? CLEAN);
      if (name === 'String' || name === 'Array' || name === 'Set' || name === 'Map' || name === 'URLSearchParams') return positional.reduce(union, CLEAN);
      return result;
    }
    if (method && receiver.length && !NON_PROPAGATING_METHODS.has(method)) {
      if ((method === 'replace' || method === 'replaceAll') && removesAllButSafeCharacters(args[0])) {
        return union(result, sanitize(receiver, 'character-allowlist'));
      }
      result = union(result, receiver);
      if (method === 'concat' || method === 'replace' || method === 'replaceAll' || method === 'join' || method === 'padStart' || method === 'padEnd') {
        result = embed(union(result, positional.reduce(union, CLEAN)));
      }
    }
    // A function of another package that the catalog does not know: assume its result derives from its arguments
    // (`parse(query.args)`, `findExecutable(command)`), unless its name says it hashes, escapes or checks them.
    if (isModuleCall && sinks.length === 0 && !OPAQUE_FUNCTION_NAME.test(callee.name)) result = union(result, positional.reduce(union, CLEAN));
    return result;
  }

  /**
   * Analyses the request handlers a call registers (`app.get('/x', fn)`, `createServer(fn)`) with their request
   * parameter as an `http-request` source, and returns the inline ones so the caller does not analyse them again.
   */
  private routes(callee: Callee, call: AstNode, ctx: Ctx): Set<AstNode> {
    const files = new Map<AstNode, FileContext>();
    const handlers = routeHandlers(callee, call, ctx.file.index, (arg) => {
      const value = unwrap(arg);
      if (isFunction(value)) {
        files.set(value as AstNode, ctx.file);
        return value;
      }
      const target = value?.type === 'Identifier' || value?.type === 'MemberExpression' ? this.resolveCall(value, ctx) : undefined;
      if (target) files.set(target.fn, target.file);
      return target?.fn;
    });
    const inline = new Set<AstNode>();
    for (const handler of handlers) {
      const file = files.get(handler.fn) ?? ctx.file;
      const param = handler.fn.params?.[handler.requestParam] as AstNode | undefined;
      if (!param) continue;
      const params: Taint[] = [];
      params[handler.requestParam] = this.requestTaint(param, handler, file);
      if (file === ctx.file && handler.fn.start >= call.start && handler.fn.end <= call.end) {
        inline.add(handler.fn);
        this.analyzeFunction(handler.fn, file, ctx.scope, params, this.inherit(ctx));
      } else if (!this.inProgress.has(handler.fn)) {
        this.inProgress.add(handler.fn);
        this.analyzeFunction(handler.fn, file, file.moduleScope, params, { ...this.inherit(ctx), guards: new Map() });
        this.inProgress.delete(handler.fn);
      }
    }
    return inline;
  }

  /**
   * What a server the package talks to answered, when whoever runs that server is not the package's choice: an MCP
   * client's results, OAuth metadata, and the response of a request whose URL an outsider chose (tool input, a
   * request, another server's answer). The vendor API a tool is built for, at a constant or configured address, is
   * not an outsider.
   */
  private remoteData(callee: Callee, method: string | undefined, sinks: SinkArgument[], argTaints: Map<AstNode, Taint>, call: AstNode, ctx: Ctx): Taint {
    const request = sinks.find((sink) => sink.isUrl);
    const chosenUrl = request !== undefined && !hasFixedHost(request.target) && (argTaints.get(request.node) ?? this.peek(request.node, ctx)).some((label) => OUTSIDER.has(label.origin.kind));
    const remote = returnsRemoteData(callee, method) || chosenUrl;
    if (!remote) return CLEAN;
    const detail = `the response of ${callee.display}()`;
    return [newLabel({ kind: 'remote-response', detail }, [this.sourceStep(ctx.file, call, detail, 'remote-response')])];
  }

  private callbackResults(callbacks: Array<[AstNode, number]>, method: string | undefined, receiver: Taint, ctx: Ctx): Taint {
    let result: Taint = CLEAN;
    for (const [fn, position] of callbacks) {
      const elementParam = method && ARRAY_CALLBACKS.has(method) ? receiver : CLEAN;
      const params = method === 'reduce' ? [CLEAN, receiver] : position === 0 || method === 'then' ? [elementParam] : [];
      const returned = this.analyzeFunction(fn, ctx.file, ctx.scope, params, this.inherit(ctx));
      if (method && RESULT_FROM_CALLBACK.has(method)) result = union(result, returned);
    }
    if (method && ['map', 'filter', 'flatMap', 'find', 'slice', 'sort'].includes(method)) result = union(result, receiver);
    return result;
  }

  private sinkFlows(sinks: SinkArgument[], argTaints: Map<AstNode, Taint>, callee: Callee, call: AstNode, ctx: Ctx): void {
    for (const sink of sinks) {
      const taint = argTaints.get(sink.node) ?? this.expr(sink.node, ctx);
      if (!taint.length) continue;
      const site = this.sinkSite(sink, callee, call, ctx);
      for (const label of taint) this.record(site, label, ctx);
    }
  }

  /** Calls whose effect on taint is known: sources, sanitizers and propagators. Undefined for anything else. */
  private knownCall(
    callee: Callee,
    method: string | undefined,
    node: AstNode,
    args: AstNode[],
    positional: Taint[],
    receiver: Taint,
    ctx: Ctx,
  ): Taint | undefined {
    const index = ctx.file.index;
    const all = (): Taint => positional.reduce(union, CLEAN);
    const { module, name } = callee;
    // Decoded constants: Buffer.from('…', 'base64'), atob('…'), String.fromCharCode(104, 105)
    if (module === 'global:Buffer' && name === 'from') {
      const encoding = staticString(args[1], index);
      const text = staticString(args[0], index);
      if (text !== undefined && encoding !== undefined && DECODE_ENCODINGS.has(encoding)) {
        return [newLabel({ kind: 'decoded-constant', detail: Buffer.from(text, encoding as BufferEncoding).toString('utf8') }, [this.sourceStep(ctx.file, node, `decodes a ${encoding} literal`, 'decoded-constant')])];
      }
      const bytes = staticValue(args[0], index);
      if (Array.isArray(bytes) && bytes.length > 3 && bytes.every((b) => typeof b === 'number')) {
        return [newLabel({ kind: 'decoded-constant', detail: Buffer.from(bytes as number[]).toString('utf8') }, [this.sourceStep(ctx.file, node, 'decodes a byte array', 'decoded-constant')])];
      }
      return all();
    }
    if (!callee.receiver && name === 'atob' && module === undefined) {
      const text = staticString(args[0], index);
      if (text !== undefined) return [newLabel({ kind: 'decoded-constant', detail: Buffer.from(text, 'base64').toString('utf8') }, [this.sourceStep(ctx.file, node, 'decodes a base64 literal', 'decoded-constant')])];
      return all();
    }
    if (module === 'global:String' && name === 'fromCharCode') {
      const codes: number[] = [];
      for (const arg of args) {
        const value = staticValue(arg.type === 'SpreadElement' ? arg.argument : arg, index);
        if (typeof value === 'number') codes.push(value);
        else if (Array.isArray(value) && value.every((v) => typeof v === 'number')) codes.push(...(value as number[]));
        else return all();
      }
      return codes.length > 3 ? [newLabel({ kind: 'decoded-constant', detail: String.fromCharCode(...codes) }, [this.sourceStep(ctx.file, node, 'decodes char codes', 'decoded-constant')])] : CLEAN;
    }
    if ((module === 'os' && name === 'homedir') || (module === 'global:os' && name === 'homedir')) return CLEAN;
    if (module === 'path' || module === 'global:path' || module === 'upath') {
      const combined = all();
      const sensitive = this.sensitivePath(node, ctx);
      if (sensitive) return [newLabel({ kind: 'sensitive-path', detail: sensitive })];
      if (name === 'basename') return sanitize(combined, 'basename');
      if (PATH_JOINERS.has(name) && args.length > 1) return embed(combined);
      return combined;
    }
    if (module === 'fs' && /^realpath/.test(name)) return mapTaint(positional[0] ?? CLEAN, (label) => ({ ...label, realpath: true }));
    if (module === 'fs' && /^(readFile|readFileSync|createReadStream|readdir|readdirSync|readJson|readJSON)/.test(name)) {
      const sensitive = (positional[0] ?? CLEAN).find((label) => label.origin.kind === 'sensitive-path');
      if (sensitive && sensitive.origin.kind === 'sensitive-path') {
        const detail = sensitive.origin.detail;
        return [newLabel({ kind: 'sensitive-file', detail }, [this.sourceStep(ctx.file, node, `reads ${detail}`, 'file')])];
      }
      return CLEAN;
    }
    if (module === 'shell-quote' && name === 'quote') return sanitize(all(), 'shell-escape');
    if ((module === 'shell-escape' || module === 'shell-escape-tag') && (name === 'default' || name === 'escape')) return sanitize(all(), 'shell-escape');
    if (module === 'validator' && /^(to|escape)/.test(name)) return sanitize(all(), 'validator');
    if (!callee.receiver && module === undefined) {
      if (NUMERIC.has(name)) return sanitize(all(), 'numeric');
      if (name === 'Boolean') return CLEAN;
      if (VALUE_FUNCTIONS.has(name)) return all();
      if (name === 'require') return CLEAN;
    }
    if (module === 'global:Math' || (module === 'global:Number' && name !== 'toString')) return sanitize(all(), 'numeric');
    if (module && GLOBAL_PROPAGATORS[module]?.has(name)) {
      return module === 'global:JSON' && name === 'stringify' ? embed(all()) : all();
    }
    if (method === 'parse' || method === 'parseAsync') {
      // zod / valibot schema validation returns the input; a schema with enum/pattern was already seen on the tool.
      return union(positional[0] ?? CLEAN, receiver);
    }
    if (method === 'safeParse' || method === 'safeParseAsync') {
      // `{ success, data }`: the input sits under `data`, so `parsed.data.path` is the parameter `path`.
      return mapTaint(union(positional[0] ?? CLEAN, receiver), (label) => (label.field === undefined ? { ...label, field: 'data' } : label));
    }
    if (name === 'promisify') return CLEAN;
    return undefined;
  }

  /** A path built from literals and the home directory that names a credential store, e.g. `~/.ssh/id_rsa`. */
  private sensitivePath(node: AstNode, ctx: Ctx): string | undefined {
    const parts = (node.arguments as AstNode[]).map((arg) => this.pathPart(unwrap(arg), ctx));
    const joined = parts.join('/').replace(/\/+/g, '/');
    return SENSITIVE_PATH.test(joined) ? joined : undefined;
  }

  /** One segment of a path for display and matching: literal text, `~` for the home directory, `*` for anything else. */
  private pathPart(value: AstNode | undefined, ctx: Ctx): string {
    if (!value) return '*';
    const text = staticString(value, ctx.file.index);
    if (text !== undefined) return text;
    if (value.type === 'CallExpression' && resolveCallee(value.callee, ctx.file.index).name === 'homedir') return '~';
    if (value.type === 'MemberExpression' && isHomeVariable(value)) return '~';
    const label = this.peek(value, ctx).find((l) => l.origin.kind === 'sensitive-path');
    return label?.origin.kind === 'sensitive-path' ? label.origin.detail : '*';
  }
}

function fileHints(file: FileContext): number[] {
  const hints = offsetsOf(file.index.parsed.text, SOURCE_HINTS);
  for (const fn of exportedHandlersOf(file).keys()) hints.push(fn.start);
  const path = file.index.parsed.file.path;
  for (const handler of file.handlers.values()) if (handler.tool.handlerId?.startsWith(`${path}:`)) hints.push(handler.node.start);
  for (const dispatcher of file.dispatchers) hints.push(dispatcher.start);
  return hints.sort((a, b) => a - b);
}

function exportedHandlersOf(file: FileContext): Map<AstNode, RequestHandler> {
  file.exportedHandlers ??= new Map(exportedRequestHandlers(file.index).map((handler) => [handler.fn, handler]));
  return file.exportedHandlers;
}

/** `process.env.HOME` / `process.env.USERPROFILE`. */
function isHomeVariable(node: AstNode): boolean {
  const object = unwrap(node.object);
  const name = memberName(node);
  return (name === 'HOME' || name === 'USERPROFILE') && object?.type === 'MemberExpression' && memberName(object) === 'env' && unwrap(object.object)?.name === 'process';
}

function rootIdentifier(node: AstNode): string | undefined {
  let current = unwrap(node);
  while (current?.type === 'MemberExpression') current = unwrap(current.object);
  return current?.type === 'Identifier' ? current.name : undefined;
}

function isHostish(node: AstNode, ctx: Ctx): boolean {
  const text = ctx.file.index.parsed.text.slice(node.start, node.end);
  return /host|origin|domain|url/i.test(text);
}

