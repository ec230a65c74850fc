// Guards in conditions: containment, allowlist, pattern and prefix checks mark the checked variable with the
// sanitizer they prove, or with a weak guard where the check does not hold.
import type { FlowStep } from '../../model.js';
import { FIXED_HOST, RESOLVE_CALLS } from './catalog.js';
import { SQL_STATEMENT_START } from '../catalog.js';
import { qualify } from './program.js';
import { ScopeState } from './state.js';
import { callArguments, dottedName, snippet, type Node } from './syntax.js';
import { baseIdentifier, MAX_STEPS, withSanitizer } from './values.js';

export abstract class GuardScope extends ScopeState {

  /**
   * Recognises containment, allowlist and pattern checks in a condition and marks the checked variable. `refusal`:
   * the branch the condition guards raises or returns, so a check that does not hold (a weak guard) is reported there.
   */
  protected guards(condition: Node, refusal = true): void {
    for (const call of [condition, ...condition.descendantsOfType('call')]) {
      if (!call || call.type !== 'call') continue;
      const callee = call.childForFieldName('function');
      const method = callee?.type === 'attribute' ? callee.childForFieldName('attribute')?.text : undefined;
      const args = callArguments(call);
      if (method === 'startswith' || method === 'is_relative_to' || method === 'relative_to') {
        const subject = this.guardSubject(callee!.childForFieldName('object')!);
        if (!subject) continue;
        const prefixNode = method === 'startswith' ? args.positional[0] : undefined;
        const prefix = prefixNode ? this.staticText(prefixNode) : undefined;
        // url.startswith("https://api.example.com/") pins the host; url.startswith("https://") pins nothing.
        if (prefix?.complete && /^[a-z][a-z0-9+.-]*:/i.test(prefix.text)) {
          if (FIXED_HOST.test(prefix.text)) this.mark(subject.name, 'url-allowlist');
        } else if (prefix?.complete && SQL_STATEMENT_START.test(prefix.text)) {
          if (refusal) this.markWeak(subject.name, 'sql-keyword-prefix', call);
        } else if (prefix?.complete && !/[\\/]/.test(prefix.text) && (prefix.text === '-' || !prefix.text.startsWith('-'))) {
          // Checked against a fixed start that is not a directory (`'-'`, `'v'`): it cannot be read as an option.
          this.mark(subject.name, 'no-leading-dash');
        } else if (prefixNode && !prefix?.complete && !this.endsWithSeparator(prefixNode)) {
          // `path.startswith(root)` with a root that has no trailing separator also admits `/root-other`.
          if (refusal) this.markWeak(subject.name, 'prefix-without-separator', call);
        } else {
          this.markContainment(subject.name, subject.resolved);
        }
        continue;
      }
      const name = dottedName(callee);
      const qualified = name ? qualify(this.module, name) : '';
      if (qualified === 'os.path.commonpath' || qualified === 'os.path.commonprefix') {
        for (const identifier of call.descendantsOfType('identifier')) if (identifier && this.env.has(identifier.text)) this.markContainment(identifier.text);
        continue;
      }
      if (/^re\.(fullmatch|match)$/.test(qualified) || method === 'fullmatch' || method === 'match') {
        const subject = qualified.startsWith('re.') ? args.positional[1] : args.positional[0];
        const base = subject ? baseIdentifier(subject) : undefined;
        if (base) this.mark(base, 'pattern-check');
      }
    }
    for (const comparison of [condition, ...condition.descendantsOfType('comparison_operator')]) {
      if (!comparison || comparison.type !== 'comparison_operator') continue;
      const operators = comparison.children.filter((child) => child && !child.isNamed).map((child) => child!.text);
      if (refusal && operators.length === 1 && /^[<>]=?$/.test(operators[0] ?? '')) {
        // `if count > MAX: raise …`, `if MAX < len(text): return`: refusing what exceeds a limit.
        const [first, second] = comparison.namedChildren;
        const checked = operators[0]!.startsWith('>') ? first : second;
        const subject = checked ? baseIdentifier(checked.type === 'call' ? (callArguments(checked).positional[0] ?? checked) : checked) : undefined;
        if (subject) this.mark(subject, 'bounded');
        continue;
      }
      if (!operators.some((operator) => operator === 'in' || operator === 'not in')) continue;
      const left = comparison.namedChildren[0];
      if (!left) continue;
      const part = left.type === 'attribute' ? left.childForFieldName('attribute')?.text : undefined;
      // `urlparse(url).hostname in ALLOWED` pins the host; `.scheme in ("http", "https")` gives the opener a web
      // address, not `file:` or a protocol handler. Either guards the URL it was parsed from.
      const sanitizer = part === 'scheme' ? 'url-scheme' : part !== undefined && /^(hostname|netloc|host)$/.test(part) ? 'url-allowlist' : undefined;
      if (sanitizer) {
        const object = left.childForFieldName('object')!;
        const subject = object.type === 'call' ? this.urlParseSubject(object) : baseIdentifier(object);
        if (subject) {
          this.mark(subject, sanitizer);
          const source = this.derivedFrom.get(subject);
          if (source) this.mark(source, sanitizer);
        }
      } else if (left.type === 'identifier') {
        this.mark(left.text, 'allowlist');
      }
    }
  }

