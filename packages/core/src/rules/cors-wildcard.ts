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
    rootCause: 'http-exposure',
    confidence: 0.7,
  },
  check(context) {
    // CORS on some unrelated helper server matters less than on the MCP endpoint itself.
    const servesMcpOverHttp = factsOf(context, 'mcp-http-transport').length > 0;
    // A wildcard without credentials lets other sites read answers, but not authenticate: with a bearer or API-key check
    // beside it (which a page cannot supply), what they can read is only what is public anyway.
    const authenticated = (file: string) => factsOf(context, 'auth-middleware').some((fact) => fact.location.file === file);
    for (const fact of factsOf(context, 'cors-wildcard')) {
      const guarded = authenticated(fact.location.file);
      context.report({
        message:
          (servesMcpOverHttp ? 'CORS allows every origin on a server that exposes MCP over HTTP' : 'CORS allows every origin') +
          (guarded ? '; requests still need a credential a page cannot send' : ''),
        evidence: fact.snippet,
        location: fact.location,
        severity: servesMcpOverHttp && !guarded ? 'medium' : 'low',
      });
    }
  },
});
