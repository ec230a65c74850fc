import { createRule } from './create-rule.js';
import { bindsAllInterfaces, factsOf } from './support/transport.js';

export default createRule({
  id: 'http-transport-exposed',
  meta: {
    title: 'MCP HTTP transport reachable from the network without authentication',
    category: 'insecure-transport',
    severity: 'high',
    description:
      'The server serves MCP over HTTP (Streamable HTTP or SSE) on all network interfaces and nothing checks who is ' +
      'calling. Anyone who can reach the port can list and call its tools with the user\'s credentials and files.',
    remediation:
      'Bind to 127.0.0.1 for local use; when the server must be remote, require authentication (OAuth per the MCP ' +
      'authorization spec, or at least a bearer token checked on every request) and serve it over TLS.',
    cwe: ['CWE-306', 'CWE-1327'],
    owasp: 'MCP07',
    modes: ['fast', 'deep'],
    confidence: 0.7,
  },
  check(context) {
    if (factsOf(context, 'mcp-http-transport').length === 0) return;
    if (factsOf(context, 'auth-middleware').length > 0) return;
    for (const listen of factsOf(context, 'http-listen')) {
      if (!bindsAllInterfaces(listen)) continue;
      const where = listen.detail && listen.detail !== 'default' ? listen.detail : 'all interfaces (no host given)';
      context.report({
        message: `the MCP HTTP transport listens on ${where} and no authentication check guards it`,
        evidence: listen.snippet,
        location: listen.location,
      });
    }
  },
});
