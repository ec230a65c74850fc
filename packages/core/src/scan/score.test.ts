import { describe, expect, it } from 'vitest';
import type { Finding, Severity } from './model.js';
import { gradeForScore, scoreFindings } from './score.js';

let sequence = 0;
function finding(severity: Severity, overrides: Partial<Finding> = {}): Finding {
  sequence += 1;
  return {
    id: `f${sequence}`,
    ruleId: `rule-${severity}`,
    category: 'command-injection',
    severity,
    confidence: 1,
    message: 'm',
    evidence: 'e',
    ...overrides,
  };
}

describe('scoreFindings', () => {
  it('gives a clean target 100 and A with zero counts', () => {
    expect(scoreFindings([])).toEqual({
      score: 100,
      grade: 'A',
      counts: { critical: 0, high: 0, medium: 0, low: 0, info: 0 },
    });
  });

  it('counts info findings but charges nothing for them', () => {
    const result = scoreFindings([finding('info'), finding('info', { ruleId: 'other' })]);
    expect(result.score).toBe(100);
    expect(result.grade).toBe('A');
    expect(result.counts.info).toBe(2);
  });

  it('orders severities: critical ≫ high ≫ medium ≫ low', () => {
    const scores = (['critical', 'high', 'medium', 'low'] as const).map((s) => scoreFindings([finding(s)]).score);
    expect(scores).toEqual([60, 80, 94, 98]);
  });

  it('scales the penalty by confidence', () => {
    expect(scoreFindings([finding('high', { confidence: 0.5 })]).score).toBe(90);
    expect(scoreFindings([finding('high', { confidence: 0 })]).score).toBe(100);
  });

  it('decays repeated findings of one rule so forty copies of a low rule cannot zero the score', () => {
    const copies = Array.from({ length: 40 }, () => finding('low', { ruleId: 'same-low' }));
    const result = scoreFindings(copies);
    expect(result.score).toBe(96); // bounded by 2 × the worst finding's 2 points
    expect(result.grade).toBe('A');
    expect(result.counts.low).toBe(40);
  });

  it('does not decay across different rules', () => {
    const distinct = Array.from({ length: 5 }, (_, i) => finding('medium', { ruleId: `medium-${i}` }));
    expect(scoreFindings(distinct).score).toBe(70);
  });

  it('charges the strongest finding of a rule in full and decays the weaker ones', () => {
    const result = scoreFindings([
      finding('medium', { ruleId: 'r', confidence: 0.5 }),
      finding('medium', { ruleId: 'r', confidence: 1 }),
    ]);
    expect(result.score).toBe(Math.round(100 - 6 - 3 * 0.5));
  });

  it('caps the grade at D for any likely critical, even when the score alone would be higher', () => {
    const result = scoreFindings([finding('critical', { confidence: 0.5 })]);
    expect(result.score).toBe(80);
    expect(result.grade).toBe('D');
  });

  it('caps the grade at C for any likely high', () => {
    const result = scoreFindings([finding('high', { confidence: 0.6 })]);
    expect(result.score).toBe(88);
    expect(result.grade).toBe('C');
  });

  it('does not cap for a speculative (confidence < 0.5) critical', () => {
    const result = scoreFindings([finding('critical', { confidence: 0.4 })]);
    expect(result.score).toBe(84);
    expect(result.grade).toBe('B');
  });

  it('lets the score go below the cap: caps only ever lower the grade', () => {
    const result = scoreFindings([
      finding('critical', { ruleId: 'a' }),
      finding('critical', { ruleId: 'b' }),
      finding('high', { ruleId: 'c' }),
    ]);
    expect(result.score).toBe(0);
    expect(result.grade).toBe('F');
  });

  it('ignores findings the judges dismissed, for score, caps and counts', () => {
    const result = scoreFindings([finding('critical', { consensus: 'dismiss' }), finding('low', { consensus: 'confirm' })]);
    expect(result).toEqual({ score: 98, grade: 'A', counts: { critical: 0, high: 0, medium: 0, low: 1, info: 0 } });
  });

  it('treats out-of-range confidence as the nearest valid value', () => {
    expect(scoreFindings([finding('medium', { confidence: 7 })]).score).toBe(94);
    expect(scoreFindings([finding('medium', { confidence: -1 })]).score).toBe(100);
  });
});

describe('gradeForScore', () => {
  it.each([
    [100, 'A'],
    [90, 'A'],
    [89, 'B'],
    [80, 'B'],
    [79, 'C'],
    [70, 'C'],
    [69, 'D'],
    [60, 'D'],
    [59, 'F'],
    [0, 'F'],
  ] as const)('%i → %s', (score, grade) => {
    expect(gradeForScore(score)).toBe(grade);
  });
});