  /** A check that does not hold: kept on the value with the place it was made, so the finding can point at it. */
  protected markWeak(name: string, sanitizer: string, at: Node): void {
    const taints = this.env.get(name);
    if (!taints) return;
    const step: FlowStep = { file: this.module.path, line: at.startPosition.row + 1, note: `checked by \`${snippet(at)}\``, guard: sanitizer };
    this.env.set(name, withSanitizer(taints, sanitizer).map((taint) => ({ ...taint, steps: [...taint.steps, step].slice(-MAX_STEPS) })));
  }

  /** `root + os.sep`, `f"{root}/"`, `os.path.join(root, "")`: a containment prefix that ends with a separator. */
  protected endsWithSeparator(node: Node): boolean {
    if (node.type === 'binary_operator') {
      const right = node.childForFieldName('right');
      return right !== null && (/(^|\.)sep$/.test(right.text) || /[\\/]$/.test(this.staticText(right).text));
    }
    if (node.type === 'string') return /[\\/]['"]$/.test(node.text.replace(/\}['"]$/, ''));
    if (node.type === 'call' && qualify(this.module, dottedName(node.childForFieldName('function')) ?? '') === 'os.path.join') {
      const last = callArguments(node).positional.at(-1);
      return last !== undefined && this.staticText(last).complete && this.staticText(last).text === '';
    }
    if (node.type === 'identifier') {
      const assigned = this.assignedValues.get(node.text);
      return assigned !== undefined && this.endsWithSeparator(assigned);
    }
    return false;
  }

  protected markContainment(name: string, resolvedHere = false): void {
    const taints = this.env.get(name);
    if (!taints) return;
    const resolved = resolvedHere || taints.some((taint) => taint.resolved);
    this.mark(name, resolved ? 'realpath-containment' : 'path-containment');
  }

  /** The variable a check is about, looking through `str(x)`, `os.path.realpath(x)`, `Path(x).resolve()` and the like. */
  protected guardSubject(node: Node): { name: string; resolved: boolean } | undefined {
    let resolved = false;
    let current: Node | null | undefined = node;
    for (let depth = 0; current && depth < 6; depth++) {
      if (current.type === 'identifier') return { name: current.text, resolved };
      if (current.type === 'parenthesized_expression') {
        current = current.namedChildren[0];
        continue;
      }
      if (current.type !== 'call') return undefined;
      const callee = current.childForFieldName('function');
      const method = callee?.type === 'attribute' ? callee.childForFieldName('attribute')?.text : undefined;
      if (method === 'resolve' || method === 'absolute') {
        resolved = true;
        current = callee!.childForFieldName('object');
        continue;
      }
      // `query.strip().lower().startswith('select')` checks `query`: these change case and spacing, not content.
      if (method !== undefined && /^(strip|lstrip|rstrip|lower|upper|casefold)$/.test(method)) {
        current = callee!.childForFieldName('object');
        continue;
      }
      const qualified = qualify(this.module, dottedName(callee) ?? '');
      if (RESOLVE_CALLS.has(qualified)) resolved = true;
      else if (qualified !== 'str' && qualified !== 'pathlib.Path' && qualified !== 'os.fspath') return undefined;
      current = callArguments(current).positional[0];
    }
    return undefined;
  }

  protected mark(name: string, sanitizer: string): void {
    const taints = this.env.get(name);
    if (taints) this.env.set(name, withSanitizer(taints, sanitizer));
  }

  /** `urlparse(url)` / `urlsplit(url)` / `httpx.URL(url)` → the name of `url`. */
  protected urlParseSubject(call: Node): string | undefined {
    const name = dottedName(call.childForFieldName('function'));
    if (!name || !/(^|\.)(urlparse|urlsplit|URL|urllib\.parse\.urlparse)$/.test(name)) return undefined;
    const subject = callArguments(call).positional[0];
    return subject ? baseIdentifier(subject) : undefined;
  }
}
