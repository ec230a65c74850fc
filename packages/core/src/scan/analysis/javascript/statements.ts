// The statement layer of the JS/TS taint pass: statements in source order (declarations, branches with their guards,
// tool dispatch by `switch`/`if` on the tool name, loops, classes) and the binding of values to patterns.
import type { AstNode } from './ast.js';
import { isFunction, lineOf, memberName, propertyName, unwrap, walk } from './ast.js';
import { staticString } from './file-index.js';
import { CONDITION_TYPES, operatorSwitch, refuses } from './guards.js';
import type { Taint } from './labels.js';
import { addStep, CLEAN, mapTaint, member, outerField, storedUnder, union } from './labels.js';
import type { Ctx } from './engine-context.js';
import { GuardDetection } from './guard-detection.js';

/** Initialisers that may build a path from constant parts (`path.join(os.homedir(), '.bashrc')`, a template). */
const PATH_SHAPES = new Set(['CallExpression', 'TemplateLiteral', 'BinaryExpression']);

export abstract class StatementAnalysis extends GuardDetection {
  /** Keeps the constant shape of a local path for the capabilities of the sinks it later reaches. */
  protected abstract notePath(name: string, init: AstNode, ctx: Ctx): void;

  protected statements(statements: AstNode[], ctx: Ctx): void {
    const declared: string[] = [];
    for (const statement of statements) {
      if (ctx.budget.left <= 0) break;
      this.statement(statement, ctx);
      this.noteList(statement, declared, ctx);
    }
    // The lists declared here end with the block.
    for (const name of declared) ctx.scope.lists.delete(name);
  }

  /**
   * Keeps what is known of a list an argv may be built in: the words of the literal it is declared with, and whether a
   * `--` has ended its options, so that elements pushed later are operands (`args.push('--'); if (file)
   * args.push(file)`). Only a `--` pushed by a statement of the block that declares the list counts: it has run
   * whenever a later statement of that block (or of a block inside it) runs. One pushed in a branch or a loop may not
   * have run, so it is not remembered; an element pushed before it, on any branch, was walked before it and stays
   * where an option can stand. `declared`: the names declared so far in the block.
   */
  private noteList(statement: AstNode, declared: string[], ctx: Ctx): void {
    if (statement.type === 'VariableDeclaration') {
      for (const declarator of statement.declarations) {
        if (declarator.id.type !== 'Identifier') continue;
        declared.push(declarator.id.name);
        const init = unwrap(declarator.init);
        if (init?.type !== 'ArrayExpression') ctx.scope.lists.delete(declarator.id.name);
        else {
          const start = (init.elements as Array<AstNode | null>).map((element) => (element && element.type !== 'SpreadElement' ? staticString(element, ctx.file.index) : undefined));
          ctx.scope.lists.set(declarator.id.name, { start, ended: false });
        }
      }
      return;
    }
    const call = statement.type === 'ExpressionStatement' ? unwrap(statement.expression) : undefined;
    const callee = call?.type === 'CallExpression' ? unwrap(call.callee) : undefined;
    const list = callee?.type === 'MemberExpression' && memberName(callee) === 'push' ? unwrap(callee.object) : undefined;
    const known = list?.type === 'Identifier' && declared.includes(list.name) ? ctx.scope.lists.get(list.name) : undefined;
    if (known && (call!.arguments as AstNode[]).some((arg) => staticString(arg, ctx.file.index) === '--')) known.ended = true;
  }

