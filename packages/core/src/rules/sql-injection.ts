import { createRule } from './create-rule.js';
import { severityBySource } from './support/exposure.js';
import { describeOrigin, flowFinding, unsanitisedFlows, weakGuardFinding } from './support/flows.js';

export default createRule({
  id: 'sql-injection',
  meta: {
    title: 'Tool input concatenated into SQL',
    category: 'sql-injection',
    severity: 'high',
    description:
      'A value the model controls is formatted into the text of an SQL statement instead of being bound as a ' +
      'parameter. Quotes in the value change the statement: reading other tables, writing, or dropping data.',
    remediation:
      'Pass values as bound parameters (`query(sql, [value])`, `cursor.execute(sql, (value,))`, tagged `sql` ' +
      'templates); for identifiers such as table names, check them against an allowlist or a schema enum.',
    cwe: ['CWE-89'],
    owasp: 'MCP05',
    modes: ['fast', 'deep'],
    confidence: 0.8,
  },
  check(context) {
    for (const flow of unsanitisedFlows(context, ['sql'])) {
      const { severity, note } = severityBySource(flow, context, 'high');
      // A statement the tool means to restrict (read-only, one kind) by its first word: the restriction does not hold.
      const weak = weakGuardFinding(flow, `reaches SQL run by \`${flow.sink.callee}\``);
      if (weak) {
        context.report({ ...weak, message: weak.message + note, severity });
        continue;
      }
      // A tool that takes a whole statement is a "run SQL" capability, not an injection into someone else's query.
      if (flow.composition !== 'embedded' && flow.origin.kind === 'tool-input') continue;
      context.report({ ...flowFinding(flow, `${describeOrigin(flow)} is formatted into SQL run by \`${flow.sink.callee}\`${note}`), severity });
    }
  },
});
