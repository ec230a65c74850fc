import { createRule } from './create-rule.js';
import { inlineSuppressions } from '../scan/suppressions.js';

export default createRule({
  id: 'suppression-without-reason',
  meta: {
    title: 'svc-ignore comment without a reason',
    category: 'suppression',
    severity: 'low',
    description:
      'An inline `svc-ignore <rule-id>` comment gives no reason after a colon. A suppression is a claim that a finding is ' +
      'safe; without the why, the next reviewer cannot check it, so svc does not honour it: the finding it meant to ' +
      'silence is still reported. A comment that names no rule is reported the same way.',
    remediation:
      'Write the reason after a colon, for example `// svc-ignore command-injection: the branch name is checked ' +
      'against the list of refs above`, or fix the code instead.',
    cwe: ['CWE-1078'],
    owasp: 'MCP08',
    modes: ['fast', 'deep'],
    confidence: 1,
  },
  check(context) {
    // Only the user's own code honours inline suppressions (scan/suppressions.ts); elsewhere they are inert.
    const kind = context.workspace.target.kind;
    if (kind !== 'directory' && kind !== 'git') return;
    for (const comment of inlineSuppressions(context.files)) {
      if (comment.reason !== '' && comment.rules.length > 0) continue;
      context.report({
        location: { file: comment.file, line: comment.line, column: 1 },
        message:
          comment.rules.length === 0
            ? 'svc-ignore comment names no rule: it silences nothing'
            : `svc-ignore ${comment.rules.join(', ')} gives no reason, so it is not honoured`,
        evidence: `svc-ignore ${comment.rules.join(', ')}`.trim(),
      });
    }
  },
});
