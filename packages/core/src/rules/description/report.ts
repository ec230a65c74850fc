// Turns the analyser's acts into findings: one finding per text and rule, naming the sentence, the act and why it is
// out of place, so a reviewer can check the verdict in one read.
import type { RuleContext } from '../create-rule.js';
import type { Severity } from '../../scan/model.js';
import { worstSeverity } from '../support/severity.js';
import { clip, describeModelText, modelTextFinding } from '../support/text-patterns.js';
import { analyseModelTexts, type Act, type ActKind } from './analyse.js';

const CONFIDENCE = { critical: 0.9, high: 0.8, medium: 0.65, low: 0.45, info: 0.3 } as const;

/** Reports, for each model text, the acts of the given kinds; `extra` adds a rule's own acts (e.g. unread text). */
export function reportActs(context: RuleContext, kinds: readonly ActKind[]): void {
  const analyses = analyseModelTexts(context.modelTexts, context.tools);
  for (const [modelText, analysis] of analyses) {
    const acts = analysis.acts.filter((act) => kinds.includes(act.kind));
    if (acts.length === 0) continue;
    const serious = new Set(acts.filter((act) => act.severity !== 'low' && act.severity !== 'info').map((act) => `${act.kind}\0${act.sentence}`));
    // Two separate serious acts in one text are a pattern, not a slip of wording: one step up.
    const worst = worstSeverity(acts.map((act) => act.severity));
    const severity = serious.size >= 2 ? bump(worst) : worst;
    const lead = acts.find((act) => act.severity === worst)!;
    const targets = [...new Set(acts.flatMap((act) => act.targets))];
    const more = [...new Set(acts.filter((act) => act !== lead).map((act) => act.act))];
    context.report({
      ...modelTextFinding(modelText),
      severity,
      confidence: CONFIDENCE[severity],
      message:
        `The ${describeModelText(modelText)} ${lead.act}: ${lead.why}` +
        (more.length > 0 ? `. It also ${more.slice(0, 3).join('; ')}` : '') +
        (targets.length > 0 ? ` (${targets.slice(0, 6).map((target) => `\`${target}\``).join(', ')})` : ''),
      evidence: clip(evidenceOf(acts), 400),
    });
  }
}

function bump(severity: Severity): Severity {
  return severity === 'high' || severity === 'critical' ? 'critical' : severity === 'medium' ? 'high' : severity;
}

function evidenceOf(acts: readonly Act[]): string {
  return [...new Set(acts.map((act) => act.sentence))].slice(0, 3).join(' … ');
}
