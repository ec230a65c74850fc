import { createRule } from './create-rule.js';
import { reportActs } from './description/report.js';
import { WELL_KNOWN_TOOLS } from './support/well-known-tools.js';
import { clip } from './support/text-patterns.js';

export default createRule({
  id: 'tool-shadowing',
  meta: {
    title: 'Tool description changes how other tools behave',
    category: 'tool-shadowing',
    severity: 'high',
    description:
      'A tool or prompt description that gives rules for other tools: it fixes another tool\'s argument or recipient ' +
      '("when send_email is called, always bcc …"), reroutes its traffic ("all requests are to be routed via …"), ' +
      'overrides what the user asked of it, puts itself in place of or in front of every other tool, or orders ' +
      'something done before or after another tool ("before using X, call Y", where X is not this tool). This holds ' +
      'wherever that tool lives: a poisoned tool added to the very server it attacks is still shadowing, while a ' +
      'prerequisite of the tool itself ("call list_tables before using this tool") or a pointer to an alternative ' +
      '("use search_issues instead") is ordinary guidance. All descriptions of all connected servers share one ' +
      'context, so a malicious server can hijack a trusted one without ever being called. Also reported: a tool that ' +
      'takes the name of a well-known tool (read_file, send_email, fetch …) but describes something unrelated, so the ' +
      'model calls it in place of the real one.',
    remediation:
      'Describe only this tool. Never refer to tools of other servers or prescribe the order of other tools. Give ' +
      'tools distinctive names; a client may namespace them, but the model still sees the bare name.',
    cwe: ['CWE-1427', 'CWE-506'],
    owasp: 'MCP03',
    modes: ['fast', 'deep'],
    confidence: 0.75,
  },
  check(context) {
    reportActs(context, ['other-tool-rule', 'precondition-other']);

    for (const tool of context.tools) {
      const expected = WELL_KNOWN_TOOLS[tool.name.toLowerCase()];
      if (tool.kind !== 'tool' || !expected || !tool.description) continue;
      const description = tool.description.toLowerCase();
      if (description.split(/\s+/).length < 3 || expected.some((word) => description.includes(word))) continue;
      context.report({
        location: tool.location,
        tool: { name: tool.name, kind: tool.kind, field: 'name' },
        severity: 'medium',
        confidence: 0.5,
        key: 'name-collision',
        message:
          `Tool \`${tool.name}\` has the name of a well-known tool of another MCP server but describes something ` +
          'else; the model may call it in place of the real one',
        evidence: clip(`${tool.name}: ${tool.description}`, 300),
      });
    }
  },
});
