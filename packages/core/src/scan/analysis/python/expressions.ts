// Expressions: how taint moves through strings, containers, subscripts and calls, into helpers of the package and
// back out of their summaries.
import type { SinkKind } from '../../model.js';
import {
  BASENAME_CALLS,
  segmentCall,
  EMBEDDING_METHODS,
  LIST_METHODS,
  MUTATING_METHODS,
  NUMERIC_CALLS,
  PARAMETERISED_SQL_CALLS,
  RESOLVE_CALLS,
  SENSITIVE_PATH,
  SHELLS,
  MCP_CLIENT_RESULTS,
} from './catalog.js';
import { argvElementGuard, classifyArgv, isSecretName, namesOneFile, programName } from '../catalog.js';
import { qualify, resolveConstant, type PyModule } from './program.js';
import { classOfType, methodOfClass, resolveClass } from './classes.js';
import { isGlobalRequest } from './routes.js';
import { SinkScope } from './sinks.js';
import { callArguments, dottedName, functionParameters, parameterName, splatParameters, stringValue, type CallArguments, type Node } from './syntax.js';
import {
  baseIdentifier,
  derive,
  argumentOf,
  embedded,
  envelopeMember,
  envTaint,
  OUTSIDER_ORIGINS,
  requestTaint,
  responseTaint,
  fixedHostOf,
  isSequenceLiteral,
  placeInArgv,
  sensitiveTaint,
  segmentBesideText,
  substitute,
  union,
  withSanitizer,
  withoutSecrets,
  secretEnvTaint,
  withStep,
  type ReturnSite,
  type Taint,
} from './values.js';

/** Calls whose result is their argument as text or data: a credential stays one through them. */
const SECRET_CARRIERS = new Set(['str', 'repr', 'json.dumps', 'dict', 'format', 'pprint.pformat']);

const OPAQUE_RESULTS = new Set<SinkKind>(['command', 'network', 'network-send', 'sql', 'email']);

export abstract class ExpressionScope extends SinkScope {

