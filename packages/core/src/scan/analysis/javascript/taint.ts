// The JS/TS taint pass: abstract interpretation of function bodies in source order, tracking which values derive from
// tool inputs (or other origins) through variables, expressions and calls, and recording a TaintFlow whenever such a
// value reaches a sink argument. Helper functions are summarised once (which parameters reach which sinks and the
// return value) and the summary is reused at every call site. This top layer handles calls: sinks, sources and
// sanitizers of libraries, route registrations, and calls into the package's own functions; the layers below are
// functions.ts, guard-detection.ts, statements.ts and expressions.ts.
import type { Capability, TaintFlow } from '../../model.js';
import { sinkCapabilities, URL_PARAMS } from '../capabilities.js';
import type { AstNode } from './ast.js';
import { isFunction, lineOf, locationOf, memberName, unwrap } from './ast.js';
import type { Callee } from './callee.js';
import { resolveCallee } from './callee.js';
import { staticString } from './file-index.js';
import { shownDecoded } from '../decode.js';
import { decodeStatically, DECODING_CALLS, xorOfConstants } from './decoder.js';
import { removesAllButSafeCharacters, removesSeparators } from './guards.js';
import { mayRegisterRoutes, returnsRemoteData, routeHandlers } from './http.js';
import type { Taint } from './labels.js';
import { addStep, asSegment, CLEAN, embed, holdsRequest, isReceiver, mapTaint, member, newLabel, sanitize, union, withoutSecrets } from './labels.js';
import type { FileContext } from './scope.js';
import type { SinkArgument } from './sinks.js';
import { escapesRegexSyntax, instanceSinks, sinkArguments, staticPrefix } from './sinks.js';
import { FUNCTION_BUDGET, hasFixedHost, rootIdentifier, SENSITIVE_PATH, type Ctx } from './engine-context.js';
import { ExpressionAnalysis } from './expressions.js';

export type { TaintOptions } from './engine-context.js';

const ARRAY_CALLBACKS = new Set(['map', 'forEach', 'filter', 'flatMap', 'some', 'every', 'find', 'findIndex', 'findLast', 'then', 'sort']);
const RESULT_FROM_CALLBACK = new Set(['map', 'flatMap', 'then']);
const NON_PROPAGATING_METHODS = new Set([
  'includes', 'has', 'startsWith', 'endsWith', 'test', 'indexOf', 'lastIndexOf', 'some', 'every', 'findIndex', 'localeCompare',
  'hasOwnProperty', 'isFile', 'isDirectory', 'push', 'set', 'add', 'delete', 'write', 'end', 'emit', 'log', 'info', 'warn',
  'error', 'debug', 'send', 'json', 'status',
]);
/** Methods that keep a part of a string: what they return of a secret is a masked form of it. */
const TRUNCATING_METHODS = new Set(['slice', 'substring', 'substr', 'charAt', 'at']);
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

