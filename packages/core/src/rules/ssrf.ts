import { createRule } from './create-rule.js';
import { severityBySource } from './support/exposure.js';
import { describeOrigin, flowFinding, unsanitisedFlows } from './support/flows.js';

export default createRule({
  id: 'ssrf',
  meta: {
    title: 'Tool input chooses the host of an outbound request',
    category: 'ssrf',
    severity: 'medium',
    description:
      'A value the model controls becomes the URL (or its host) of a request the server makes, with no allowlist and no ' +
      'block of private and link-local addresses. A prompt injection can make the server fetch cloud metadata ' +
      '(169.254.169.254), services on localhost or the internal network, and return what it finds.',
    remediation:
      'Check the parsed URL\'s host against an allowlist, or resolve it and refuse loopback, private, link-local and ' +
      'metadata addresses (re-checking after redirects); keep the scheme to http(s).',
    cwe: ['CWE-918'],
    owasp: 'MCP05',
    modes: ['fast', 'deep'],
    confidence: 0.6,
  },
  check(context) {
    for (const flow of unsanitisedFlows(context, ['network'])) {
      // An exposed route that fetches what a client names is a proxy into the user's network: one level up, not critical.
      const { severity, note } = severityBySource(flow, context, 'medium');
      context.report({ ...flowFinding(flow, `${describeOrigin(flow)} decides where \`${flow.sink.callee}\` sends a request${note}`), severity: severity === 'critical' ? 'high' : severity });
    }
  },
});
