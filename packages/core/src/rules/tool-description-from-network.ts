import { createRule } from './create-rule.js';

export default createRule({
  id: 'tool-description-from-network',
  meta: {
    title: 'Tool description fetched at run time',
    category: 'tool-poisoning',
    severity: 'medium',
    description:
      'The text the model reads for a tool is not in the code: the server downloads it when it starts. Whoever ' +
      'controls that address can change what the tool tells the model after the user reviewed and approved it (a ' +
      '"rug pull"), and no scan of the package can see the text that will be served.',
    remediation:
      'Ship tool descriptions in the package, so a new text means a new, reviewable version; if they must come from a ' +
      'server, pin and verify them (a hash in the package) and show changes to the user.',
    cwe: ['CWE-494', 'CWE-829'],
    owasp: 'MCP03',
    modes: ['fast', 'deep'],
    confidence: 0.7,
  },
  check(context) {
    for (const tool of context.tools) {
      if (tool.descriptionSource !== 'network') continue;
      context.report({
        message: `the description of ${tool.kind} \`${tool.name}\` is fetched from the network when the server starts, so it can change after it was approved`,
        evidence: tool.name,
        location: tool.location,
        tool: { name: tool.name, kind: tool.kind, field: 'description' },
      });
    }
  },
});
