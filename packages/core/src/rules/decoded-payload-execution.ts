import { createRule } from './create-rule.js';
import { flowFinding, unsanitisedFlows } from './support/flows.js';

export default createRule({
  id: 'decoded-payload-execution',
  meta: {
    title: 'Encoded payload decoded and executed',
    category: 'obfuscation',
    severity: 'critical',
    description:
      'A literal that is base64, hex or character codes is decoded at run time and then evaluated, run as a command ' +
      'or imported. Honest code has no reason to hide what it runs; this is the signature of droppers and backdoors ' +
      'in published packages.',
    remediation: 'Remove the payload. If the code is yours, write it in plain source so reviewers and scanners can read it.',
    cwe: ['CWE-506', 'CWE-94'],
    owasp: 'MCP04',
    modes: ['fast', 'deep'],
    confidence: 0.9,
  },
  check(context) {
    for (const flow of unsanitisedFlows(context, ['code', 'command', 'deserialize'], ['decoded-constant'])) {
      const decoded = flow.origin.detail ? `: ${flow.origin.detail}` : '';
      context.report({
        ...flowFinding(flow, `a decoded constant is executed by \`${flow.sink.callee}\``),
        evidence: `${flow.sink.snippet}\ndecoded${decoded}`,
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
