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
    rootCause: 'http-exposure',
    confidence: 0.7,
  },
  check(context) {
    const transports = factsOf(context, 'mcp-http-transport');
    if (transports.length === 0) return;
    if (factsOf(context, 'auth-middleware').length > 0) return;
    // A package may run other HTTP servers too (metrics, OAuth callbacks). When a file both creates the MCP transport
    // and listens, those listen calls are the transport's; otherwise any listen call may be.
    const transportFiles = new Set(transports.map((fact) => fact.location.file));
    const listens = factsOf(context, 'http-listen');
    const besideTransport = listens.filter((fact) => transportFiles.has(fact.location.file));
    for (const listen of besideTransport.length > 0 ? besideTransport : listens) {
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
