import type { Finding, Grade, Severity } from './model.js';

/**
 * Points one finding costs at confidence 1. The ratios are what matter: one critical (remote code execution,
 * credential theft) must outweigh any pile of hygiene problems, and info findings are context, never a penalty.
 */
export const SEVERITY_WEIGHTS: Readonly<Record<Severity, number>> = {
  critical: 40,
  high: 20,
  medium: 6,
  low: 2,
  info: 0,
};

/**
 * Each further finding of the same rule costs this fraction of the previous one. Forty copies of one low-severity
 * rule are one habit, not forty problems: a rule's total penalty is bounded by 1 / (1 - 0.5) = 2× its worst
 * finding, so repetition can never zero the score on its own. Different rules add up without decay.
 */
export const REPEAT_DECAY = 0.5;

/** Lowest score for each grade; below the last one the grade is F. */
export const GRADE_THRESHOLDS: ReadonlyArray<readonly [Grade, number]> = [
  ['A', 90],
  ['B', 80],
  ['C', 70],
  ['D', 60],
];

/**
 * A critical or high finding caps the grade however few other problems there are, because a single exploitable
 * flaw is what matters to someone deciding whether to install a server: any critical → at best D, any high → at
 * best C. Only findings the rule (or the judges) hold at least this likely count for the cap, so a speculative
 * low-confidence critical lowers the score by its weighted penalty but does not by itself sink the grade.
 */
export const CAP_MIN_CONFIDENCE = 0.5;
const GRADE_CAPS: Partial<Record<Severity, Grade>> = { critical: 'D', high: 'C' };

const GRADE_ORDER: readonly Grade[] = ['A', 'B', 'C', 'D', 'F'];

export interface ScoreResult {
  score: number;
  grade: Grade;
  counts: Record<Severity, number>;
}

/**
 * score = 100 − Σ over rules Σ_i weight(severity_i) × confidence_i × REPEAT_DECAY^i (each rule's findings taken
 * in decreasing penalty order), clamped to 0..100 and rounded; grade from the thresholds, then capped.
 * Findings the judge panel dismissed are kept in the report but neither cost points nor count.
 */
export function scoreFindings(findings: readonly Finding[]): ScoreResult {
  const counts: Record<Severity, number> = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
  const penaltiesByRule = new Map<string, number[]>();
  let cap: Grade = 'A';

  for (const finding of findings) {
    if (finding.consensus === 'dismiss') continue;
    counts[finding.severity] += 1;
    const confidence = Math.min(1, Math.max(0, Number.isFinite(finding.confidence) ? finding.confidence : 1));
    const penalties = penaltiesByRule.get(finding.ruleId) ?? [];
    penalties.push(SEVERITY_WEIGHTS[finding.severity] * confidence);
    penaltiesByRule.set(finding.ruleId, penalties);
    const severityCap = GRADE_CAPS[finding.severity];
    if (severityCap && confidence >= CAP_MIN_CONFIDENCE) cap = worse(cap, severityCap);
  }

  let penalty = 0;
  for (const penalties of penaltiesByRule.values()) {
    penalties.sort((a, b) => b - a);
    penalties.forEach((points, index) => {
      penalty += points * REPEAT_DECAY ** index;
    });
  }

  const score = Math.round(Math.min(100, Math.max(0, 100 - penalty)));
  return { score, grade: worse(gradeForScore(score), cap), counts };
}

export function gradeForScore(score: number): Grade {
  for (const [grade, minimum] of GRADE_THRESHOLDS) if (score >= minimum) return grade;
  return 'F';
}

function worse(a: Grade, b: Grade): Grade {
  return GRADE_ORDER.indexOf(a) >= GRADE_ORDER.indexOf(b) ? a : b;
}
