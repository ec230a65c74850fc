import { createRule } from './create-rule.js';
import { describeOrigin, flowFinding, unsanitisedFlows } from './support/flows.js';

export default createRule({
  id: 'command-injection',
  meta: {
    title: 'Tool input interpolated into a shell command',
    category: 'command-injection',
    severity: 'critical',
    description:
      'A value the model controls is concatenated or templated into a command line that a shell or process launcher ' +
      'runs. Quotes, `;`, `$()` or backticks in the value run arbitrary commands with the server\'s privileges, and a ' +
      'prompt injection anywhere in the conversation can supply them.',
    remediation:
      'Run the program with an argument array and no shell (`execFile`/`spawn` without `shell: true`, ' +
      '`subprocess.run([...])` without `shell=True`), constrain the value with a schema enum or an anchored pattern, ' +
      'and put `--` before user-supplied arguments.',
    cwe: ['CWE-78', 'CWE-77'],
    owasp: 'MCP05',
    modes: ['fast', 'deep'],
    confidence: 0.8,
  },
  check(context) {
    for (const flow of unsanitisedFlows(context, ['command'])) {
      if (flow.composition !== 'embedded') continue;
      const viaShell = flow.sink.shell !== false;
      context.report({
        ...flowFinding(
          flow,
          `${describeOrigin(flow)} is built into a command line run by \`${flow.sink.callee}\`` +
            (viaShell ? ' through a shell' : ''),
        ),
        severity: viaShell ? 'critical' : 'high',
      });
    }
  },
});
