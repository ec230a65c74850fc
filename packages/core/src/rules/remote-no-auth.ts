import { createRule } from './create-rule.js';
import { reportObservations } from './support/remote.js';

export default createRule({
  id: 'remote-no-auth',
  meta: {
    title: 'Remote MCP endpoint answers without authentication',
    category: 'authorization',
    severity: 'high',
    description:
      'The server accepted `initialize` and listed its tools for a client that sent no credential at all. Anyone who can reach the URL can call its tools, with whatever access the server has. Reported only when svc connected without credentials, and not for endpoints on this machine (the Origin check covers those).',
    remediation: 'Require authentication on the MCP endpoint (OAuth 2.1 as the MCP authorization spec describes, or at least a bearer token) and refuse requests without it.',
    cwe: ['CWE-306'],
    owasp: 'MCP07',
    modes: ['fast', 'deep'],
    liveEndpoint: true,
    confidence: 0.8,
  },
  check(context) {
    reportObservations(context, 'no-auth', () => ({ message: 'the server answered initialize and listed its tools without any credential' }));
  },
});
