import { createRule } from './create-rule.js';
import { annotationStance, describeOrigin, flowFinding, toolNamed, unsanitisedFlows } from './support/flows.js';

export default createRule({
  id: 'unrestricted-shell-tool',
  meta: {
    title: 'Arbitrary command execution exposed as a tool without annotations',
    category: 'excessive-capability',
    severity: 'medium',
    description:
      'The model chooses the whole command (or program) a tool runs. That is a deliberate capability in some servers, ' +
      'but without `destructiveHint: true` many clients run it without asking, so any prompt injection becomes code ' +
      'execution on the user\'s machine. A tool that declares itself read-only while doing this is misleading.',
    remediation:
      'Annotate the tool with `destructiveHint: true` (and not `readOnlyHint`), restrict the commands to an allowlist, ' +
      'or run them in a sandbox; say in the description that it executes commands.',
    cwe: ['CWE-250', 'CWE-78'],
    owasp: 'MCP02',
    modes: ['fast', 'deep'],
    confidence: 0.7,
  },
  check(context) {
    for (const flow of unsanitisedFlows(context, ['command'], ['tool-input'])) {
      // Opening a URL and placing an option are other rules' (command-injection, argument-injection).
      if (flow.composition !== 'whole' || flow.sink.role === 'os-open' || flow.sink.role === 'option') continue;
      const stance = annotationStance(toolNamed(context, flow.origin.tool));
      if (stance === 'declared-destructive') continue;
      context.report({
        ...flowFinding(
          flow,
          stance === 'misleading'
            ? `${describeOrigin(flow)} is run as a command by \`${flow.sink.callee}\`, but the tool claims to be read-only or non-destructive`
            : `${describeOrigin(flow)} is run as a command by \`${flow.sink.callee}\` and the tool has no destructiveHint annotation`,
        ),
        severity: stance === 'misleading' ? 'high' : 'medium',
      });
    }
  },
});