  expression(node: Node): Taint[] {
    switch (node.type) {
      case 'identifier': {
        const local = this.env.get(node.text);
        if (local) return local;
        if (this.module.constants.has(node.text)) return this.engine.moduleValue(this.module, node.text);
        if (isGlobalRequest(this.module, node.text)) return [requestTaint(this.module.path, node, qualify(this.module, node.text))];
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
        if (operator === '*' && left && right) this.repetition(node, left, right);
        const sensitive = operator === '/' ? this.sensitivePath(node) : undefined;
        if (operator === '+' && left && right) this.markBesideText(left, right);
        const operand = (side: Node | null): Taint[] => (side ? (this.besideText.has(side.id) ? segmentBesideText(this.expression(side)) : this.expression(side)) : []);
        const combined = embedded(union(operand(left), operand(right)));
        return union(operator === '+' || operator === '%' ? this.hostFixed(node, combined) : combined, sensitive ? [sensitive] : []);
      }
      case 'comparison_operator':
      case 'not_operator': {
        // A comparison (`"KEY" in os.environ`, `a == b`) is a boolean: it carries no part of what it compares.
        for (const child of node.namedChildren) if (child) this.expression(child);
        return [];
      }
      case 'conditional_expression': {
        // `a if test else b` is `a` or `b`; the test only chooses.
        const [consequence, test, alternative] = node.namedChildren;
        if (test) this.expression(test);
        return union(consequence ? this.expression(consequence) : [], alternative ? this.expression(alternative) : []);
      }
      case 'boolean_operator':
      case 'expression_list':
      case 'set':
      case 'pair':
      case 'list_comprehension':
      case 'set_comprehension':
      case 'dictionary_comprehension':
      case 'generator_expression':
      case 'for_in_clause':
      case 'if_clause':
      case 'unary_operator':
      case 'list_splat':
      case 'dictionary_splat':
      case 'keyword_argument':
        return union(...node.namedChildren.map((child) => (child ? this.expression(child) : [])));
      case 'dictionary':
        return this.dictionary(node);
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
        if (name && qualify(this.module, name) === 'os.environ') {
          this.noteEnv(node);
          return [envTaint(this.module.path, node)];
        }
        const object = node.childForFieldName('object');
        const member = node.childForFieldName('attribute')?.text;
        return object
          ? this.expression(object).flatMap((taint) => (taint.envelope ? (envelopeMember(taint, member) ?? []) : [derive(taint, { argv: undefined, shellList: undefined, argvRole: undefined, argvProgram: undefined })]))
          : [];
      }
      case 'call':
        return this.call(node);
      default:
        return [];
    }
  }

  /** Operands of a `+` chain with constant text beside them in their path segment (tree-sitter node ids). */
  private readonly besideText = new Set<number>();

  /**
   * `name + ".md"`, `"note-" + name`, also at the end of a longer chain (`base + "/" + name + ".md"`): marks the operand
   * next to the text, so that one (not the rest of the chain) is sanitised when its own `+` evaluates it.
   */
  private markBesideText(left: Node, right: Node): void {
    let leaf: Node = left;
    while (leaf.type === 'binary_operator' && leaf.childForFieldName('operator')?.text === '+') leaf = leaf.childForFieldName('right') ?? leaf;
    const after = right.type === 'string' ? stringValue(right) : undefined;
    const before = leaf.type === 'string' ? stringValue(leaf) : undefined;
    if (after !== undefined && before === undefined && namesOneFile(undefined, after)) this.besideText.add(leaf.id);
    else if (before !== undefined && after === undefined && namesOneFile(before, undefined)) this.besideText.add(right.id);
  }

  /** `[0] * n`, `"x" * n`: a literal sequence repeated by a count is an allocation of that size (CWE-400). */
  protected repetition(node: Node, left: Node, right: Node): void {
    const literal = (side: Node) => isSequenceLiteral(side) || side.type === 'string';
    const count = literal(left) ? right : literal(right) ? left : undefined;
    if (count) this.report(this.sinkAt(node, 'allocation', '*'), this.expression(count));
  }

  protected stringExpression(node: Node): Taint[] {
    const parts: Taint[][] = [];
    let holes = 0;
    let literal = '';
    // The text between holes, so a hole with text beside it in its path segment is known (f"{quote(name, safe='')}.md").
    const pieces: Array<string | Node> = [];
    for (const part of node.type === 'concatenated_string' ? node.namedChildren : [node]) {
      if (!part) continue;
      for (const child of part.namedChildren) {
        if (child?.type === 'interpolation') {
          holes++;
          const expression = child.childForFieldName('expression');
          if (expression) pieces.push(expression);
        } else if (child?.type === 'string_content') {
          literal += child.text;
          pieces.push(child.text);
        }
      }
    }
    pieces.forEach((piece, position) => {
      if (typeof piece === 'string') return;
      const text = (at: number) => (typeof pieces[at] === 'string' ? (pieces[at] as string) : undefined);
      const taints = this.expression(piece);
      parts.push(namesOneFile(text(position - 1), text(position + 1)) ? segmentBesideText(taints) : taints);
    });
    const sensitive = holes === 0 && SENSITIVE_PATH.test(literal) ? sensitiveTaint(this.module.path, node, stringValue(node) ?? literal) : undefined;
    const taints = union(...parts);
    const whole = holes === 1 && literal.length === 0;
    if (whole) return union(taints, sensitive ? [sensitive] : []);
    return union(this.hostFixed(node, embedded(taints)), sensitive ? [sensitive] : []);
  }

  /** Marks values spliced into a string that starts with a fixed `scheme://host/`, for network sinks. */
  protected hostFixed(node: Node, taints: Taint[]): Taint[] {
    if (taints.length === 0) return taints;
    const host = fixedHostOf(this.staticText(node).text);
    return taints.map((taint) => derive(taint, { hostFixed: host }));
  }

  /**
   * A list or tuple literal: its first element is the program of an argv, the rest are arguments. Each element keeps
   * what it is to that program (shell code after `sh -c`, an option position of `git`, the opener's target …) and
   * what its place proves against option injection (after `--`, an option's value, a constant start).
   */
  protected sequence(node: Node): Taint[] {
    return this.argvElements(node.namedChildren.filter((child): child is Node => child !== null), []).taints;
  }

  /**
   * Elements added to an argv list whose constant words so far are `prefix` (`args += [...]`, `args.extend([...])`,
   * `args.append(x)`, or a new literal with `*base` spliced in): each keeps its place in the whole list. Returns the
   * taints and the list's words afterwards (undefined where a word is not constant).
   */
  /** The constant words of a list literal, with known lists spliced in (`[*BASE, "log", ref]` → git, log, ?). */
  protected literalWords(node: Node): Array<string | undefined> {
    const words: Array<string | undefined> = [];
    for (const element of node.namedChildren) {
      if (!element) continue;
      const base = element.type === 'list_splat' ? element.namedChildren[0] : undefined;
      const spliced = base?.type === 'identifier' ? this.listWords(base.text) : undefined;
      if (spliced) words.push(...spliced);
      else words.push(base ? undefined : stringValue(element));
    }
    return words;
  }

  /** The words of an argv list held in a local, or in a module constant written as a list literal (`BASE = ["git"]`). */
  private listWords(name: string): Array<string | undefined> | undefined {
    const local = this.argvWords.get(name);
    if (local || this.env.has(name)) return local;
    const constant = this.module.constants.get(name);
    return constant?.type === 'list' || constant?.type === 'tuple' ? constant.namedChildren.filter((item) => item !== null).map((item) => stringValue(item!)) : undefined;
  }

  protected argvElements(elements: Node[], prefix: Array<string | undefined>): { taints: Taint[]; texts: Array<string | undefined> } {
    const texts = [...prefix];
    const placed: Array<{ node: Node; index: number }> = [];
    const spliced: Taint[][] = [];
    for (const element of elements) {
      const base = element.type === 'list_splat' ? element.namedChildren[0] : undefined;
      const words = base?.type === 'identifier' ? this.listWords(base.text) : undefined;
      if (words) {
        // `*base` of a known argv list: its words, and its values as they were placed in it.
        texts.push(...words);
        spliced.push(this.expression(base!));
        continue;
      }
      // Any other element, `*rest` of unknown length included, takes the next place.
      placed.push({ node: base ?? element, index: texts.length });
      texts.push(stringValue(element));
    }
    const first = texts[0];
    const shellList = first !== undefined && SHELLS.test(first) && texts.some((text) => /^[-/]c$/i.test(text ?? ''));
    const roles = classifyArgv(texts);
    const argvProgram = first === undefined ? undefined : programName(first);
    const result: Taint[][] = placed.map(({ node, index }) => {
      const start = this.staticText(node).text;
      const guard = index === 0 ? undefined : argvElementGuard(texts.slice(0, index), start === '' ? undefined : start);
      const taints = this.expression(node).map((taint) =>
        derive(taint, { argv: index === 0 ? 'program' : 'arg', shellList: shellList || undefined, argvRole: roles[index], ...(argvProgram !== undefined && { argvProgram }) }),
      );
      return guard ? withSanitizer(taints, guard) : taints;
    });
    // A spliced list's own values become shell code when the words before them make the whole a `sh -c` line.
    const splicedTaints = union(...spliced).map((taint) => (shellList && taint.argv === 'arg' ? derive(taint, { shellList: true, argvRole: 'shell-code' }) : taint));
    return { taints: union(splicedTaints, ...result), texts };
  }

  protected subscript(node: Node): Taint[] {
    const value = node.childForFieldName('value');
    const index = node.childForFieldName('subscript');
    if (!value) return [];
    if (this.isEnviron(value)) {
      this.noteEnv(node);
      return this.namedVariable(index, node);
    }
    const picked = this.pick(value, index ? stringValue(index) : undefined, node);
    // `token[:4]`, `key[-4:]`: a part of a secret is a masked form of it.
    return index?.type === 'slice' ? withSanitizer(picked, 'masked') : picked;
  }

  /**
   * A dict literal: a secret stored under a constant key is known by it (`settings["base_url"]` does not read the
   * token beside it), and a key written after a `**splat` replaces what the splat held under it.
   */
  protected dictionary(node: Node): Taint[] {
    let taints: Taint[] = [];
    const keys = new Set<string>();
    let result: ReturnSite | undefined;
    for (const child of node.namedChildren) {
      if (!child) continue;
      const key = child.type === 'pair' ? stringValue(child.childForFieldName('key')) : undefined;
      const value = child.type === 'pair' ? child.childForFieldName('value') : child;
      const stored = value ? this.expression(value) : [];
      if (key !== undefined) keys.add(key);
      if (key === 'result' && value) result = { node: value, taints: stored, file: this.module.path };
      if (key !== undefined) taints = taints.filter((taint) => !(taint.secret && taint.field === key));
      taints = union(taints, key === undefined ? stored : stored.map((taint) => (taint.secret ? derive(taint, { field: key }) : taint)));
    }
    // `{"jsonrpc": "2.0", "id": …, "result": …}`: a JSON-RPC response (see `answers`).
    if (result && keys.has('id')) this.answers.push(result);
    return taints;
  }

  /** `os.environ["API_TOKEN"]`, `os.getenv("API_TOKEN")`: a credential by name; any other variable is configuration. */
  protected namedVariable(key: Node | null | undefined, at: Node): Taint[] {
    const name = key ? stringValue(key) : undefined;
    return name !== undefined && isSecretName(name) ? [secretEnvTaint(this.module.path, at, name)] : [];
  }

  /** `container[key]` / `container.get(key)`: a constant key on the tool's arguments picks one parameter. */
  protected pick(container: Node, key: string | undefined, at: Node): Taint[] {
    return this.expression(container).flatMap((taint) => {
      if (taint.field !== undefined && key !== undefined) return taint.field === key ? derive(taint, { field: undefined }) : [];
      if (taint.envelope) return envelopeMember(taint, key) ?? [];
      if (key === undefined) return derive(taint, { dict: undefined, argv: undefined, shellList: undefined, argvRole: undefined, argvProgram: undefined });
      if (taint.dict) return argumentOf(taint, key, this.step(at, `argument ${key}`));
      if (taint.param && taint.param.key === undefined) return derive(taint, { param: { index: taint.param.index, key }, argv: undefined, shellList: undefined, argvRole: undefined, argvProgram: undefined });
      return [derive(taint, { argv: undefined, shellList: undefined, argvRole: undefined, argvProgram: undefined })];
    });
  }

  protected call(node: Node): Taint[] {
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

    // A method of a package class is followed into its body, not judged by its name (`db.execute` of a wrapper).
    const bound = object && method ? this.methodOf(object, method, receiverType) : undefined;
    if (bound) return this.callHelper(node, bound, args, argTaints, keywordTaints, receiver);
    const dispatched = this.dispatch ? this.dispatchedHandler(callee) : undefined;
    if (dispatched) return this.callHelper(node, dispatched, args, argTaints, keywordTaints);
    const partial = callee.type === 'identifier' ? this.partialOf(callee) : undefined;
    if (partial) return this.callPartial(node, partial, args, argTaints, keywordTaints);

    const sinkKind = this.sinks(node, { written: written ?? callee.text, qualified, method, object, receiverType, args, argTaints, keywordTaints, receiver });
    if (this.reach) this.noteReach(node, { written: written ?? callee.text, qualified, method, object, receiverType, args }, sinkKind);
    // What a process, a database or a remote server answers is not the caller's value any more.
    if (sinkKind === 'network') {
      // The answer of a server at an address an outsider chose is theirs: judged where it runs (command, code, pickle).
      const chosen = this.urlChooser(args);
      if (chosen) {
        const response = responseTaint(this.module.path, node, `response of ${written ?? 'a request'} to a URL its caller chose`);
        return [chosen === true ? response : { ...response, param: chosen, responseOf: true }];
      }
    }
    if (sinkKind && OPAQUE_RESULTS.has(sinkKind)) return [];
    if (receiverType === 'mcp.ClientSession' && method && MCP_CLIENT_RESULTS.has(method)) {
      return [responseTaint(this.module.path, node, `result of ${method} from a connected MCP server`)];
    }

    // Origins produced by the call itself.
    const decoded = qualified || method ? this.decodedConstant(node, qualified, method, args) : undefined;
    if (decoded) return [decoded];
    if (qualified) {
      if (method === 'copy' && object && qualify(this.module, dottedName(object) ?? '') === 'os.environ') return [envTaint(this.module.path, node)];
    }
    const allArgs = union(...argTaints, ...keywordTaints.values(), ...splatTaints);

    if (qualified) {
      // `min(n, MAX)`: no larger than a value the caller does not choose.
      if (qualified === 'min' && argTaints.some((taints) => taints.length === 0)) return withSanitizer(withSanitizer(allArgs, 'numeric'), 'bounded');
      if (qualified === 're.escape' || qualified === 'regex.escape') return withSanitizer(allArgs, 'regex-escape');
      // A value's own length is no more than the caller already sent.
      if (qualified === 'len') return withSanitizer(withSanitizer(allArgs, 'numeric'), 'bounded');
      if (NUMERIC_CALLS.has(qualified)) return withSanitizer(allArgs, 'numeric');
      if (qualified === 'shlex.quote' || qualified === 'pipes.quote') return withSanitizer(allArgs, 'shell-escape');
      if (BASENAME_CALLS.has(qualified) || /(^|\.)secure_filename$/.test(qualified)) return withSanitizer(allArgs, 'basename').map((taint) => derive(taint, { segment: true }));
      const segment = segmentCall(qualified, args);
      if (segment !== undefined) return (qualified === 're.sub' ? argTaints[2] ?? [] : allArgs).map((taint) => derive(taint, { segment }));
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
    if (method === 'get' && object && this.isEnviron(object)) {
      this.noteEnv(node);
      return this.namedVariable(args.positional[0], node);
    }
    if (qualified === 'os.getenv') {
      this.noteEnv(node);
      return this.namedVariable(args.positional[0], node);
    }
    if (method === 'get' && object && args.positional[0]) {
      const key = stringValue(args.positional[0]);
      if (key !== undefined) return union(this.pick(object, key, node), ...argTaints.slice(1));
    }
    if (method === 'resolve' || method === 'absolute') return receiver.map((taint) => derive(taint, { resolved: true }));

    const helper = this.program.resolveFunction(this.module, callee);
    if (helper) {
      return this.callHelper(node, helper, args, argTaints, keywordTaints);
    }
    // A constructor runs `__init__` (its sinks count); the instance keeps what it was built from.
    const constructed = resolveClass(this.program, this.module, callee);
    const init = constructed ? methodOfClass(this.program, constructed, '__init__') : undefined;
    if (init) this.callHelper(node, init, args, argTaints, keywordTaints);

    const base = method && MUTATING_METHODS.has(method) && object ? baseIdentifier(object) : undefined;
    if (base) {
      // cmd.append(x) on an argv list adds an argument; on anything else the value is mixed into the container.
      const isList = this.types.get(base) === 'list' && LIST_METHODS.has(method ?? '');
      const list = method === 'extend' ? args.positional[0] : undefined;
      const words = this.argvWords.get(base);
      const elements = method === 'append' ? args.positional.slice(0, 1) : list && (list.type === 'list' || list.type === 'tuple') ? list.namedChildren.filter((child): child is Node => child !== null) : undefined;
      let added: Taint[] = [];
      if (isList && words && elements) {
        // Constant words count as well: `args.append("--")` ends the options of what is appended after it.
        const appended = this.argvElements(elements, words);
        added = appended.taints;
        this.argvWords.set(base, appended.texts);
      } else if (allArgs.length > 0) {
        added = isList ? allArgs.map((taint) => derive(taint, { argv: 'arg' })) : embedded(allArgs);
        if (isList) this.argvWords.delete(base);
      }
      if (added.length > 0) this.env.set(base, union(this.env.get(base) ?? [], withStep(added, this.step(node, `added to ${base}`))));
    }
    // Unknown calls pass their inputs through: str(x), x.strip(), json.dumps(x), Path(x).
    if (method && EMBEDDING_METHODS.has(method)) return this.hostFixed(node, embedded(union(receiver, allArgs)));
    const carries = qualified !== undefined && SECRET_CARRIERS.has(qualified);
    return union(
      (carries ? receiver : withoutSecrets(receiver)).map((taint) => derive(taint, { argv: undefined, shellList: undefined, argvRole: undefined, argvProgram: undefined, dict: undefined })),
      carries ? allArgs : withoutSecrets(allArgs),
    );
  }


  /**
   * Who chose the URL of an HTTP request (first argument or `url=`, past a method name): true for tool input, request
   * data or another answer; the parameter of the summarised function when it depends on its caller; else undefined.
   */
  private urlChooser(args: CallArguments): true | NonNullable<Taint['param']> | undefined {
    const url = args.keywords.get('url') ?? args.positional.find((argument) => !/^["'][A-Z]+["']$/.test(argument.text));
    const taints = url ? this.expression(url).filter((taint) => !taint.hostFixed && !taint.envelope) : [];
    if (taints.some((taint) => !taint.param && OUTSIDER_ORIGINS.has(taint.origin.kind))) return true;
    return taints.find((taint) => taint.param)?.param;
  }

  /** `ev.evaluate(x)` on an instance of a package class, `Helper.run(x)` on the class itself, `self._impl.run(x)`. */
  private methodOf(object: Node, method: string, receiverType: string | undefined): { module: PyModule; definition: Node } | undefined {
    const cls = classOfType(this.program, receiverType) ?? (object.type === 'identifier' && this.env.has(object.text) ? undefined : resolveClass(this.program, this.module, object));
    return cls ? methodOfClass(this.program, cls, method) : undefined;
  }

  /**
   * In a dispatcher, `HANDLERS[name](...)`, `HANDLERS.get(name)(...)` or `handler = HANDLERS.get(name)` then
   * `handler(...)`: the function the table holds for the tool being walked.
   */
  private dispatchedHandler(callee: Node, depth = 0): { module: PyModule; definition: Node } | undefined {
    if (depth > 2 || !this.dispatch) return undefined;
    let table: Node | null | undefined;
    let key: Node | null | undefined;
    if (callee.type === 'subscript') {
      table = callee.childForFieldName('value');
      key = callee.childForFieldName('subscript');
    } else if (callee.type === 'call') {
      const inner = callee.childForFieldName('function');
      if (inner?.type === 'attribute' && inner.childForFieldName('attribute')?.text === 'get') {
        table = inner.childForFieldName('object');
        key = callArguments(callee).positional[0];
      }
    } else if (callee.type === 'identifier') {
      const value = this.assignedValues.get(callee.text);
      return value ? this.dispatchedHandler(value, depth + 1) : undefined;
    }
    if (!table || !key || !this.dispatch.names.has(key.text)) return undefined;
    const dictionary = resolveConstant(this.module, table);
    if (dictionary?.type !== 'dictionary') return undefined;
    for (const pair of dictionary.namedChildren) {
      if (pair?.type !== 'pair') continue;
      const name = pair.childForFieldName('key');
      const value = pair.childForFieldName('value');
      if (!name || !value || this.staticText(name).text !== this.dispatch.tool || !this.staticText(name).complete) continue;
      return this.program.resolveFunction(this.module, value);
    }
    return undefined;
  }

  /** `run_git = functools.partial(_run, "git")`: the function and the arguments bound in front. */
  private partialOf(callee: Node): { helper: { module: PyModule; definition: Node }; call: Node } | undefined {
    let module = this.module;
    let value = this.env.has(callee.text) ? this.assignedValues.get(callee.text) : this.module.constants.get(callee.text);
    const binding = value || this.env.has(callee.text) ? undefined : this.module.imports.get(callee.text);
    if (binding?.name) {
      // Defined in another module of the package: `from .runners import lint`.
      const target = this.program.resolveModule(this.module, binding.module, binding.level);
      value = target?.constants.get(binding.name);
      if (target) module = target;
    }
    if (value?.type !== 'call') return undefined;
    const name = qualify(module, dottedName(value.childForFieldName('function')) ?? '');
    if (name !== 'functools.partial') return undefined;
    const target = callArguments(value).positional[0];
    const helper = target ? this.program.resolveFunction(module, target) : undefined;
    return helper ? { helper, call: value } : undefined;
  }

  private callPartial(
    node: Node,
    partial: { helper: { module: PyModule; definition: Node }; call: Node },
    args: CallArguments,
    argTaints: Taint[][],
    keywordTaints: Map<string, Taint[]>,
  ): Taint[] {
    const frozen = callArguments(partial.call);
    const positional = frozen.positional.slice(1);
    const merged: CallArguments = { positional: [...positional, ...args.positional], keywords: new Map([...frozen.keywords, ...args.keywords]), splats: args.splats };
    const mergedKeywords = new Map([...[...frozen.keywords].map(([key, value]) => [key, this.expression(value)] as const), ...keywordTaints]);
    return this.callHelper(node, partial.helper, merged, [...positional.map((argument) => this.expression(argument)), ...argTaints], mergedKeywords);
  }

  /**
   * Substitutes a call's arguments into the callee's summary. `receiver`: the instance of a bound method call, which
   * stands for `self`: an object keeps what it was built or filled from (`Runner(cmd).run()` reads `self.cmd`).
   */
  protected callHelper(
    node: Node,
    helper: { module: PyModule; definition: Node },
    args: CallArguments,
    argTaints: Taint[][],
    keywordTaints: Map<string, Taint[]>,
    receiver: Taint[] = [],
  ): Taint[] {
    const crossFile = helper.module !== this.module;
    const summary = this.engine.summary(helper.module, helper.definition);
    const parameters = functionParameters(helper.definition).map((parameter) => parameterName(parameter)!);
    const offset = parameters[0] === 'self' || parameters[0] === 'cls' ? 1 : 0;
    const bound: Taint[][] = parameters.map((name, index) => {
      if (index < offset) return parameters[0] === 'self' ? receiver.filter((taint) => !taint.envelope) : [];
      return argTaints[index - offset] ?? keywordTaints.get(name) ?? [];
    });
    // `handler(**arguments)`: each parameter takes the argument of its name.
    const mapping = args.splats.filter((splat) => splat.type === 'dictionary_splat').flatMap((splat) => (splat.namedChildren[0] ? this.expression(splat.namedChildren[0]) : []));
    parameters.forEach((name, index) => {
      if (index < offset || (bound[index] ?? []).length > 0) return;
      bound[index] = mapping.filter((taint) => taint.dict).map((taint) => argumentOf(taint, name, this.step(node, `argument ${name}`)));
    });
    const splats = splatParameters(helper.definition);
    bound.push(splats.list ? union(...argTaints.slice(Math.max(0, splats.list.before - offset))) : []);
    bound.push(splats.dict ? union(...[...keywordTaints].filter(([key]) => !parameters.includes(key)).map(([, taints]) => taints)) : []);
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
    if (this.reach && summary.reach) this.mergeAt(this.reach, summary.reach, node, boundNodes);
    for (const hit of summary.hits) {
      const destination = this.engine.destinationParam.get(hit.sink);
      const sink = destination === undefined ? hit.sink : this.destinationAt(hit.sink, boundNodes[destination]);
      for (const taint of adapt(hit.taint)) {
        const placed = placeInArgv(sink, taint);
        this.report(placed.sink, [placed.taint]);
      }
    }
    for (const answer of summary.answers ?? []) {
      const taints = answer.taints.flatMap((taint) => (taint.param ? adapt(taint) : [crossFile ? { ...taint, crossFile: true } : taint]));
      if (taints.length > 0) this.answers.push({ ...answer, taints });
    }
    const returned: Taint[] = [];
    for (const value of summary.returns) {
      if (value.param) returned.push(...adapt(value));
      else returned.push(crossFile ? { ...value, crossFile: true } : value);
    }
    return withStep(union(returned), this.step(node, `returned from ${name}`));
  }
}
