import { createRule } from './create-rule.js';
import { severityBySource } from './support/exposure.js';
import { describeOrigin, flowFinding, unsanitisedFlows } from './support/flows.js';

export default createRule({
  id: 'argument-injection',
  meta: {
    title: 'Untrusted input placed where a command-line option can stand',
    category: 'command-injection',
    severity: 'high',
    description:
      'A value the model, an HTTP client or a remote server controls is passed as an argv element of a tool whose ' +
      'options run commands, write files or change where it connects (`git --upload-pack=…`, `git diff --output=…`, ' +
      '`kubectl --kubeconfig=…`, `curl -o`, `find -exec`, `ssh -oProxyCommand=…`), with no `--` before it and nothing ' +
      'stopping it from starting with `-`. No shell is involved, so quoting does not help: the program itself reads ' +
      'the value as an option.',
    remediation:
      'Put `--` before user-supplied arguments (`git log -- <path>`), or reject values that start with `-` (a schema ' +
      'pattern such as `^[A-Za-z0-9][A-Za-z0-9._/-]*$`, or a check before the call); for URLs, parse them and require ' +
      'an `https:` scheme.',
    cwe: ['CWE-88'],
    owasp: 'MCP05',
    modes: ['fast', 'deep'],
    confidence: 0.7,
  },
  check(context) {
    for (const flow of unsanitisedFlows(context, ['command'])) {
      // A command line built with the value and split into argv (`cmd.split(' ')`) also lets it add words that are options.
      const split = flow.sink.role === 'program' && flow.composition === 'embedded';
      if (flow.sink.role !== 'option' && !split) continue;
      const program = flow.sink.program ?? 'the program';
      const where = split
        ? `is built into a command line that is split into the argv \`${flow.sink.callee}\` runs, so its words become arguments and options`
        : `is passed to \`${program}\` by \`${flow.sink.callee}\` where an option can stand, with no \`--\` before it and no check that it does not start with \`-\``;
      const { severity, note } = severityBySource(flow, context, 'high');
      context.report({ ...flowFinding(flow, `${describeOrigin(flow)} ${where}${note}`), severity });
    }
  },
});
