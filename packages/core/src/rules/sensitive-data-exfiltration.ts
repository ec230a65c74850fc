import { createRule } from './create-rule.js';
import { describeOrigin, flowFinding, unsanitisedFlows } from './support/flows.js';

export default createRule({
  id: 'sensitive-data-exfiltration',
  meta: {
    title: 'Environment or credential files sent out of the machine',
    category: 'exfiltration',
    severity: 'critical',
    description:
      'The whole process environment or the contents of credential files (SSH keys, cloud credentials, .env, MCP ' +
      'client configs) reach an outbound request or e-mail. No legitimate MCP server needs to send these anywhere; ' +
      'this is how published malicious servers steal API keys.',
    remediation:
      'Remove the code. If a server needs one credential for its own API, read that one variable and send it only as ' +
      'the credential of that API.',
    cwe: ['CWE-200', 'CWE-359'],
    owasp: 'MCP01',
    modes: ['fast', 'deep'],
    confidence: 0.85,
  },
  check(context) {
    for (const flow of unsanitisedFlows(context, ['network-send', 'network', 'email'], ['env', 'sensitive-file'])) {
      const destination = flow.sink.target ? ` to ${flow.sink.target}` : '';
      context.report({
        ...flowFinding(flow, `${describeOrigin(flow)} is sent out by \`${flow.sink.callee}\`${destination}`),
        severity: flow.origin.kind === 'sensitive-file' || flow.sink.kind !== 'network' ? 'critical' : 'high',
      });
    }
  },
});
