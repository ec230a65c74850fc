import { createRule } from './create-rule.js';
import { describeOrigin, flowFinding, toolNamed, unsanitisedFlows } from './support/flows.js';

/** A description that says the tool returns environment variables: disclosed, though the secrets are still exposed. */
const DECLARES_ENVIRONMENT = /\benv(?:ironment)?\b/i;
/** The same for one credential: a tool that says it returns its configuration, key or token. */
const DECLARES_CREDENTIAL = /\b(?:env(?:ironment)?|config(?:uration)?|settings|credentials?|api[\s_-]?keys?|tokens?|secrets?)\b/i;

/** The whole environment (`process.env`, `os.environ`), not one variable of it. */
function isWholeEnvironment(detail: string | undefined): boolean {
  return detail === undefined || detail === 'process.env' || detail === 'os.environ';
}

export default createRule({
  id: 'secret-in-tool-result',
  meta: {
    title: 'Environment or credential returned as a tool result',
    category: 'secrets',
    severity: 'high',
    description:
      'A tool returns the whole process environment (`process.env`, `os.environ`, `dict(os.environ)`, a spread or ' +
      'serialisation of it) to the model; a server that speaks JSON-RPC itself returns it by sending it as the ' +
      '`result` of its response (`{ jsonrpc: \'2.0\', id, result }` written to stdout or a socket, directly or through a ' +
      '`reply(id, result)` helper). The result is kept in the transcript, ' +
      'may be logged by the client and can be led on to any other tool by a prompt injection, so every API key and ' +
      'token of the server\'s environment is exposed. The same holds for one credential of it (an environment variable ' +
      'named like a key, token, secret or password) returned as it is, in a string, or inside a configuration object ' +
      'serialised into the result (`JSON.stringify(config)` where `config.apiKey` came from the environment). Other ' +
      'named variables (`process.env.NODE_ENV`), an allowlist of names, and masked or derived forms (`key.slice(-4)`, ' +
      '`Boolean(key)`, the key\'s length) are not reported. A tool whose description says it returns the environment ' +
      'or its settings is reported at medium: the exposure is disclosed, not hidden, but the secrets still reach the ' +
      'transcript.',
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
      const whole = isWholeEnvironment(flow.origin.detail);
      const declared = (whole ? DECLARES_ENVIRONMENT : DECLARES_CREDENTIAL).test(toolNamed(context, flow.sink.tool)?.description ?? '');
      const what = whole ? describeOrigin(flow) : `the credential \`${flow.origin.detail}\``;
      context.report({
        ...flowFinding(flow, `${what} is returned unmasked as ${flow.sink.callee}${declared ? ', as its description says' : ''}`),
        severity: declared ? 'medium' : 'high',
      });
    }
  },
});
