import { createRule } from './create-rule.js';
import { factsOf, guardsOf } from './support/transport.js';

export default createRule({
  id: 'missing-origin-validation',
  meta: {
    title: 'MCP HTTP transport without Origin/Host validation',
    category: 'insecure-transport',
    severity: 'medium',
    description:
      'The MCP specification requires HTTP servers to validate the Origin header: without it, any web page the user ' +
      'visits can reach a server on localhost through DNS rebinding and call its tools. A check counts only for the ' +
      'servers whose modules load it (an example or debug server beside a guarded one is judged on its own), and a ' +
      'check that is off unless configured (its function returns early until a setting is on) is not a guard.',
    remediation:
      'Enable the SDK\'s DNS-rebinding protection (`enableDnsRebindingProtection: true` with `allowedHosts` / ' +
      '`allowedOrigins`, or `TransportSecuritySettings` in Python), or check Origin and Host in a middleware; require ' +
      'authentication.',
    cwe: ['CWE-346', 'CWE-350'],
    owasp: 'MCP07',
    modes: ['fast', 'deep'],
    rootCause: 'http-exposure',
    confidence: 0.6,
  },
  check(context) {
    for (const transport of factsOf(context, 'mcp-http-transport')) {
      if (guardsOf(context, transport, 'origin-check').length > 0 || guardsOf(context, transport, 'auth-middleware').length > 0) continue;
      context.report({
        message: 'the MCP HTTP transport does not validate Origin or Host and requires no authentication',
        evidence: transport.snippet,
        location: transport.location,
      });
    }
  },
});
