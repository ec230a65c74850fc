import { createRule } from './create-rule.js';
import type { Severity, SourceFile } from '../scan/model.js';
import { worstSeverity } from './support/severity.js';
import { type HiddenClass, type HiddenRun, codePointLabel, hiddenRuns, revealHidden } from './support/unicode.js';
import { clip, describeModelText, lineAt, modelTextFinding, payloadKind, positionAt } from './support/text-patterns.js';

/** In text the model reads, any smuggled payload is an attack; how bad depends on whether it says something. */
function modelTextSeverity(run: HiddenRun): Severity {
  if (run.decoded !== undefined) {
    if (payloadKind(run.decoded) !== 'text' || /[a-z]{3,}/i.test(run.decoded)) return 'critical';
    return 'high';
  }
  if (run.class === 'bidi') return 'high';
  return 'medium';
}

/**
 * In code, bidi controls reorder what a reviewer sees (Trojan Source) and tags hide text; zero-width characters are
 * only suspicious in code proper, because documentation and data files carry them legitimately.
 */
function sourceSeverity(run: HiddenRun, file: SourceFile, text: string): Severity | undefined {
  if (run.decoded !== undefined) return run.decoded.length >= 3 ? 'critical' : 'high';
  const code = file.language !== undefined && file.role === 'source';
  if (run.class === 'bidi') return file.role === 'bundle' ? undefined : 'high';
  if (code && run.class === 'zero-width') {
    // Inside a word it makes two identifiers or keywords look alike; elsewhere (a character constant, prose in a
    // comment) it is odd but harmless.
    const splitsWord = /\w/.test(text[run.index - 1] ?? '') && /\w/.test(text[run.index + run.codePoints.length] ?? '');
    return splitsWord ? 'medium' : 'low';
  }
  if (code && run.class === 'invisible') return 'low';
  return undefined;
}

const CLASS_NAMES: Record<HiddenClass, string> = {
  tag: 'Unicode tag characters',
  'variation-selector': 'variation selectors carrying data',
  bidi: 'bidirectional control characters',
  'zero-width': 'zero-width characters',
  invisible: 'invisible formatting characters',
};

function summarise(runs: readonly HiddenRun[]): string {
  const classes = [...new Set(runs.map((run) => run.class))];
  return classes
    .map((hiddenClass) => {
      const codePoints = runs.filter((run) => run.class === hiddenClass).flatMap((run) => run.codePoints);
      const distinct = [...new Set(codePoints)].slice(0, 4).map(codePointLabel);
      return hiddenClass === 'tag' || hiddenClass === 'variation-selector'
        ? `${codePoints.length} ${CLASS_NAMES[hiddenClass]}`
        : `${codePoints.length} ${CLASS_NAMES[hiddenClass]} (${distinct.join(', ')})`;
    })
    .join(', ');
}

export default createRule({
  id: 'hidden-unicode',
  meta: {
    title: 'Invisible or direction-changing Unicode characters',
    category: 'hidden-characters',
    severity: 'high',
    description:
      'Unicode tag characters (U+E0000–E007F) and variation selectors can encode a whole sentence that no UI shows ' +
      'but a model reads; zero-width characters split words past keyword filters; bidirectional controls ' +
      '(U+202A–202E, U+2066–2069) reorder text so reviewers see something other than what runs (Trojan Source). The ' +
      'rule checks every text the model reads and the source files. Tag text is decoded in the evidence. A byte-order ' +
      'mark at the start of a file, joiners inside emoji and in scripts that need them, and flag emoji are not reported.',
    remediation:
      'Remove the characters, or write them as escapes (`\\u200B`) where they are needed. Configure the editor and CI ' +
      'to show and reject bidi controls in source (e.g. ESLint `no-irregular-whitespace`, GitHub\'s hidden-Unicode ' +
      'warning). Treat a third-party server that hides text in its descriptions as malicious.',
    cwe: ['CWE-1007', 'CWE-451'],
    owasp: 'MCP03',
    modes: ['fast', 'deep'],
    confidence: 0.85,
  },
  check(context) {
    // A description found with hidden characters is already reported at its tool; its source file is not again.
    const reportedInFile = new Set<string>();
    for (const modelText of context.modelTexts) {
      const runs = hiddenRuns(modelText.text);
      if (runs.length === 0) continue;
      for (const run of runs) reportedInFile.add(`${modelText.location.file}\0${run.class}`);
      const severity = worstSeverity(runs.map(modelTextSeverity));
      const decoded = runs.filter((run) => run.decoded).map((run) => run.decoded);
      context.report({
        ...modelTextFinding(modelText),
        severity,
        message:
          `The ${describeModelText(modelText)} contains ${summarise(runs)}` +
          (decoded.length > 0 ? ` that decode to hidden text: "${clip(decoded.join(' '), 160)}"` : ''),
        evidence: clip(revealHidden(modelText.text, runs), 500),
      });
    }

    for (const file of context.files) {
      const text = file.text;
      if (text === undefined || file.role === 'vendored') continue;
      const runs = hiddenRuns(text)
        .map((run) => ({ run, severity: sourceSeverity(run, file, text) }))
        .filter((entry): entry is { run: HiddenRun; severity: Severity } => entry.severity !== undefined);
      // One finding per file and class: a file with a thousand zero-width spaces is one problem, not a thousand.
      const byClass = new Map<HiddenClass, typeof runs>();
      for (const entry of runs) {
        const entries = byClass.get(entry.run.class);
        if (entries) entries.push(entry);
        else byClass.set(entry.run.class, [entry]);
      }
      for (const [hiddenClass, entries] of byClass) {
        if (reportedInFile.has(`${file.path}\0${hiddenClass}`)) continue;
        const first = entries[0]!;
        const severity = worstSeverity(entries.map((entry) => entry.severity));
        const position = positionAt(text, first.run.index);
        const line = lineAt(text, first.run.index);
        // Every hidden character of the line is revealed, not only this class: raw bidi controls would reorder the report.
        const lineRuns = hiddenRuns(line);
        context.report({
          severity,
          location: { file: file.path, ...position },
          key: hiddenClass,
          message:
            `${file.path} contains ${summarise(entries.map((entry) => entry.run))}` +
            (hiddenClass === 'bidi' ? ': the code may not run the way it reads (Trojan Source)' : '') +
            (first.run.decoded ? ` that decode to "${clip(first.run.decoded, 160)}"` : ''),
          evidence: clip(revealHidden(line, lineRuns), 400),
        });
      }
    }
  },
});