export class TaintEngine extends ExpressionAnalysis {
  /** `between` runs before each file (the scan's yielder: cancellation and progress get a turn). */
  async run(between: () => Promise<void> = async () => {}): Promise<TaintFlow[]> {
    for (const file of this.options.files.values()) {
      await between();
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

  // ─── Calls ────────────────────────────────────────────────────────────────────────────────────

  protected call(node: AstNode, ctx: Ctx): Taint {
    const index = ctx.file.index;
    const calleeNode = unwrap(node.callee);
    const args: AstNode[] = node.arguments;
    if (!calleeNode) return CLEAN;
    // IIFE
    if (isFunction(calleeNode)) {
      return this.analyzeFunction(calleeNode, ctx.file, ctx.scope, args.map((arg) => this.expr(arg, ctx)), this.inherit(ctx));
    }
    // `new Function(code)()`, `factory(x)(y)`: the call that yields the callee runs first, with its own sinks.
    if (calleeNode.type === 'NewExpression' || calleeNode.type === 'CallExpression') this.expr(calleeNode, ctx);
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
    // `new Job(host)`: the instance holds what its constructor keeps in its fields, for its methods' `this.target`.
    if (node.type === 'NewExpression') result = union(result, this.instanceContent(calleeNode, positional, node, ctx));
    if ((method === 'push' || method === 'unshift') && calleeNode.type === 'MemberExpression') {
      // `args.push('-n', ns)`: the list now holds what was added (with what its place proves, as in a literal). Pushed
      // words follow the words the list was declared with, others not known here, and a `--` that has ended its
      // options (see `noteList`); unshifted ones start the list, which then no longer starts as declared.
      const root = rootIdentifier(calleeNode.object);
      const list = unwrap(calleeNode.object);
      const known = list?.type === 'Identifier' ? ctx.scope.lists.get(list.name) : undefined;
      const before = method === 'unshift' ? [] : [...(known?.start ?? []), undefined, ...(known?.ended ? ['--'] : [])];
      if (method === 'unshift' && list?.type === 'Identifier') ctx.scope.lists.delete(list.name);
      const added = this.listElements(args, ctx, positional, before);
      if (root && added.length) ctx.scope.assign(root, addStep(added, { file: ctx.file.index.parsed.file.path, line: lineOf(ctx.file.index.parsed, node.start), note: `added to ${root}` }));
    }

    const textOf = (arg: AstNode | undefined): string | undefined => staticString(arg, index) ?? this.localConstant(arg, ctx);
    const sinks = sinkArguments(callee, node, index, textOf);
    // A method of a library's namespace (`fs.readFile`) has no receiver of interest; `Helper.run`, `ev.evaluate` do.
    const libraryCall = isModuleCall && !callee.module?.startsWith('.');
    const instance = method !== undefined && !libraryCall ? this.receiverOf(calleeNode, ctx) : undefined;
    // `new k8s.Exec(kc).exec(ns, pod, container, command, …)`: a library class's method the catalogue lists as a sink.
    if (instance?.owner.kind === 'library' && method !== undefined) sinks.push(...instanceSinks(instance.owner.module, instance.owner.name, method, node, textOf));
    if (sinks.length) {
      this.sinkFlows(sinks, argTaints, callee, node, ctx);
      if (this.reachHere(ctx)) this.noteCapabilities(this.sinkReach(sinks, argTaints, callee, node, ctx, textOf), ctx);
    }
    result = union(result, this.remoteData(callee, method, sinks, argTaints, node, ctx));
    // `c.req.query('x')`, `await request.json()`, `req.get('host')`: a request's data methods return the client's input.
    if (method && holdsRequest(receiver)) return union(result, member(receiver, method));

    const known = this.knownCall(callee, method, node, args, positional, receiver, ctx);
    if (known !== undefined) return union(result, known);

    // On an instance of a known package class, the call reaches that class's method (or none of the package's).
    const lookup = this.methodCall(calleeNode, instance);
    const target = lookup ? lookup.target : this.resolver.resolve(calleeNode, ctx.scope, ctx.file);
    // `this` of the method: only when the receiver's class is known (a method found by name alone may belong to any
    // object), and only what an instance holds in its fields, or the caller's own `this`.
    const thisValue = lookup ? receiver.filter((label) => label.field !== undefined || isReceiver(label)) : CLEAN;
    if (target) {
      const inline = positional.some((taint) => taint.some((label) => label.origin.kind === 'tool-name' || label.origin.kind === 'request' || label.origin.kind === 'request-params'));
      if (inline && !this.inProgress.has(target.fn)) {
        // A dispatcher handing the tool name to a helper: analyse the helper in the caller's context so its switch binds tools.
        this.inProgress.add(target.fn);
        const returned = this.analyzeFunction(target.fn, target.file, target.file.moduleScope, positional, { ...this.inherit(ctx), guards: new Map() });
        this.inProgress.delete(target.fn);
        return union(result, returned);
      }
      const summary = this.summaryOf(target.fn, target.file);
      return union(result, this.applySummary(summary, positional, node, ctx, target.file, callee.display, thisValue));
    }
    // `adapter.all(sql)` where a few classes of the package (one per database) define `all`: any of them may run.
    const implementations = method && calleeNode.type === 'MemberExpression' && !isModuleCall && !lookup ? this.resolver.implementations(method) : [];
    for (const implementation of implementations) {
      result = union(result, this.applySummary(this.summaryOf(implementation.fn, implementation.file), positional, node, ctx, implementation.file, callee.display));
    }
    if (implementations.length > 0) return result;
    if (node.type === 'NewExpression') {
      const name = callee.name;
      if (name === 'URL') return mapTaint(args.length > 1 ? embed(positional[0] ?? CLEAN) : (positional[0] ?? CLEAN), (label) => (label.url ? label : { ...label, url: true }));
      if (name === 'String' || name === 'Array' || name === 'Set' || name === 'Map' || name === 'URLSearchParams') return positional.reduce(union, CLEAN);
      return result;
    }
    if (method && receiver.length && !NON_PROPAGATING_METHODS.has(method)) {
      if ((method === 'replace' || method === 'replaceAll') && escapesRegexSyntax(args[0], args[1])) return union(result, sanitize(receiver, 'regex-escape'));
      if ((method === 'replace' || method === 'replaceAll') && removesAllButSafeCharacters(args[0])) {
        return union(result, sanitize(receiver, 'character-allowlist'));
      }
      if ((method === 'replace' || method === 'replaceAll') && removesSeparators(args[0], args[1], ctx.file.index)) return union(result, asSegment(receiver, true));
      result = union(result, withoutSecrets(TRUNCATING_METHODS.has(method) ? sanitize(receiver, 'masked') : receiver));
      if (method === 'concat' || method === 'replace' || method === 'replaceAll' || method === 'join' || method === 'padStart' || method === 'padEnd') {
        result = embed(union(result, positional.reduce(union, CLEAN)));
      }
    }
    // A function of another package that the catalog does not know: assume its result derives from its arguments
    // (`parse(query.args)`, `findExecutable(command)`), unless its name says it hashes, escapes or checks them.
    if (isModuleCall && sinks.length === 0 && !OPAQUE_FUNCTION_NAME.test(callee.name)) result = union(result, withoutSecrets(positional.reduce(union, CLEAN)));
    return result;
  }

  /**
   * Analyses the request handlers a call registers (`app.get('/x', fn)`, `createServer(fn)`) with their request
   * parameter as an `http-request` source, and returns the inline ones so the caller does not analyse them again.
   */
  protected routes(callee: Callee, call: AstNode, ctx: Ctx): Set<AstNode> {
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
  protected remoteData(callee: Callee, method: string | undefined, sinks: SinkArgument[], argTaints: Map<AstNode, Taint>, call: AstNode, ctx: Ctx): Taint {
    const request = sinks.find((sink) => sink.isUrl);
    const chosenUrl = request !== undefined && !hasFixedHost(request.target) && (argTaints.get(request.node) ?? this.peek(request.node, ctx)).some((label) => OUTSIDER.has(label.origin.kind));
    const remote = returnsRemoteData(callee, method) || chosenUrl;
    if (!remote) return CLEAN;
    const detail = `the response of ${callee.display}()`;
    return [newLabel({ kind: 'remote-response', detail }, [this.sourceStep(ctx.file, call, detail, 'remote-response')])];
  }

  protected callbackResults(callbacks: Array<[AstNode, number]>, method: string | undefined, receiver: Taint, ctx: Ctx): Taint {
    let result: Taint = CLEAN;
    for (const [fn, position] of callbacks) {
      const elementParam = method && ARRAY_CALLBACKS.has(method) ? receiver : CLEAN;
      const params = method === 'reduce' ? [CLEAN, receiver] : position === 0 || method === 'then' ? [elementParam] : [];
      const returned = this.analyzeFunction(fn, ctx.file, ctx.scope, params, this.inherit(ctx));
      if (method && RESULT_FROM_CALLBACK.has(method)) result = union(result, returned);
    }
    if (method === 'slice') result = union(result, withoutSecrets(sanitize(receiver, 'masked')));
    else if (method && ['map', 'filter', 'flatMap', 'find', 'sort'].includes(method)) result = union(result, receiver);
    return result;
  }

  protected knownCall(
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
    // Decoded constants: Buffer.from('…', 'base64'), atob('…'), String.fromCharCode(...codes), a reversed or XOR-ed
    // literal, and chains of them, evaluated on the literals so the finding shows the text.
    if (DECODING_CALLS.has(name) || (method !== undefined && DECODING_CALLS.has(method))) {
      const decoded = decodeStatically(node, index);
      // Three characters or fewer is a separator or a newline, not a payload.
      if (decoded && decoded.text.length > 3) return [newLabel({ kind: 'decoded-constant', detail: shownDecoded(decoded.text) }, [this.sourceStep(ctx.file, node, `decodes a literal (${decoded.ops.join(' → ')})`, 'decoded-constant')])];
      if (module === 'global:String' && name === 'fromCharCode' && xorOfConstants(args, index)) {
        return [newLabel({ kind: 'decoded-constant', detail: 'character codes XOR-ed with a constant key (not evaluated)' }, [this.sourceStep(ctx.file, node, 'decodes XOR-ed character codes', 'decoded-constant')])];
      }
      if ((module === 'global:Buffer' && name === 'from') || (!callee.receiver && name === 'atob' && module === undefined) || module === 'global:String') return all();
    }
    if ((module === 'os' && name === 'homedir') || (module === 'global:os' && name === 'homedir')) return CLEAN;
    if (module === 'path' || module === 'global:path' || module === 'upath') {
      const combined = all();
      const sensitive = this.sensitivePath(node, ctx);
      if (sensitive) return [newLabel({ kind: 'sensitive-path', detail: sensitive })];
      if (name === 'basename') return asSegment(sanitize(combined, 'basename'), true);
      // What follows the first segment is joined onto a base; the first segment is the base, so a caller who chooses
      // it chooses where the path points (any folder), which is no traversal out of anything.
      if (PATH_JOINERS.has(name) && args.length > 1) return union(positional[0] ?? CLEAN, embed(positional.slice(1).reduce(union, CLEAN)));
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
      // No `/` or `\\` survives the encoding (`..` does); decoding brings them back.
      if (name === 'encodeURIComponent') return asSegment(all(), true);
      if (name === 'decodeURIComponent' || name === 'decodeURI' || name === 'unescape') return asSegment(all(), false);
      if (VALUE_FUNCTIONS.has(name)) return all();
      if (name === 'require') return CLEAN;
    }
    // `Math.min(n, MAX)`: a number no larger than a value the caller does not choose.
    if (module === 'global:Math' && name === 'min' && positional.some((taint) => !taint.length)) return sanitize(sanitize(all(), 'numeric'), 'bounded');
    if (module === 'global:Math' || (module === 'global:Number' && name !== 'toString')) return sanitize(all(), 'numeric');
    // `escapeRegExp(x)`, `_.escapeRegExp(x)`, `escape-string-regexp`: the text matches itself and cannot backtrack.
    if (/^escape(String)?Reg(Exp|ex)p?$/i.test(name) || module === 'escape-string-regexp' || module === 'lodash.escaperegexp') return sanitize(all(), 'regex-escape');
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

  /**
   * What a call's sinks let the tool do, whatever reaches them: the path of a file sink, the program and constant
   * words of a command, the host of a request (see capabilities.ts).
   */
  protected sinkReach(sinks: SinkArgument[], argTaints: Map<AstNode, Taint>, callee: Callee, call: AstNode, ctx: Ctx, textOf: (node: AstNode | undefined) => string | undefined): Capability[] {
    const location = locationOf(ctx.file.index.parsed, call);
    const out: Capability[] = [];
    const commands = sinks.filter((sink) => sink.kind === 'command');
    if (commands.length) {
      const words = commands.map((sink) => textOf(sink.node) ?? staticPrefix(sink.node, ctx.file.index) ?? '*');
      const program = commands.find((sink) => sink.program !== undefined)?.program;
      out.push(...sinkCapabilities({ kind: 'command', callee: callee.display, location, command: words.join(' '), ...(program !== undefined && { program }) }));
    }
    const seen = new Set<string>();
    for (const sink of sinks) {
      if (sink.kind === 'command' || seen.has(sink.kind)) continue;
      seen.add(sink.kind);
      const file = sink.kind === 'file-read' || sink.kind === 'file-write';
      const path = file ? this.pathText(sink.node, ctx, 0) : undefined;
      const target = sink.target ?? (sink.isUrl ? staticPrefix(sink.node, ctx.file.index) : undefined);
      const found = sinkCapabilities({ kind: sink.kind, callee: callee.display, location, ...(path !== undefined && { path }), ...(target !== undefined && { target }) });
      // `fetch(url)` in a helper: the caller's argument names the host (see `mergeAt`).
      const param = sink.isUrl && target === undefined ? argTaints.get(sink.node)?.find((label) => label.origin.kind === 'param' && !label.embedded) : undefined;
      if (param?.origin.kind === 'param') for (const capability of found) URL_PARAMS.set(capability, param.origin.index);
      out.push(...found);
    }
    return out;
  }

  protected notePath(name: string, init: AstNode, ctx: Ctx): void {
    const text = this.pathText(init, ctx, 0);
    if (/[A-Za-z]/.test(text.replace(/\*/g, ''))) ctx.scope.paths.set(name, text);
  }

  /** A path as far as it is constant, for capabilities: `~/.bashrc` of `path.join(os.homedir(), RC)`, `*` where unknown. */
  protected pathText(node: AstNode | undefined, ctx: Ctx, depth: number): string {
    const value = unwrap(node);
    if (!value || depth > 4) return '*';
    const text = staticString(value, ctx.file.index) ?? this.localConstant(value, ctx);
    if (text !== undefined) return text;
    if (value.type === 'Identifier') {
      const local = ctx.scope.findPath(value.name);
      if (local !== undefined) return local;
      const declared = ctx.file.index.variables.get(value.name);
      return declared ? this.pathText(declared, ctx, depth + 1) : this.pathPart(value, ctx);
    }
    if (value.type === 'TemplateLiteral') {
      let out = value.quasis[0]?.value.cooked ?? '';
      value.expressions.forEach((expression: AstNode, position: number) => {
        out += this.pathText(expression, ctx, depth + 1) + (value.quasis[position + 1]?.value.cooked ?? '');
      });
      return out;
    }
    if (value.type === 'BinaryExpression' && value.operator === '+') return this.pathText(value.left, ctx, depth + 1) + this.pathText(value.right, ctx, depth + 1);
    if (value.type === 'CallExpression') {
      const callee = resolveCallee(value.callee, ctx.file.index);
      // The temporary directory is the server's scratch space (see the rule's treatment of caches).
      if (callee.name === 'tmpdir' && (callee.module === 'os' || callee.module === 'global:os')) return '/tmp';
      if ((callee.module === 'path' || callee.module === 'global:path' || callee.module === 'node:path') && PATH_JOINERS.has(callee.name)) {
        return (value.arguments as AstNode[]).map((arg) => this.pathText(arg, ctx, depth + 1)).join('/').replace(/\/+/g, '/');
      }
    }
    return this.pathPart(value, ctx);
  }

  /** A path built from literals and the home directory that names a credential store, e.g. `~/.ssh/id_rsa`. */
  protected sensitivePath(node: AstNode, ctx: Ctx): string | undefined {
    const parts = (node.arguments as AstNode[]).map((arg) => this.pathPart(unwrap(arg), ctx));
    const joined = parts.join('/').replace(/\/+/g, '/');
    return SENSITIVE_PATH.test(joined) ? joined : undefined;
  }

  /** One segment of a path for display and matching: literal text, `~` for the home directory, `*` for anything else. */
  protected pathPart(value: AstNode | undefined, ctx: Ctx): string {
    if (!value) return '*';
    const text = staticString(value, ctx.file.index);
    if (text !== undefined) return text;
    if (value.type === 'CallExpression' && resolveCallee(value.callee, ctx.file.index).name === 'homedir') return '~';
    if (value.type === 'MemberExpression' && isHomeVariable(value)) return '~';
    const label = this.peek(value, ctx).find((l) => l.origin.kind === 'sensitive-path');
    return label?.origin.kind === 'sensitive-path' ? label.origin.detail : '*';
  }
}

/** `process.env.HOME` / `process.env.USERPROFILE`. */
function isHomeVariable(node: AstNode): boolean {
  const object = unwrap(node.object);
  const name = memberName(node);
  return (name === 'HOME' || name === 'USERPROFILE') && object?.type === 'MemberExpression' && memberName(object) === 'env' && unwrap(object.object)?.name === 'process';
}
