import { createRule } from './create-rule.js';

export default createRule({
  id: 'tls-verification-disabled',
  meta: {
    title: 'TLS certificate verification disabled',
    category: 'tls-disabled',
    severity: 'medium',
    description:
      'The server turns off certificate verification (`rejectUnauthorized: false`, `NODE_TLS_REJECT_UNAUTHORIZED=0`, ' +
      '`verify=False`, `ssl.CERT_NONE`). Anyone on the network path can read and change its traffic, including the ' +
      'API tokens it sends and the data it returns to the model.',
    remediation:
      'Keep verification on; for a private CA pass its certificate (`ca:` option, `verify="/path/ca.pem"`, ' +
      '`NODE_EXTRA_CA_CERTS`) instead of disabling checks.',
    cwe: ['CWE-295'],
    owasp: 'MCP07',
    modes: ['fast', 'deep'],
    confidence: 0.8,
  },
  check(context) {
    for (const fact of context.facts) {
      if (fact.kind !== 'tls-verification-disabled') continue;
      // Setting the process-wide variable disables verification for every request of every library: worse than one client.
      const processWide = /NODE_TLS_REJECT_UNAUTHORIZED|_create_default_https_context/.test(fact.snippet);
      context.report({
        message: processWide
          ? 'TLS certificate verification is disabled for the whole process'
          : 'TLS certificate verification is disabled for an outbound client',
        evidence: fact.snippet,
        location: fact.location,
        severity: processWide ? 'high' : 'medium',
      });
    }
  },
});
