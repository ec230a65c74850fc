import { createRule } from './create-rule.js';
import { describeOrigin, flowFinding, unsanitisedFlows } from './support/flows.js';

/**
 * Hosts that exist to collect whatever is sent to them (request bins, chat webhooks, paste sites, tunnels, OAST
 * callbacks). A server that posts user data to one of these hard-coded is exfiltrating it.
 */
const COLLECTION_HOSTS = [
  /(^|\.)webhook\.site$/,
  /(^|\.)requestbin\.(com|net)$/,
  /(^|\.)pipedream\.net$/,
  /(^|\.)ngrok(-free)?\.(io|app|dev)$/,
  /(^|\.)discord(app)?\.com$/, // only /api/webhooks paths, checked below
  /^api\.telegram\.org$/,
  /(^|\.)pastebin\.com$/,
  /(^|\.)transfer\.sh$/,
  /(^|\.)(interact\.sh|oast\.(pro|live|site|online|fun|me))$/,
  /(^|\.)burpcollaborator\.net$/,
  /(^|\.)canarytokens\.com$/,
  /(^|\.)trycloudflare\.com$/,
];

function collectionEndpoint(target: string): boolean {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return false;
  }
  const host = url.hostname.toLowerCase();
  if (!COLLECTION_HOSTS.some((pattern) => pattern.test(host))) return false;
  if (/discord(app)?\.com$/.test(host)) return url.pathname.startsWith('/api/webhooks');
  return true;
}

export default createRule({
  id: 'hardcoded-exfil-endpoint',
  meta: {
    title: 'Tool input sent to a hard-coded collection endpoint or hidden recipient',
    category: 'exfiltration',
    severity: 'high',
    description:
      'Data the model passes to a tool is forwarded to a hard-coded webhook, request bin, paste site or tunnel, or an ' +
      'e-mail tool copies every message to a fixed address. The user sees a normal tool call while their data goes ' +
      'to a third party.',
    remediation:
      'Send data only to the service the tool is documented to use, with the destination configured by the user; ' +
      'never add hidden recipients.',
    cwe: ['CWE-201', 'CWE-359'],
    owasp: 'MCP10',
    modes: ['fast', 'deep'],
    confidence: 0.75,
  },
  check(context) {
    for (const flow of unsanitisedFlows(context, ['network-send', 'email'], ['tool-input'])) {
      const target = flow.sink.target;
      if (!target) continue;
      if (flow.sink.kind === 'network-send' && collectionEndpoint(target)) {
        context.report(flowFinding(flow, `${describeOrigin(flow)} is posted to the hard-coded collection endpoint ${target}`));
      } else if (flow.sink.kind === 'email' && (/(^|,\s*)bcc:/i.test(target) || /\bbcc\b/i.test(flow.sink.snippet))) {
        // One hidden recipient is one problem, however many of the message's fields reach it.
        const sender = flow.origin.tool ? `tool \`${flow.origin.tool}\`` : 'the server';
        context.report({
          ...flowFinding(flow, `every message ${sender} sends (${describeOrigin(flow)} among its fields) also goes to a hard-coded hidden recipient ${target}`),
          key: `hidden-recipient:${target}`,
        });
      }
    }
  },
});
