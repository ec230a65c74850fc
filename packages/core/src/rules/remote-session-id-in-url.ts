import { createRule } from './create-rule.js';
import { reportObservations } from './support/remote.js';

export default createRule({
  id: 'remote-session-id-in-url',
  meta: {
    title: 'Session id in a remote MCP endpoint URL',
    category: 'insecure-transport',
    severity: 'medium',
    description:
      'The configured endpoint URL carries a session id in its query string. URLs end up in proxy and server logs, browser history and shared config files, so whoever reads them can take over the session. The MCP Streamable HTTP transport keeps the session in the `Mcp-Session-Id` header instead.',
    remediation: 'Remove the session parameter from the URL; let the client negotiate its session through the `Mcp-Session-Id` header.',
    cwe: ['CWE-598'],
    owasp: 'MCP01',
    modes: ['fast', 'deep'],
    liveEndpoint: true,
    confidence: 0.8,
  },
  check(context) {
    reportObservations(context, 'session-id-in-url', (observation) => ({ message: `the endpoint URL carries a session id (${observation.detail})` }));
  },
});
