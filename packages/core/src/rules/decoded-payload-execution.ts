import { createRule } from './create-rule.js';
import { flowFinding, unsanitisedFlows } from './support/flows.js';

export default createRule({
  id: 'decoded-payload-execution',
  meta: {
    title: 'Encoded payload decoded and executed',
    category: 'obfuscation',
    severity: 'critical',
    description:
      'A literal that is base64, hex, character codes, reversed, XOR-ed with a constant key or rot13 (or a chain of ' +
      'these) is decoded at run time and then evaluated, run as a command, imported, or used as the address of a ' +
      'request. Honest code has no reason to hide what it runs or where it connects; this is the signature of ' +
      'droppers and backdoors in published packages. The finding shows the decoded text when the literal can be ' +
      'decoded statically.',
    remediation: 'Remove the payload. If the code is yours, write it in plain source so reviewers and scanners can read it.',
    cwe: ['CWE-506', 'CWE-94'],
    owasp: 'MCP04',
    modes: ['fast', 'deep'],
    confidence: 0.9,
  },
  check(context) {
    for (const flow of unsanitisedFlows(context, ['code', 'command', 'deserialize', 'network'], ['decoded-constant'])) {
      const decoded = flow.origin.detail ? `: ${flow.origin.detail}` : '';
      // A hidden address is a strong signal, but a request is not code running: one step below.
      const request = flow.sink.kind === 'network';
      context.report({
        ...flowFinding(flow, request ? `a decoded constant is the address \`${flow.sink.callee}\` connects to` : `a decoded constant is executed by \`${flow.sink.callee}\``),
        evidence: `${flow.sink.snippet}\ndecoded${decoded}`,
        ...(request && { severity: 'high' as const }),
      });
    }
    for (const fact of context.facts) {
      // Computed module names are common (plugin loaders); only a name decoded from an encoded literal is hiding something.
      if (fact.kind !== 'dynamic-require' || !fact.detail?.startsWith('decoded:')) continue;
      context.report({
        message: `a module is loaded from a decoded or computed name: ${fact.detail}`,
        evidence: fact.snippet,
        location: fact.location,
        severity: 'high',
      });
    }
  },
});
