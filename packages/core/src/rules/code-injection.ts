import { createRule } from './create-rule.js';
import { severityBySource } from './support/exposure.js';
import { describeOrigin, flowFinding, unsanitisedFlows } from './support/flows.js';

export default createRule({
  id: 'code-injection',
  meta: {
    title: 'Tool input evaluated as code or deserialised unsafely',
    category: 'code-injection',
    severity: 'critical',
    description:
      'A value the model controls reaches `eval`, `new Function`, `vm`, a dynamic `require`/`import`, Python ' +
      '`eval`/`exec`, `pickle.loads` or `yaml.load` without a safe loader. Whoever controls the value runs code in the ' +
      'server process.',
    remediation:
      'Parse the data instead of evaluating it (JSON.parse, ast.literal_eval, a math expression parser), use ' +
      '`yaml.safe_load` and JSON instead of pickle, and allowlist module names for dynamic imports.',
    cwe: ['CWE-94', 'CWE-95', 'CWE-502'],
    owasp: 'MCP05',
    modes: ['fast', 'deep'],
    confidence: 0.8,
  },
  check(context) {
    for (const flow of unsanitisedFlows(context, ['code', 'deserialize'])) {
      const verb = flow.sink.kind === 'deserialize' ? 'deserialised by' : 'evaluated as code by';
      const { severity, note } = severityBySource(flow, context, flow.composition === 'whole' && flow.sink.kind === 'code' ? 'high' : 'critical');
      context.report({ ...flowFinding(flow, `${describeOrigin(flow)} is ${verb} \`${flow.sink.callee}\`${note}`), severity });
    }
  },
});
