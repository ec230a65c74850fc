import { createRule } from './create-rule.js';
import { reportActs } from './description/report.js';

export default createRule({
  id: 'tool-poisoning-sensitive-access',
  meta: {
    title: 'Tool description asks the model to read or send secrets or private data',
    category: 'tool-poisoning',
    severity: 'critical',
    description:
      'A text the model reads tells it to open credentials or private files (`~/.ssh/id_rsa`, `.env`, ' +
      '`~/.aws/credentials`, kube config, browser profiles, keychains, wallets, the MCP client config `mcp.json`), with ' +
      'any verb and in any form ("examine", "back up", "… should be attached"; a tool named `read_file` counts as the ' +
      'verb), or to hand over API keys, passwords, the conversation history or its system prompt, by putting them ' +
      'into a parameter or into a link or markdown image whose query carries them to a server. The model ' +
      'has the user\'s file access through other tools, so such an instruction exfiltrates data the user never chose to ' +
      'share. Plain capability statements of file or secret tools ("Reads a file from the allowed directories") are ' +
      'not reported, nor is a store the tool\'s own purpose names (an SSH tool reading `~/.ssh/config` is low).',
    remediation:
      'Remove the instruction. A tool that needs a credential should read it from its own configuration (environment ' +
      'or a secret store), never ask the model for it. Treat a third-party server with such a description as malicious.',
    cwe: ['CWE-200', 'CWE-506', 'CWE-1427'],
    owasp: 'MCP03',
    modes: ['fast', 'deep'],
    confidence: 0.8,
  },
  check(context) {
    reportActs(context, ['sensitive-access', 'conversation-access', 'link-exfiltration']);
  },
});
