import { createRule } from './create-rule.js';
import { factsOf } from './support/transport.js';

export default createRule({
  id: 'cors-wildcard',
  meta: {
    title: 'CORS allows every origin on an MCP HTTP server',
    category: 'insecure-transport',
    severity: 'medium',
    description:
      '`Access-Control-Allow-Origin: *` (or reflecting any origin) lets scripts on every web site the user visits read ' +
      'the responses of this server. On an MCP endpoint that means any page can call tools and read their results.',
    remediation: 'Allow only the origins of the clients you serve, and require authentication.',
    cwe: ['CWE-942'],
    owasp: 'MCP07',
    modes: ['fast', 'deep'],
    confidence: 0.7,
  },
  check(context) {
    // CORS on some unrelated helper server matters less than on the MCP endpoint itself.
    const servesMcpOverHttp = factsOf(context, 'mcp-http-transport').length > 0;
    for (const fact of factsOf(context, 'cors-wildcard')) {
      context.report({
        message: servesMcpOverHttp
          ? 'CORS allows every origin on a server that exposes MCP over HTTP'
          : 'CORS allows every origin',
        evidence: fact.snippet,
        location: fact.location,
        severity: servesMcpOverHttp ? 'medium' : 'low',
      });
    }
  },
});