  protected statement(node: AstNode, ctx: Ctx): void {
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
          const text = declarator.id.type === 'Identifier' && (node.kind === 'const' || ctx.reach) ? staticString(init, ctx.file.index) : undefined;
          if (text !== undefined && node.kind === 'const') ctx.scope.constants.set(declarator.id.name, text);
          // A `let` may change later; for the capability list its first value is still the best guess of the path.
          else if (text !== undefined && ctx.reach) ctx.scope.paths.set(declarator.id.name, text);
          else if (declarator.id.type === 'Identifier' && ctx.reach && PATH_SHAPES.has(init.type)) this.notePath(declarator.id.name, init, ctx);
          this.bind(declarator.id, this.expr(declarator.init, ctx), ctx, true);
          if (declarator.id.type === 'Identifier') {
            ctx.scope.instances.set(declarator.id.name, this.classes.instanceOf(init, { file: ctx.file, scope: ctx.scope, ...(ctx.self && { self: ctx.self }) }) ?? null);
          }
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
        if (node.argument) this.returned(node, this.expr(node.argument, ctx), ctx);
        return;
      case 'IfStatement': {
        const tool = this.toolCase(node.test, ctx);
        this.expr(node.test, ctx);
        const refusal = refuses(node.consequent) || (node.alternate !== null && refuses(node.alternate));
        const outer = { guards: ctx.guards, own: ctx.ownGuards };
        // A check that neither throws nor returns proves something inside its branch only: guards it adds are dropped
        // after the branch (copy on write, so the outer map stays as it was).
        if (!refusal) ctx.ownGuards = false;
        this.detectGuards(node.test, ctx, 0, refusal, refuses(node.consequent));
        const scoped = !refusal && ctx.guards !== outer.guards;
        const optIn = ctx.self?.kind === 'class' ? operatorSwitch(node.test, ctx.self.info) : undefined;
        if (tool !== undefined || optIn !== undefined) {
          const previous = { tool: ctx.currentTool, optIn: ctx.operatorSwitch };
          ctx.currentTool = tool ?? previous.tool;
          ctx.operatorSwitch = optIn ?? previous.optIn;
          this.statement(node.consequent, ctx);
          ctx.currentTool = previous.tool;
          ctx.operatorSwitch = previous.optIn;
        } else this.statement(node.consequent, ctx);
        if (!refusal) {
          ctx.guards = outer.guards;
          ctx.ownGuards = outer.own;
        }
        // `if (inside(p, root)) { ok = true; break; }` … `if (!ok) throw`: the flag carries the check to the refusal.
        if (scoped) for (const flag of flagsSetTrue(node.consequent)) ctx.scope.conditions.set(flag, node.test);
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
        let right = this.expr(node.right, ctx);
        const left = node.left.type === 'VariableDeclaration' ? node.left.declarations[0]?.id : node.left;
        // `for (const [name, value] of Object.entries(process.env)) if (/^npm_config_/.test(name)) …`: a variable
        // picked by its name is one configuration value (like `process.env.X`), not the environment.
        if (left?.type === 'ArrayPattern' && selectsEntriesByName(node, left)) right = mapTaint(right, (label) => (label.origin.kind === 'env' ? undefined : label));
        if (left) this.bind(left, node.type === 'ForInStatement' ? CLEAN : right, ctx, true);
        this.statement(node.body, ctx);
        return;
      }
      case 'ForStatement':
        if (node.init?.type === 'VariableDeclaration') this.statement(node.init, ctx);
        else if (node.init) this.expr(node.init, ctx);
        if (node.test) this.loopBound(node, ctx);
        if (node.update) this.expr(node.update, ctx);
        this.statement(node.body, ctx);
        return;
      case 'WhileStatement':
      case 'DoWhileStatement':
        this.loopBound(node, ctx);
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

  /**
   * A loop's test: `i < n` runs the body `n` times, so the bound is a size (CWE-400). A list's own `length` or `size`
   * is not: the caller already sent every element.
   */
  protected loopBound(loop: AstNode, ctx: Ctx): void {
    const test: AstNode = loop.test;
    this.expr(test, ctx);
    const node = unwrap(test);
    if (node?.type !== 'BinaryExpression' || !/^[<>]=?$/.test(node.operator)) return;
    const bound = unwrap(node.operator.startsWith('<') ? node.right : node.left);
    if (!bound || (bound.type === 'MemberExpression' && /^(length|size)$/.test(memberName(bound) ?? ''))) return;
    // A loop that can also leave early (`break` at end of file, `return` once found) ends at whichever comes first.
    if (leavesEarly(loop.body)) return;
    this.sinkFlows([{ kind: 'allocation', node: bound }], new Map(), { name: 'loop', display: 'loop bound' }, test, ctx);
  }

  protected classBody(node: AstNode, ctx: Ctx): void {
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

  protected bind(pattern: AstNode, taint: Taint, ctx: Ctx, note: boolean): void {
    switch (pattern.type) {
      case 'Identifier': {
        const stepped = note && taint.length
          ? addStep(taint, { file: ctx.file.index.parsed.file.path, line: lineOf(ctx.file.index.parsed, pattern.start), note: `assigned to ${pattern.name}` })
          : taint;
        ctx.scope.declare(pattern.name, stepped);
        return;
      }
      case 'ObjectPattern': {
        const named = new Set<string>();
        for (const property of pattern.properties) {
          const key = property.type === 'RestElement' ? undefined : propertyName(property.key, property.computed);
          if (key !== undefined) named.add(key);
          // `{ apiKey, ...rest }`: the rest holds every property but the ones taken out by name.
          if (property.type === 'RestElement') this.bind(property.argument, mapTaint(taint, (label) => (label.field !== undefined && named.has(outerField(label.field)) ? undefined : label)), ctx, note);
          else this.bind(property.value, member(taint, key), ctx, note);
        }
        return;
      }
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
        // `options.body = data` taints the object it is stored in, under the property it went to: `options.body` (and
        // `options` as a whole) carries it, `options.headers` does not. A computed key may be any property.
        if (!taint.length) return;
        const path: string[] = [];
        let stored = true;
        let root: AstNode | undefined = pattern;
        for (; root?.type === 'MemberExpression'; root = unwrap(root.object)) {
          const key = root.computed ? undefined : memberName(root);
          if (key === undefined) stored = false;
          else path.unshift(key);
        }
        const under = (keys: readonly string[]): Taint => mapTaint(taint, (label) => keys.reduceRight((inner, key) => storedUnder(inner, key), label));
        if (root?.type === 'Identifier') ctx.scope.assign(root.name, stored ? under(path) : taint);
        // `this.host = host` in a constructor: what each instance holds in that field (see `instanceContent`).
        const [field, ...rest] = path;
        if (root?.type === 'ThisExpression' && stored && field !== undefined && ctx.summary?.fields) {
          ctx.summary.fields.set(field, [...union(ctx.summary.fields.get(field) ?? CLEAN, under(rest))]);
        }
        return;
      }
      default:
        return;
    }
  }
}

/** Variables a branch sets to `true` (`allowed = true`), not counting nested functions. */
function flagsSetTrue(branch: AstNode): string[] {
  const flags: string[] = [];
  walk(branch, (node) => {
    if (isFunction(node)) return false;
    const left = node.type === 'AssignmentExpression' && node.operator === '=' ? unwrap(node.left) : undefined;
    if (left?.type === 'Identifier' && unwrap(node.right)?.type === 'Literal' && unwrap(node.right)?.value === true) flags.push(left.name);
    return true;
  });
  return flags;
}

/** A loop over `Object.entries(x)` whose body tests the entry's name (`.test(name)`, `.exec(name)`, `name === …`). */
function selectsEntriesByName(loop: AstNode, pattern: AstNode): boolean {
  const source = unwrap(loop.right);
  const callee = source?.type === 'CallExpression' ? unwrap(source.callee) : undefined;
  const key = pattern.elements[0];
  if (callee?.type !== 'MemberExpression' || memberName(callee) !== 'entries' || key?.type !== 'Identifier') return false;
  let tested = false;
  walk(loop.body, (node) => {
    if (tested) return false;
    const uses = (arg: AstNode | undefined) => unwrap(arg)?.type === 'Identifier' && unwrap(arg)?.name === key.name;
    if (node.type === 'CallExpression') {
      const method = unwrap(node.callee)?.type === 'MemberExpression' ? memberName(unwrap(node.callee) as AstNode) : undefined;
      if ((method === 'test' || method === 'exec' || method === 'match') && node.arguments.some(uses)) tested = true;
      if ((method === 'startsWith' || method === 'endsWith' || method === 'match') && uses(unwrap(node.callee)?.object)) tested = true;
    }
    if (node.type === 'BinaryExpression' && /^[!=]==?$/.test(node.operator) && (uses(node.left) || uses(node.right))) tested = true;
    return !tested;
  });
  return tested;
}

const INNER_BREAK_TARGETS = /^(For|ForOf|ForIn|While|DoWhile|Switch)Statement$/;

/** Whether a loop body can leave the loop: a `return`, or a `break` that is not an inner loop's or switch's. */
function leavesEarly(body: AstNode, breaks = true): boolean {
  let found = false;
  walk(body, (node) => {
    if (found || isFunction(node)) return false;
    if (node.type === 'ReturnStatement' || (breaks && node.type === 'BreakStatement')) {
      found = true;
      return false;
    }
    if (node !== body && INNER_BREAK_TARGETS.test(node.type)) {
      found = leavesEarly(node, false);
      return false;
    }
    return true;
  });
  return found;
}
