import { isSecretName } from '../scan/analysis/catalog.js';
import type { TaintFlow } from '../scan/model.js';
import { createRule } from './create-rule.js';
import { describeOrigin, flowFinding, unsanitisedFlows } from './support/flows.js';

/** Request headers that carry the caller's credential. */
const CREDENTIAL_HEADER = /\b(authorization|proxy-authorization|cookie|x-api-key|api-key|x-auth-token)\b/i;

/**
 * What a flow into a log line carries that is a secret: the whole environment or a credential variable of it, a
 * credential file, a tool parameter or request field named like a password or token, a request's credential header.
 */
function secretOf(flow: TaintFlow): string | undefined {
  const { origin } = flow;
  if (origin.kind === 'env' && origin.detail !== undefined && origin.detail !== 'process.env' && origin.detail !== 'os.environ') return `the credential \`${origin.detail}\``;
  if (origin.kind === 'env' || origin.kind === 'sensitive-file') return describeOrigin(flow);
  if (origin.kind === 'tool-input' && origin.param !== undefined && isSecretName(origin.param)) return describeOrigin(flow);
  if (origin.kind === 'http-request' && origin.detail !== undefined) {
    const last = origin.detail.split('.').at(-1) ?? '';
    if (CREDENTIAL_HEADER.test(origin.detail) || isSecretName(last)) return `the request's \`${origin.detail}\``;
  }
  return undefined;
}

export default createRule({
  id: 'secret-in-log',
  meta: {
    title: 'Secret written to a log',
    category: 'secrets',
    severity: 'medium',
    description:
      'A credential reaches a log line (`console.*`, a logger\'s level methods, Python `logging`): an environment ' +
      'variable named like a key, token, secret or password, the whole environment, a credential file\'s contents, a ' +
      'tool parameter named like a password or token, or a request\'s Authorization header. MCP clients keep a ' +
      'server\'s stderr in log files, and log services keep what they are sent, readable by more people than the ' +
      'secret was meant for and for longer. Logging that a secret is set (`Boolean(key)`, `key ? "set" : "missing"`), ' +
      'its length, or a masked form (`key.slice(0, 4) + "…"`) is not reported, nor is a JSON-RPC response a stdio ' +
      'server writes with `console.log` (that is its answer, see secret-in-tool-result). The whole environment or a ' +
      'credential file is reported at high.',
    remediation:
      'Log whether the secret is set, or a masked form (the last four characters), never the value; redact ' +
      'credential fields and the Authorization header in the logger\'s configuration (pino `redact`, a logging filter).',
    cwe: ['CWE-532', 'CWE-200'],
    owasp: 'MCP01',
    modes: ['fast', 'deep'],
    confidence: 0.7,
  },
  check(context) {
    // One finding per log line: the environment and the credentials copied out of it into one object are one leak.
    const byLine = new Map<string, { flow: TaintFlow; secret: string; dump: boolean }>();
    for (const flow of unsanitisedFlows(context, ['log'], ['env', 'sensitive-file', 'tool-input', 'http-request'])) {
      const secret = secretOf(flow);
      if (secret === undefined) continue;
      const dump = (flow.origin.kind === 'env' && (flow.origin.detail === 'process.env' || flow.origin.detail === 'os.environ')) || flow.origin.kind === 'sensitive-file';
      const line = `${flow.sink.location.file}:${flow.sink.location.line}:${flow.sink.location.column}`;
      const kept = byLine.get(line);
      if (!kept || (dump && !kept.dump)) byLine.set(line, { flow, secret, dump });
    }
    for (const { flow, secret, dump } of byLine.values()) {
      context.report({
        ...flowFinding(flow, `${secret} is written unmasked to a log by \`${flow.sink.callee}\``),
        severity: dump ? 'high' : 'medium',
      });
    }
  },
});
