import { WEAK_GUARDS } from '../scan/analysis/catalog.js';
import { createRule } from './create-rule.js';
import { describeOrigin, flowFinding, toolNamed, unsanitisedFlows } from './support/flows.js';

/** A host on this machine: a request there does not leave it. */
const LOOPBACK = /^(localhost|127\.|0\.0\.0\.0|\[?::1\]?)/;

export default createRule({
  id: 'file-exfiltration-tool',
  meta: {
    title: 'Tool reads any file the model names and sends data off the machine',
    category: 'exfiltration',
    severity: 'medium',
    description:
      'One tool takes a whole file path from the model, with no allowed-directory check, and also sends data over the ' +
      'network (an upload, an API call with the content, a message). Whatever the file holds can leave the machine ' +
      'on the model\'s say-so: a prompt injection in a web page, an issue or a tool result only has to ask for ' +
      '`~/.ssh/id_rsa` or `~/.aws/credentials` as "the attachment". Uploading a file is a legitimate feature; doing it ' +
      'for any path is what makes it a data-theft channel. Judged per tool: the read and the request are in the same ' +
      'tool\'s reach, whether or not the bytes read are the bytes sent.',
    remediation:
      'Confine the paths the tool reads to the directories the user configured (realpath, then a containment check ' +
      'with a separator), or have the user pick the file in the client; annotate the tool with `openWorldHint: true` ' +
      'and say in its description that it uploads files.',
    cwe: ['CWE-200', 'CWE-22'],
    owasp: 'MCP01',
    modes: ['fast', 'deep'],
    confidence: 0.6,
  },
  check(context) {
    const reported = new Set<string>();
    for (const flow of unsanitisedFlows(context, ['file-read'], ['tool-input'])) {
      // A containment check that does not hold is path-traversal's; an embedded path is joined onto a root.
      if (flow.composition !== 'whole' || flow.sanitizers.some((name) => name in WEAK_GUARDS)) continue;
      const tool = toolNamed(context, flow.origin.tool);
      if (!tool || reported.has(tool.name)) continue;
      const sends = tool.capabilities?.find((capability) => capability.kind === 'network' && !(capability.target && LOOPBACK.test(capability.target)));
      if (!sends) continue;
      reported.add(tool.name);
      context.report({
        ...flowFinding(
          flow,
          `${describeOrigin(flow)} is any file \`${flow.sink.callee}\` reads, and the same tool sends data over the network (${sends.detail}): a file the model names can leave the machine`,
        ),
        severity: 'medium',
      });
    }
  },
});
