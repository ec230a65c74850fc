import { createRule } from './create-rule.js';
import { reportObservations } from './support/remote.js';

export default createRule({
  id: 'remote-cors-credentials',
  meta: {
    title: 'Remote MCP endpoint allows credentialed requests from every origin',
    category: 'insecure-transport',
    severity: 'high',
    description:
      "The endpoint answers with `Access-Control-Allow-Credentials: true` while allowing every origin (`*` or any Origin echoed back). Browsers refuse the literal `*` with credentials, but a server that says so usually echoes the origin elsewhere, letting any web page call tools with the user's cookies or credentials and read the results.",
    remediation: 'Allow only the origins of the clients you serve, and never combine a wildcard origin with credentials.',
    cwe: ['CWE-942'],
    owasp: 'MCP07',
    modes: ['fast', 'deep'],
    liveEndpoint: true,
    confidence: 0.8,
  },
  check(context) {
    reportObservations(context, 'cors-credentials-wildcard', () => ({ message: 'CORS allows every origin together with credentials' }));
  },
});
