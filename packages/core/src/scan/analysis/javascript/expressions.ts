// The expression layer of the JS/TS taint pass: how taint moves through literals, templates, operators, objects,
// members and assignments, where environment and credential-path sources start, and tagged templates (zx, SQL).
import { isSecretName, listElementGuard, namesOneFile } from '../catalog.js';
import { envCapability } from '../capabilities.js';
import type { AstNode } from './ast.js';
import { isFunction, locationOf, memberName, propertyName, snippetOf, unwrap } from './ast.js';
import type { Callee } from './callee.js';
import { resolveCallee } from './callee.js';
import { staticString } from './file-index.js';
import type { Taint } from './labels.js';
import { CLEAN, CONFIG, embed, fixHost, isReceiver, mapTaint, member, newLabel, prefixed, sanitize, segmentBesideText, storedUnder, union } from './labels.js';
import { staticPrefix } from './sinks.js';
import { hasFixedHost, SENSITIVE_PATH, type Ctx, type SinkSite } from './engine-context.js';
import { StatementAnalysis } from './statements.js';
import { isJsonRpcResponse } from '../../extract/json-rpc.js';

export abstract class ExpressionAnalysis extends StatementAnalysis {
  /** Operands of a `+` chain with constant text beside them in the same path segment (see `segmentBesideText`). */
  private readonly besideText = new WeakSet<AstNode>();

  protected abstract call(node: AstNode, ctx: Ctx): Taint;

  /** `name + '.json'`, `'note-' + id`, also inside a longer `+` chain (`dir + '/' + id + '.json'`). */
  private markBesideText(node: AstNode, ctx: Ctx): void {
    let leftLeaf = unwrap(node.left);
    while (leftLeaf?.type === 'BinaryExpression' && leftLeaf.operator === '+') leftLeaf = unwrap(leftLeaf.right);
    const right = unwrap(node.right);
    const text = (part: AstNode | undefined) => staticString(part, ctx.file.index);
    const after = text(right);
    const before = text(leftLeaf);
    if (leftLeaf && before === undefined && after !== undefined && namesOneFile(undefined, after)) this.besideText.add(leftLeaf);
    else if (right && after === undefined && before !== undefined && namesOneFile(before, undefined)) this.besideText.add(right);
  }

  protected expr(node: AstNode | null | undefined, ctx: Ctx): Taint {
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
          let part = this.expr(expression, ctx);
          // `${encodeURIComponent(name)}.json`: one file name in its folder.
          if (namesOneFile(node.quasis[position]?.value.cooked, node.quasis[position + 1]?.value.cooked)) part = segmentBesideText(part);
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
          leading.every((label) => label.origin.kind === 'config' || label.hostFixed || isReceiver(label));
        if (!configuredBase) return mixed;
        // `${this.baseUrl}/…` in a method: the instance's own field stays as it is, for the call site's instance to decide.
        return union(fixHost(mixed.filter((label) => !isReceiver(label))), mixed.filter(isReceiver));
      }
      case 'BinaryExpression': {
        if (node.operator === '+') this.markBesideText(node, ctx);
        let left = this.expr(node.left, ctx);
        let right = this.expr(node.right, ctx);
        if (this.besideText.has(unwrap(node.left) as AstNode)) left = segmentBesideText(left);
        if (this.besideText.has(unwrap(node.right) as AstNode)) right = segmentBesideText(right);
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
        const response = isJsonRpcResponse(node);
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
              if (response && key === 'result') this.answered(property.value, stored, ctx);
              taint = union(taint, key === undefined ? stored : mapTaint(stored, (label) => storedUnder(label, key)));
            }
          }
        }
        return taint;
      }
      case 'ThisExpression':
        return ctx.receiver ?? CLEAN;
      case 'MemberExpression': {
        const object = unwrap(node.object);
        if (object?.type === 'Identifier' && object.name === 'process' && memberName(node) === 'env') {
          this.noteCapabilities([envCapability('process.env', locationOf(ctx.file.index.parsed, node))], ctx);
          return [newLabel({ kind: 'env', detail: 'process.env' }, [this.sourceStep(ctx.file, node, 'reads process.env', 'environment')])];
        }
        if (object?.type === 'MemberExpression' && unwrap(object.object)?.name === 'process' && memberName(object) === 'env') {
          // One named variable (an API key sent to its own API) is normal; the whole environment is not. A credential
          // is followed to the places secrets must not be kept (logs, tool results) and is configuration elsewhere.
          const name = node.computed ? staticString(node.property, ctx.file.index) : memberName(node);
          this.noteCapabilities([envCapability(`process.env.${name ?? '[…]'}`, locationOf(ctx.file.index.parsed, node))], ctx);
          if (name !== undefined && isSecretName(name)) {
            const detail = `process.env.${name}`;
            return [newLabel({ kind: 'secret', detail }, [this.sourceStep(ctx.file, node, `reads ${detail}`, 'environment')])];
          }
          return CONFIG;
        }
        const taint = this.expr(node.object, ctx);
        if (node.computed) this.expr(node.property, ctx);
        const name = node.computed ? staticString(node.property, ctx.file.index) : memberName(node);
        // A value's own length is no more than the caller already sent: a size derived from it is bounded by the input.
        if (name === 'length' && taint.length) return sanitize(member(taint, name), 'bounded');
        return member(taint, name);
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
          // A new value: what was known of the list it held is not known of it.
          ctx.scope.lists.delete(left.name);
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
   * with a constant start): see catalog.ts `listElementGuard`. `before`: the words the list already holds, as far as
   * they matter here (a pushed element follows words not known here, or a `--` pushed earlier).
   */
  protected listElements(elements: ReadonlyArray<AstNode | null>, ctx: Ctx, evaluated?: readonly Taint[], before: readonly (string | undefined)[] = []): Taint {
    let taint: Taint = CLEAN;
    const previous: Array<string | undefined> = [...before];
    for (const [position, element] of elements.entries()) {
      if (!element) continue;
      const value = element.type === 'SpreadElement' ? element.argument : element;
      const text = staticString(value, ctx.file.index);
      let part = evaluated?.[position] ?? this.expr(element, ctx);
      if (part.length) {
        const guard = listElementGuard(previous, text === undefined ? staticPrefix(value, ctx.file.index) : text);
        if (guard) part = sanitize(part, guard);
        taint = union(taint, part);
      }
      previous.push(element.type === 'SpreadElement' ? undefined : text);
    }
    return taint;
  }

  protected localConstant(node: AstNode | undefined, ctx: Ctx): string | undefined {
    const current = unwrap(node);
    return current?.type === 'Identifier' ? ctx.scope.findConstant(current.name) : undefined;
  }

  /** A value mixed into a string: embedded if there is other text, and host-fixed when a constant `scheme://host/` precedes it. */
  protected mixed(taint: Taint, node: AstNode, hasText: boolean, ctx: Ctx): Taint {
    let out = hasText ? embed(taint) : taint;
    if (hasFixedHost(staticPrefix(node, ctx.file.index))) out = fixHost(out);
    return out;
  }

  protected taggedTemplate(node: AstNode, ctx: Ctx): Taint {
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
}
