// The state of one walk over a function body (names → taints, types, constant texts) and what can be read from it
// without following data: the constant text a value starts with, the type of an object, a static path.
// The walk is layered: ScopeState (this file) → GuardScope (guards.ts) → SinkScope (sinks.ts) → ExpressionScope
// (expressions.ts) → Scope (scope.ts, statements); each layer only calls downwards, plus `expression` and `assign`.
import type { FlowStep, SinkKind } from '../../model.js';
import type { Reach } from '../capabilities.js';
import { KNOWN_TYPES } from './catalog.js';
import { attributeClass, classOfType, classType, instanceClass, resolveClass, type PyClass } from './classes.js';
import { qualify, resolveConstant, type PyModule, type PyProgram } from './program.js';
import { callArguments, dottedName, location, snippet, stringValue, type Node } from './syntax.js';
import { fixedHostOf, isSequenceLiteral, sensitiveTaint, type ReturnSite, type SinkHit, type SinkInfo, type StaticText, type Taint, type TaintContext } from './values.js';

/**
 * A walk over a low-level dispatcher for one tool: `names` are the expressions that hold the requested tool's name
 * (`name`, `params.name`, `req["params"]["name"]`, and locals assigned from them).
 */
export interface Dispatch {
  tool: string;
  names: Set<string>;
  /** Locals that hold the tools/call request once assigned (PyHandler `messages`), and the request's taint. */
  messages?: { names: ReadonlySet<string>; request: Taint };
}

export abstract class ScopeState {
  readonly env = new Map<string, Taint[]>();
  readonly types = new Map<string, string>();
  /** The constant words of argv lists held in names (undefined for a word that is not constant). */
  protected readonly argvWords = new Map<string, Array<string | undefined>>();
  /** The expression last assigned to a name, for checks that need its shape (a containment root's trailing separator). */
  protected readonly assignedValues = new Map<string, Node>();
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
  /** Each `return` with what it returns: in a tool handler that is the tool's result (a sink for secrets). */
  readonly returnSites: ReturnSite[] = [];
  /**
   * The `result` of each JSON-RPC response the walk builds (`{"jsonrpc": "2.0", "id": …, "result": …}`), with those of
   * the helpers it calls: a server without an SDK writes the tool's result to stdout in one rather than returning it,
   * so in a dispatcher it is the tool's result as much as a return value is. The dict is what says so, not the write:
   * a log line (`print(config, file=sys.stderr)`) builds none.
   */
  readonly answers: ReturnSite[] = [];
  readonly hits: SinkHit[] = [];
  /** Where the capabilities of this walk go: the summarised function's, or the dispatched tool's (capabilities.ts). */
  reach?: Reach;

  constructor(
    readonly engine: TaintContext,
    readonly module: PyModule,
    readonly dispatch?: Dispatch,
  ) {}

  abstract expression(node: Node): Taint[];
  protected abstract assign(target: Node, taints: Taint[], value: Node): void;

  protected step(node: Node, note: string): FlowStep {
    return { file: this.module.path, line: node.startPosition.row + 1, note };
  }

  protected sinkAt(call: Node, kind: SinkKind, callee: string, extra: Partial<SinkInfo> = {}): SinkInfo {
    return { kind, callee, location: location(this.module.path, call), snippet: snippet(call), ...extra };
  }

  protected report(sink: SinkInfo, taints: Taint[]): void {
    for (const taint of taints) {
      if (taint.param) this.hits.push({ sink, taint });
      else if (taint.origin.kind !== 'unknown' && taint.origin.kind !== 'constant') this.engine.emit(sink, taint);
    }
  }

  protected isEnviron(node: Node): boolean {
    const name = dottedName(node);
    return name !== undefined && qualify(this.module, name) === 'os.environ';
  }

  protected get program(): PyProgram {
    return this.engine.program;
  }

  protected isTrue(node: Node | undefined): boolean {
    if (!node) return false;
    if (node.type === 'true') return true;
    return node.type === 'identifier' && this.module.constants.get(node.text)?.type === 'true';
  }

  /** A path assembled from constant pieces (`Path.home() / ".aws" / "credentials"`) that names a secret store. */
  protected sensitivePath(node: Node): Taint | undefined {
    const text = this.staticPath(node, 0);
    return text.includes('/') ? sensitiveTaint(this.module.path, node, text) : undefined;
  }

  /** `locals`: also follow what a local name was last assigned (capabilities only; the dataflow has the local's taint). */
  protected staticPath(node: Node, depth: number, locals = false): string {
    if (depth > 8) return '*';
    const literal = stringValue(node);
    if (literal !== undefined) return literal;
    switch (node.type) {
      case 'identifier': {
        const assigned = locals && this.env.has(node.text) ? this.assignedValues.get(node.text) : undefined;
        if (assigned) return this.staticPath(assigned, depth + 1, locals);
        const constant = this.env.has(node.text) ? undefined : this.module.constants.get(node.text);
        return constant ? this.staticPath(constant, depth + 1, locals) : '*';
      }
      case 'parenthesized_expression':
        return node.namedChildren[0] ? this.staticPath(node.namedChildren[0], depth + 1, locals) : '*';
      case 'binary_operator': {
        const left = node.childForFieldName('left');
        const right = node.childForFieldName('right');
        return `${left ? this.staticPath(left, depth + 1, locals) : '*'}/${right ? this.staticPath(right, depth + 1, locals) : '*'}`;
      }
      case 'call': {
        const callee = node.childForFieldName('function');
        const name = qualify(this.module, dottedName(callee) ?? '');
        const args = callArguments(node).positional;
        if (name === 'pathlib.Path.home' || (name === 'os.path.expanduser' && args[0] === undefined)) return '~';
        if (name === 'tempfile.gettempdir') return '/tmp';
        if (name === 'os.path.join' || name === 'posixpath.join' || name === 'pathlib.Path' || name === 'os.path.expanduser') {
          return args.map((arg) => this.staticPath(arg, depth + 1, locals)).join('/');
        }
        if (callee?.type === 'attribute' && /^(expanduser|resolve|absolute|joinpath)$/.test(callee.childForFieldName('attribute')?.text ?? '')) {
          const receiver = this.staticPath(callee.childForFieldName('object')!, depth + 1, locals);
          return [receiver, ...args.map((arg) => this.staticPath(arg, depth + 1, locals))].join('/');
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
        if (this.env.has(node.text)) return undefined;
        return this.packageType(instanceClass(this.program, this.module, node));
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
        const attribute = node.childForFieldName('attribute')?.text ?? '';
        const objectType = object ? this.typeOf(object, depth + 1) : undefined;
        if (objectType === 'pathlib.Path') return /^(parent|parents)$/.test(attribute) ? 'pathlib.Path' : undefined;
        // `self._impl` set to `ShellImpl()` in `__init__`, or a dataclass field of a package class.
        const owner = classOfType(this.program, objectType);
        return owner ? this.packageType(attributeClass(this.program, owner, attribute)) : undefined;
      }
      case 'call': {
        const callee = node.childForFieldName('function');
        const name = dottedName(callee);
        if (name) {
          const known = KNOWN_TYPES[qualify(this.module, name)];
          if (known) return known;
        }
        const constructed = resolveClass(this.program, this.module, callee);
        if (constructed) return classType(constructed);
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

  private packageType(cls: PyClass | undefined): string | undefined {
    return cls ? classType(cls) : undefined;
  }

  /** The constant `base_url=` an HTTP client object was built with (`httpx.AsyncClient(base_url=API)`). */
  protected clientBase(node: Node, depth = 0): string | undefined {
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
