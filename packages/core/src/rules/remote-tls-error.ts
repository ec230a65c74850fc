import { createRule } from './create-rule.js';
import { reportObservations } from './support/remote.js';

export default createRule({
  id: 'remote-tls-error',
  meta: {
    title: 'Remote MCP endpoint with a TLS certificate problem',
    category: 'tls-disabled',
    severity: 'high',
    description:
      'The TLS connection to the endpoint failed certificate verification (expired, self-signed, wrong host name or an unknown issuer). A client that connects anyway cannot tell the server from an attacker in the middle. svc never turns verification off, so the endpoint was not scanned.',
    remediation: "Serve a valid certificate for the endpoint's host name from a trusted issuer (for a private CA, point NODE_EXTRA_CA_CERTS at it).",
    cwe: ['CWE-295'],
    owasp: 'MCP01',
    modes: ['fast', 'deep'],
    liveEndpoint: true,
    confidence: 0.9,
  },
  check(context) {
    reportObservations(context, 'tls-error', (observation) => ({ message: `the endpoint's TLS certificate was not accepted (${observation.detail}); it was not scanned` }));
  },
});
