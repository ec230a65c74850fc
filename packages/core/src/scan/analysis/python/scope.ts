// Statements: assignments, branches (with the dispatch on a tool's name in low-level servers), loops, `with` and
// `match`; the top layer of the walk over a function body.
import { classConstant } from './program.js';
import { ExpressionScope } from './expressions.js';
import { callArguments, stringValue, unwrap, type Node } from './syntax.js';
import { baseIdentifier, derive, embedded, isWildcardCase, refuses, union, withStep, type Taint } from './values.js';

export class Scope extends ExpressionScope {
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
        if (value) {
          const taints = this.expression(value);
          this.returns.push(...taints);
          this.returnSites.push({ node, taints });
        }
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
        this.optionally(node);
        return;
      }
      case 'while_statement': {
        const condition = node.childForFieldName('condition');
        if (condition) {
          this.guards(condition, false);
          this.expression(condition);
        }
        this.optionally(node);
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

  /** A loop's body, which may run no time: argv lists afterwards keep what holds either way (see `argvPaths`). */
  private optionally(node: Node): void {
    const paths = this.argvPaths();
    paths.walk(undefined, () => this.children(node));
    paths.join(false);
  }

  /**
   * Walks the paths of a branch (an `if`'s clauses, `match` cases, a loop body) each from the argv words before it, and
   * keeps afterwards what holds on every path that goes on (one that returns or raises does not): a `--` appended on
   * one branch ends the options neither of what another branch appends nor of what is appended after the branch.
   * `join(exhaustive)`: whether some path always runs (an `else`), or the words before may also go on unchanged.
   */
  private argvPaths(): { walk(block: Node | null | undefined, run?: () => void): void; join(exhaustive: boolean): void } {
    const before = new Map(this.argvWords);
    const outcomes: Array<Map<string, Array<string | undefined>>> = [];
    const restore = (words: ReadonlyMap<string, Array<string | undefined>>) => {
      this.argvWords.clear();
      for (const [name, list] of words) this.argvWords.set(name, list);
    };
    return {
      walk: (block, run = () => block && this.block(block)) => {
        restore(before);
        run();
        if (!refuses(block)) outcomes.push(new Map(this.argvWords));
      },
      join: (exhaustive) => {
        const going = exhaustive ? outcomes : [...outcomes, before];
        // Every path returned or raised: nothing after runs, the words before are as good as any.
        restore(going.length > 0 ? joinArgvWords(going) : before);
      },
    };
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
      const words = left.type === 'identifier' ? this.argvWords.get(left.text) : undefined;
      if (words && (right.type === 'list' || right.type === 'tuple')) {
        // `args += [...]` on an argv list: still an argv list, its new words placed after the old ones.
        const appended = this.argvElements(right.namedChildren.filter((child): child is Node => child !== null), words);
        this.argvWords.set(left.text, appended.texts);
        this.env.set(left.text, union(this.env.get(left.text) ?? [], withStep(appended.taints, this.step(node, `appended to ${left.text}`))));
        return;
      }
      const added = embedded(this.expression(right));
      if (left.type === 'identifier') {
        this.argvWords.delete(left.text);
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

  protected assign(target: Node, taints: Taint[], value: Node): void {
    switch (target.type) {
      case 'identifier': {
        const name = target.text;
        this.parameterIndex.delete(name);
        this.assignedValues.set(name, value);
        // `name = params.name` in a dispatcher: the local now holds the requested tool's name.
        if (this.dispatch) {
          if (this.dispatch.names.has(unwrap(value).text) || this.isNameMember(value)) this.dispatch.names.add(name);
          else this.dispatch.names.delete(name);
        }
        // `msg = json.loads(line)` in a JSON-RPC dispatcher's loop: the message is the request a parameter would bring.
        const held = this.dispatch?.messages?.names.has(name) ? union(taints, [this.dispatch.messages.request]) : taints;
        this.env.set(name, withStep(held, this.step(target, `assigned to ${name}`)));
        const type = this.typeOf(value);
        if (type) this.types.set(name, type);
        else this.types.delete(name);
        if (value.type === 'list' || value.type === 'tuple') this.argvWords.set(name, this.literalWords(value));
        else this.argvWords.delete(name);
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
    const paths = this.argvPaths();
    if (decision === undefined && condition) {
      const consequence = node.childForFieldName('consequence');
      this.guards(condition, refuses(consequence));
      this.expression(condition);
      paths.walk(consequence);
    }
    let exhaustive = false;
    for (const alternative of node.childrenForFieldName('alternative')) {
      if (!alternative) continue;
      if (alternative.type === 'elif_clause') {
        const elifCondition = alternative.childForFieldName('condition');
        const elifDecision = elifCondition ? this.dispatchDecision(elifCondition) : undefined;
        const consequence = alternative.childForFieldName('consequence');
        if (elifDecision === true) {
          paths.walk(consequence);
          exhaustive = true;
          break;
        }
        if (elifDecision === false) continue;
        if (elifCondition) {
          this.guards(elifCondition, refuses(consequence));
          this.expression(elifCondition);
        }
        paths.walk(consequence);
      } else {
        paths.walk(alternative.childForFieldName('body'));
        exhaustive = true;
      }
    }
    paths.join(exhaustive);
  }

  /** `req["name"]`, `params.get("name")`, `params.name` on a tools/call request: the requested tool's name. */
  private isNameMember(value: Node): boolean {
    const node = unwrap(value);
    let object: Node | null | undefined;
    if (node.type === 'attribute' && node.childForFieldName('attribute')?.text === 'name') object = node.childForFieldName('object');
    else if (node.type === 'subscript' && stringValue(node.childForFieldName('subscript')) === 'name') object = node.childForFieldName('value');
    else if (node.type === 'call') {
      const callee = node.childForFieldName('function');
      if (callee?.type === 'attribute' && callee.childForFieldName('attribute')?.text === 'get' && stringValue(callArguments(node).positional[0]) === 'name') {
        object = callee.childForFieldName('object');
      }
    }
    return object !== null && object !== undefined && this.expression(object).some((taint) => taint.envelope);
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
    const names = this.dispatch.names;
    const subject = names.has(left.text) ? right : names.has(right.text) ? left : undefined;
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
    const dispatching = this.dispatch !== undefined && subject !== null && subject !== undefined && this.dispatch.names.has(subject.text);
    if (subject) this.expression(subject);
    const paths = this.argvPaths();
    let exhaustive = false;
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
      if (dispatching && !isWildcardCase(clause)) {
        // The case of the tool this walk is for: the one that runs.
        if (consequence) this.block(consequence);
        return;
      }
      paths.walk(consequence);
      exhaustive ||= isWildcardCase(clause);
    }
    paths.join(exhaustive);
  }

}

/**
 * The argv words of lists after paths that joined: a list keeps the words every path agrees on, up to where they part;
 * after that, words not known here (one undefined word, which is no `--` and no option taking a value).
 */
function joinArgvWords(outcomes: ReadonlyArray<ReadonlyMap<string, Array<string | undefined>>>): Map<string, Array<string | undefined>> {
  const joined = new Map<string, Array<string | undefined>>();
  const names = new Set(outcomes.flatMap((words) => [...words.keys()]));
  for (const name of names) {
    const lists = outcomes.map((words) => words.get(name));
    const known = lists.filter((list): list is Array<string | undefined> => list !== undefined);
    const first = known[0]!;
    let same = 0;
    while (same < first.length && known.every((list) => list.length > same && list[same] === first[same])) same++;
    const agree = known.length === lists.length && known.every((list) => list.length === first.length) && same === first.length;
    joined.set(name, agree ? first : [...first.slice(0, same), undefined]);
  }
  return joined;
}
