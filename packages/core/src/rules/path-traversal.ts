import { createRule } from './create-rule.js';
import { severityBySource } from './support/exposure.js';
import { describeOrigin, flowFinding, unsanitisedFlows, weakGuardFinding } from './support/flows.js';

export default createRule({
  id: 'path-traversal',
  meta: {
    title: 'Tool input joined into a file path without containment',
    category: 'path-traversal',
    severity: 'high',
    description:
      'A value the model controls is joined onto a base directory and used to read or write files, but nothing checks ' +
      'that the result stays inside that directory. `../` segments or an absolute path reach any file the server can ' +
      'access: SSH keys, credentials, shell profiles.',
    remediation:
      'Resolve the path (realpath / Path.resolve), then check it is inside the allowed root (`path.relative` not ' +
      'starting with `..`, `startsWith(root + sep)`, `is_relative_to`) before touching the file; reject symlinks ' +
      'that leave the root.',
    cwe: ['CWE-22', 'CWE-73'],
    owasp: 'MCP05',
    modes: ['fast', 'deep'],
    confidence: 0.75,
  },
  check(context) {
    const flows = unsanitisedFlows(context, ['file-read', 'file-write']);
    // `isAbsolute(p) ? p : join(root, p)`: where the same input also reaches the sink whole, the code takes any path by
    // design, so the join is no boundary to traverse; unrestricted-filesystem-tool reports that capability.
    const sinkAndOrigin = (flow: (typeof flows)[number]) => `${flow.sink.location.file}:${flow.sink.location.line}:${flow.sink.location.column}|${flow.origin.tool}|${flow.origin.param}`;
    const takenWhole = new Set(flows.filter((flow) => flow.origin.kind === 'tool-input' && flow.composition === 'whole').map(sinkAndOrigin));
    for (const flow of flows) {
      const access = flow.sink.kind === 'file-write' ? 'write' : 'read';
      const { severity, note } = severityBySource(flow, context, 'high');
      // A containment check that does not hold: the tool means to confine paths, so any path (whole or joined) escapes.
      const weak = weakGuardFinding(flow, `is a path \`${flow.sink.callee}\` ${access}s`);
      if (weak) {
        context.report({ ...weak, message: weak.message + note, severity });
        continue;
      }
      if (flow.origin.kind === 'tool-input' && (flow.composition !== 'embedded' || takenWhole.has(sinkAndOrigin(flow)))) continue;
      context.report({
        ...flowFinding(flow, `${describeOrigin(flow)} is joined into a path that \`${flow.sink.callee}\` ${access}s without a containment check${note}`),
        severity,
      });
    }
  },
});
