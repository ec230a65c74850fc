import { createRule } from './create-rule.js';
import { factsOf } from './support/transport.js';

export default createRule({
  id: 'missing-origin-validation',
  meta: {
    title: 'MCP HTTP transport without Origin/Host validation',
    category: 'insecure-transport',
    severity: 'medium',
    description:
      'The MCP specification requires HTTP servers to validate the Origin header: without it, any web page the user ' +
      'visits can reach a server on localhost through DNS rebinding and call its tools.',
    remediation:
      'Enable the SDK\'s DNS-rebinding protection (`enableDnsRebindingProtection: true` with `allowedHosts` / ' +
      '`allowedOrigins`, or `TransportSecuritySettings` in Python), or check Origin and Host in a middleware; require ' +
      'authentication.',
    cwe: ['CWE-346', 'CWE-350'],
    owasp: 'MCP07',
    modes: ['fast', 'deep'],
    confidence: 0.6,
  },
  check(context) {
    if (factsOf(context, 'origin-check').length > 0 || factsOf(context, 'auth-middleware').length > 0) return;
    for (const transport of factsOf(context, 'mcp-http-transport')) {
      context.report({
        message: 'the MCP HTTP transport does not validate Origin or Host and requires no authentication',
        evidence: transport.snippet,
        location: transport.location,
      });
    }
  },
});
