import { createRule } from './create-rule.js';
import { severityBySource } from './support/exposure.js';
import { describeOrigin, flowFinding, unsanitisedFlows } from './support/flows.js';

export default createRule({
  id: 'command-injection',
  meta: {
    title: 'Untrusted input built into a command line or handed to a shell',
    category: 'command-injection',
    severity: 'critical',
    description:
      'A value the model, an HTTP client or a remote server controls is concatenated or templated into a command line ' +
      'that a shell or process launcher runs, placed where a shell or interpreter reads code (`sh -c X`, `ssh host X`, ' +
      '`adb shell X`), or handed to the operating system\'s opener (`open`, `xdg-open`, `cmd /c start`), which re-parses ' +
      'it on Windows. Quotes, `;`, `$()` or backticks in the value run arbitrary commands with the server\'s privileges. ' +
      'A request to a local HTTP route counts as untrusted: any web page the user visits can send one unless the route ' +
      'checks a token and the Origin.',
    remediation:
      'Run the program with an argument array and no shell (`execFile`/`spawn` without `shell: true`, ' +
      '`subprocess.run([...])` without `shell=True`), constrain the value with a schema enum or an anchored pattern, ' +
      'and put `--` before user-supplied arguments. Only open URLs whose scheme is `http(s)` after parsing them. Bind ' +
      'local HTTP routes to 127.0.0.1 and require a session token and an Origin check.',
    cwe: ['CWE-78', 'CWE-77'],
    owasp: 'MCP05',
    modes: ['fast', 'deep'],
    confidence: 0.8,
  },
  check(context) {
    for (const flow of unsanitisedFlows(context, ['command'])) {
      const { role } = flow.sink;
      // Option injection is argument-injection's (so is a command line split into argv: its words become options);
      // a whole command chosen by the model is a shell tool by design.
      if (role === 'option' || (role === 'program' && flow.composition === 'embedded')) continue;
      const fromModel = flow.origin.kind === 'tool-input';
      if (fromModel && flow.composition === 'whole' && role !== 'os-open') continue;
      const viaShell = flow.sink.shell !== false || role === 'shell-code';
      const how =
        role === 'os-open'
          ? `is handed to the operating system's opener by \`${flow.sink.callee}\``
          : role === 'shell-code'
            ? `is run as shell code by \`${flow.sink.callee}\``
            : role === 'program'
              ? `chooses the program \`${flow.sink.callee}\` runs`
              : `is built into a command line run by \`${flow.sink.callee}\`${viaShell ? ' through a shell' : ''}`;
      const base = viaShell || role === 'program' ? 'critical' : 'high';
      const { severity, note } = severityBySource(flow, context, fromModel && role === 'os-open' ? 'high' : base);
      context.report({ ...flowFinding(flow, `${describeOrigin(flow)} ${how}${note}`), severity });
    }
  },
});
