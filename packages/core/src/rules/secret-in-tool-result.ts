import { createRule } from './create-rule.js';
import { describeOrigin, flowFinding, toolNamed, unsanitisedFlows } from './support/flows.js';

/** A description that says the tool returns environment variables: disclosed, though the secrets are still exposed. */
const DECLARES_ENVIRONMENT = /\benv(?:ironment)?\b/i;

export default createRule({
  id: 'secret-in-tool-result',
  meta: {
    title: 'Whole environment returned as a tool result',
    category: 'secrets',
    severity: 'high',
    description:
      'A tool returns the whole process environment (`process.env`, `os.environ`, `dict(os.environ)`, a spread or ' +
      'serialisation of it) to the model. The result is kept in the transcript, ' +
      'may be logged by the client and can be led on to any other tool by a prompt injection, so every API key and ' +
      'token of the server\'s environment is exposed. One named variable (`process.env.NODE_ENV`) or an allowlist of ' +
      'names is not reported. A tool whose description says it returns the environment is reported at medium: the ' +
      'exposure is disclosed, not hidden, but the secrets still reach the transcript.',
    remediation:
      'Return only the settings the tool is about, by name, and mask secret values (`sk-…abcd`) or report only whether ' +
      'they are set.',
    cwe: ['CWE-200', 'CWE-359'],
    owasp: 'MCP01',
    modes: ['fast', 'deep'],
    confidence: 0.8,
  },
  check(context) {
    for (const flow of unsanitisedFlows(context, ['tool-result'], ['env'])) {
      const declared = DECLARES_ENVIRONMENT.test(toolNamed(context, flow.sink.tool)?.description ?? '');
      context.report({
        ...flowFinding(flow, `${describeOrigin(flow)} is returned unmasked as ${flow.sink.callee}${declared ? ', as its description says' : ''}`),
        severity: declared ? 'medium' : 'high',
      });
    }
  },
});
