import { WEAK_GUARDS } from '../scan/analysis/catalog.js';
import { createRule } from './create-rule.js';
import { annotationStance, describeOrigin, flowFinding, toolNamed, unsanitisedFlows } from './support/flows.js';

export default createRule({
  id: 'unrestricted-filesystem-tool',
  meta: {
    title: 'Filesystem-wide access exposed as a tool',
    category: 'excessive-capability',
    severity: 'medium',
    description:
      'The model supplies the whole path of a file the tool writes (or reads), with no allowed-directory check. Writing ' +
      'anywhere (shell profiles, SSH authorized_keys, cron) is code execution; reading anywhere exposes every secret ' +
      'of the user. Without annotations many clients call such a tool without asking.',
    remediation:
      'Confine the tool to configured root directories (realpath + containment check), annotate writing tools with ' +
      '`destructiveHint: true`, and keep read-only tools to the directories the user granted.',
    cwe: ['CWE-732', 'CWE-22'],
    owasp: 'MCP02',
    modes: ['fast', 'deep'],
    confidence: 0.65,
  },
  check(context) {
    for (const flow of unsanitisedFlows(context, ['file-read', 'file-write'], ['tool-input'])) {
      // A containment check that does not hold is path-traversal's finding, not a tool without one.
      if (flow.composition !== 'whole' || flow.sanitizers.some((name) => name in WEAK_GUARDS)) continue;
      const stance = annotationStance(toolNamed(context, flow.origin.tool));
      if (flow.sink.kind === 'file-write') {
        if (stance === 'declared-destructive') continue;
        context.report({
          ...flowFinding(flow, `${describeOrigin(flow)} is any path \`${flow.sink.callee}\` writes to, with no allowed-directory check`),
          severity: stance === 'misleading' ? 'high' : 'medium',
        });
      } else {
        // Reading any path is how many single-purpose tools work ("summarise this PDF"): worth knowing, not an alarm.
        context.report({
          ...flowFinding(flow, `${describeOrigin(flow)} is any path \`${flow.sink.callee}\` reads, with no allowed-directory check`),
          severity: 'low',
        });
      }
    }
  },
});
