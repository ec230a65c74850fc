// The guard layer of the JS/TS taint pass: reading conditions (`if`, assertions, checks kept in variables, helpers
// that check their arguments) as sanitizers of the origins they test, and the side-effect-free evaluation (`peek`)
// those checks need.
import { SQL_STATEMENT_START, WEAK_GUARDS } from '../catalog.js';
import type { FlowStep } from '../../model.js';
import type { AstNode } from './ast.js';
import { isFunction, lineOf, memberName, snippetOf, unwrap, walk } from './ast.js';
import { resolveCallee } from './callee.js';
import { staticString, staticValue } from './file-index.js';
import { endsWithSeparator, NORMALISING_METHODS } from './guards.js';
import type { Taint } from './labels.js';
import { CLEAN, member, originKey, union } from './labels.js';
import { isHostish, type Ctx } from './engine-context.js';
import { FunctionAnalysis } from './functions.js';

/** A result field whose truth means the check failed. */
const FAILURE_FIELD = /violation|invalid|error|denied|forbidden|outside|escape|unsafe|blocked|reject|traversal|illegal|disallowed|not_?allowed/i;

export abstract class GuardDetection extends FunctionAnalysis {
  /** `if (name === 'run_command')` inside a CallTool dispatcher attributes the branch to that tool. */
  protected toolCase(test: AstNode, ctx: Ctx): string | undefined {
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
  protected peek(node: AstNode, ctx: Ctx): Taint {
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
  protected detectGuards(test: AstNode, ctx: Ctx, depth: number, refusal: boolean, exitsOnTruth = false): void {
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
        if (condition) this.detectGuards(condition, ctx, depth + 1, refusal, exitsOnTruth);
        return false;
      }
      if (node.type === 'MemberExpression' && depth < 2) {
        // A field of a checking helper's result (`const r = await readDoc(p); if (r.found) return r.content;`): the
        // code after the `if` runs on the branch that does not exit. A field that says the check passed (`valid`,
        // `found`) leaves that code checked only when the exit is taken on its falsity (`if (!r.valid) return`); a
        // field that names the failure (`isSecurityViolation`, `error`) only when the exit is taken on its truth.
        const object = unwrap(node.object);
        const condition = object?.type === 'Identifier' ? ctx.scope.findCondition(object.name) : undefined;
        const call = unwrap(condition?.type === 'AwaitExpression' ? condition.argument : condition);
        if (condition && call?.type === 'CallExpression') {
          const exitsWhenFieldTrue = exitsOnTruth !== negated.has(node);
          const namesFailure = FAILURE_FIELD.test(memberName(node) ?? '');
          if (exitsWhenFieldTrue === namesFailure) this.detectGuards(condition, ctx, depth + 1, refusal, exitsOnTruth);
          return false;
        }
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
      if (node.type === 'BinaryExpression' && refusal && /^[<>]=?$/.test(node.operator)) {
        // `if (count > MAX) throw …`, `if (MAX < n) return`: refusing what exceeds a limit the caller does not choose.
        const upper = node.operator.startsWith('>') ? [node.left, node.right] : [node.right, node.left];
        const [checked, limit] = upper.map((side) => this.peek(side as AstNode, ctx));
        if (checked?.length && !limit?.length) guard(checked, 'bounded');
        return true;
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
            const callback = isFunction(unwrap(arg)) ? (unwrap(arg) as AstNode) : undefined;
            const argTaint = callback ? this.callbackSubjects(callback, ctx) : this.peek(arg, ctx);
            if (!argTaint.length) continue;
            // A list of hosts/origins, or a pattern that pins the scheme and host, makes it a URL allowlist.
            const pattern = unwrap(callee.object)?.regex?.pattern as string | undefined;
            const urlList = isHostish(arg, ctx) || isHostish(callee.object, ctx) || (pattern !== undefined && /:\\?\/\\?\//.test(pattern));
            if (urlList) guard(argTaint, 'url-allowlist');
            // `roots.some((root) => isWithin(real, root))`: the callback's own check says what holds (the walk reads it
            // below); only a callback that compares for equality makes the list an allowlist of values.
            else if (!callback || comparesForEquality(callback)) guard(argTaint, 'allowlist');
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
  protected isAssertion(call: AstNode, ctx: Ctx): boolean {
    const callee = unwrap(call.callee);
    const name = callee?.type === 'Identifier' ? callee.name : callee?.type === 'MemberExpression' ? memberName(callee) : undefined;
    if (name && /^(assert|invariant|ok$|strictEqual$)/.test(name)) return true;
    const target = this.resolveCall(call.callee, ctx);
    return target !== undefined && this.helperChecks.of(target.fn, target.file.index)?.throws === true;
  }

  /** Tainted values a guard callback compares against (`list.some((d) => url.hostname.endsWith(d))`). */
  protected callbackSubjects(fn: AstNode, ctx: Ctx): Taint {
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
}

/** `(item) => item === value` or `(item) => { return value == item; }`: a membership test by equality. */
function comparesForEquality(fn: AstNode): boolean {
  const body = fn.body?.type === 'BlockStatement' ? (fn.body.body.length === 1 && fn.body.body[0].type === 'ReturnStatement' ? fn.body.body[0].argument : undefined) : fn.body;
  const test = unwrap(body);
  return test?.type === 'BinaryExpression' && /^[!=]==?$/.test(test.operator);
}
