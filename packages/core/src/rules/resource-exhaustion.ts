import { createRule } from './create-rule.js';
import type { RuleContext } from './create-rule.js';
import { describeOrigin, flowFinding, toolNamed, unsanitisedFlows } from './support/flows.js';
import type { TaintFlow } from '../scan/model.js';

/** A tool that says it takes a regular expression (in its name, its description or a parameter's description). */
const DECLARES_REGEX = /\b(regex\w*|regexp|regular[\s-]+expressions?)\b/i;

export default createRule({
  id: 'resource-exhaustion',
  meta: {
    title: 'Tool input sizes an allocation, a loop or a regular expression without a bound',
    // No denial-of-service category exists: an unbounded size is a capability the tool hands the caller beyond its
    // purpose (making the server allocate or spin as much as asked), which is what excessive-capability covers.
    category: 'excessive-capability',
    severity: 'medium',
    description:
      'A value the model or a client controls becomes a loop count, a buffer, array or string length (`Buffer.alloc(n)`, ' +
      "`'x'.repeat(n)`, `Array.from({ length: n })`, `range(n)`, `[0] * n`), or the text of a regular expression " +
      '(`new RegExp(input)`, `re.compile(input)`), with no upper bound checked first. One call can exhaust the ' +
      "server's memory or CPU, and a crafted pattern backtracks catastrophically (ReDoS). Medium at most: it stops the " +
      'server, it does not run code or leak data.',
    remediation:
      'Bound the value before use: `Math.min(n, MAX)`, `if (n > MAX) throw`, a schema maximum (`z.number().int().max(1000)`, ' +
      "`maximum` in JSON schema, pydantic `Field(le=1000)`), or an allowlist. Escape text meant to be matched literally " +
      '(`escapeRegExp`, `re.escape`) instead of compiling it.',
    cwe: ['CWE-400', 'CWE-1333'],
    owasp: 'MCP02',
    modes: ['fast', 'deep'],
    confidence: 0.6,
  },
  check(context) {
    for (const flow of unsanitisedFlows(context, ['allocation', 'regex'], ['tool-input', 'http-request'])) {
      // A size is the caller's choice only when it is a number they chose (a number-typed parameter or a numeric
      // conversion); a count measured from text they sent (a run of backticks, a match) is no larger than that text.
      if (flow.sink.kind === 'allocation' && !flow.sanitizers.includes('numeric')) continue;
      // A tool whose purpose is to run the caller's expression (a regex tester, a search "by regular expression")
      // is not misleading anyone; one pattern can still stall the server, which is worth a low note.
      if (flow.sink.kind === 'regex' && declaresRegex(context, flow)) {
        const text = `${message(flow)}. The tool says it takes a regular expression, so compiling it is its purpose; bound the time or use a linear-time engine (RE2)`;
        context.report({ ...flowFinding(flow, text), severity: 'low' });
        continue;
      }
      context.report({ ...flowFinding(flow, message(flow)), severity: 'medium' });
    }
  },
});

function message(flow: TaintFlow): string {
  const origin = describeOrigin(flow);
  // A method on a literal (`'='.repeat(n)`) has no receiver name to show.
  const callee = flow.sink.callee.replace(/^\?\./, '');
  if (flow.sink.kind === 'regex') {
    return `${origin} is compiled as a regular expression by \`${callee}\`: a pattern such as \`(a+)+$\` backtracks for minutes on a short text`;
  }
  if (callee === 'loop bound') return `${origin} sets how many times a loop runs, with no upper bound checked first`;
  return `${origin} is the size or count given to \`${callee}\`, with no upper bound checked first`;
}

function declaresRegex(context: RuleContext, flow: TaintFlow): boolean {
  const tool = toolNamed(context, flow.origin.tool);
  if (!tool) return false;
  // The whole tool's text: compiled code often passes the arguments object on, so the flow names no single parameter.
  const texts = [tool.name.replace(/_/g, ' '), tool.description ?? '', ...tool.parameters.map((parameter) => parameter.description ?? '')];
  return DECLARES_REGEX.test(texts.join('\n'));
}
