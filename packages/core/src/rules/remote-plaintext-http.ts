import { createRule } from './create-rule.js';
import { reportObservations } from './support/remote.js';

export default createRule({
  id: 'remote-plaintext-http',
  meta: {
    title: 'Remote MCP endpoint over plain HTTP',
    category: 'insecure-transport',
    severity: 'high',
    description:
      'The endpoint is reached with `http://` on a host other than this machine: every request, its bearer token and every tool result cross the network unencrypted, and anyone on the path can read or change them (including the tool descriptions the model obeys).',
    remediation: 'Serve the endpoint over HTTPS and configure clients with the `https://` URL.',
    cwe: ['CWE-319'],
    owasp: 'MCP01',
    modes: ['fast', 'deep'],
    liveEndpoint: true,
    confidence: 0.95,
  },
  check(context) {
    reportObservations(context, 'plaintext-http', () => ({ message: 'the endpoint is reached over plain HTTP: tokens, tool descriptions and results travel unencrypted' }));
  },
});
