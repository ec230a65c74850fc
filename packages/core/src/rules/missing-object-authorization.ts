import { OWNER_PARAMETER } from '../scan/analysis/catalog.js';
import type { CodeFact, SinkKind, TaintFlow } from '../scan/model.js';
import { createRule } from './create-rule.js';
import { flowFinding } from './support/flows.js';
import { factsOf } from './support/transport.js';

/** Where the server itself keeps data: its database and its files (a third-party API enforces its own access). */
const OWN_DATA: readonly SinkKind[] = ['sql', 'file-read', 'file-write'];
/** What a caller-stated role may unlock that needs a privilege: writes, deletes, commands. */
const PRIVILEGED: readonly SinkKind[] = ['sql', 'file-write', 'command'];

function handlerFact(facts: readonly CodeFact[], tool: string | undefined): CodeFact | undefined {
  return facts.find((fact) => fact.handler?.tool === tool);
}

export default createRule({
  id: 'missing-object-authorization',
  meta: {
    title: 'Tool acts on another user\'s data without checking the caller',
    category: 'authorization',
    severity: 'high',
    description:
      'A tool takes the user, tenant, account, organisation or owner whose data it reads or changes as an argument and ' +
      'hands it to the server\'s own database or files, while the server knows who is calling (the MCP SDK\'s ' +
      '`extra.authInfo`, `req.user`, FastMCP\'s `get_access_token()` or request context) and the handler never holds ' +
      'the argument against that identity: any authenticated caller, or a prompt injection acting through one, reads ' +
      'or changes every other user\'s data (insecure direct object reference). Also reported: a tool that grants a ' +
      'privilege on a role or admin flag the caller passes (`if (args.isAdmin)`, `role == "admin"`) before writing, ' +
      'deleting or running a command. High when the handler reads the caller\'s identity and ignores it for the ' +
      'argument, medium when no identity is visible in the handler but the server authenticates its MCP HTTP transport ' +
      '(a local stdio server acts for the one user who runs it). ' +
      'Not reported: the identity taken from the session, the argument compared with it (`if (userId !== ' +
      'auth.clientId) throw`) or passed beside it to the query, and arguments passed to a third-party API, which ' +
      'enforces access with the user\'s own credentials.',
    remediation:
      'Take the user or tenant from the authenticated session (`extra.authInfo`, the access token), not from the ' +
      'arguments; when a tool must act on another account, check that the caller may (`if (args.userId !== ' +
      'caller.id && !caller.scopes.includes("admin")) throw`) and scope every query by the caller\'s identity. Read ' +
      'roles from the verified token, never from the arguments.',
    cwe: ['CWE-639', 'CWE-862', 'CWE-269'],
    owasp: 'MCP07',
    modes: ['fast', 'deep'],
    confidence: 0.6,
  },
  check(context) {
    const identities = factsOf(context, 'caller-identity');
    // Without an identity in the handler, only a server whose MCP transport is HTTP behind authentication serves
    // several users; a local stdio server acts for the one user who runs it, whatever user id it is given.
    const authenticates = factsOf(context, 'auth-middleware').length > 0 && factsOf(context, 'mcp-http-transport').length > 0;
    const reported = new Set<string>();
    const flows = context.flows.filter((flow) => flow.origin.kind === 'tool-input' && flow.origin.tool !== undefined);
    for (const flow of flows) {
      const { tool, param } = flow.origin;
      if (param === undefined || !OWNER_PARAMETER.test(param) || !OWN_DATA.includes(flow.sink.kind) || flow.sanitizers.includes('schema-enum')) continue;
      const key = `${tool}\u0000${param}`;
      if (reported.has(key)) continue;
      const identity = handlerFact(identities, tool);
      if (identity?.handler?.params.includes(param)) continue;
      if (!identity && !authenticates) continue;
      reported.add(key);
      const why = identity
        ? `while the handler reads the caller's identity (\`${identity.detail}\`) and never compares it with the argument`
        : 'while the server authenticates its callers and the handler never checks that the caller may act for it';
      context.report({
        ...flowFinding(flow, `tool \`${tool}\` acts on the data of whichever owner its caller names in parameter \`${param}\` (reaching \`${flow.sink.callee}\`) ${why}`),
        severity: identity ? 'high' : 'medium',
      });
    }
    for (const role of factsOf(context, 'caller-stated-role')) {
      const tool = role.handler?.tool;
      const privileged = flows.find((flow: TaintFlow) => flow.origin.tool === tool && PRIVILEGED.includes(flow.sink.kind));
      if (!privileged || tool === undefined) continue;
      context.report({
        message: `tool \`${tool}\` grants a privilege on the role its caller states (parameter \`${role.detail}\`) before \`${privileged.sink.callee}\`: any caller can claim it`,
        evidence: role.snippet,
        location: role.location,
        key: `role:${tool}:${role.detail}`,
      });
    }
  },
});
