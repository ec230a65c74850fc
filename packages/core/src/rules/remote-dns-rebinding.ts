import { createRule } from './create-rule.js';
import { reportObservations } from './support/remote.js';

export default createRule({
  id: 'remote-dns-rebinding',
  meta: {
    title: 'Remote MCP endpoint accepts requests from any web origin',
    category: 'insecure-transport',
    severity: 'medium',
    description:
      "svc sent one extra `initialize` with `Origin: https://evil.example`, as a web page the user visits would through DNS rebinding, and the server accepted it. The MCP transport spec requires servers to validate Origin: without it, a page can drive the server from the user's browser and call its tools with the user's network position.",
    remediation: "Validate the Origin header against the clients you serve (the SDK's `allowedOrigins` with DNS-rebinding protection, or a middleware) and answer 403 to others; require authentication.",
    cwe: ['CWE-346', 'CWE-350'],
    owasp: 'MCP07',
    modes: ['fast', 'deep'],
    liveEndpoint: true,
    confidence: 0.85,
  },
  check(context) {
    reportObservations(context, 'foreign-origin-accepted', () => ({ message: 'the server accepted initialize from a foreign web origin (DNS-rebinding exposure)' }));
  },
});
