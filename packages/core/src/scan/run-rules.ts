// Running the rule catalog over one target's inputs, shared by the file pipeline (engine.ts) and live remote scans
// (remote/scan.ts): one finding per problem (ids stable across runs), a broken rule recorded as a problem.

import { createHash } from 'node:crypto';
import type { FindingInput, Rule, RuleContext } from '../rules/create-rule.js';
import { SEVERITIES, type Finding, type ParseProblem } from './model.js';
import { createYielder } from './yielder.js';

export type RuleInputs = Omit<RuleContext, 'report'>;

export async function runRules(rules: readonly Rule[], inputs: RuleInputs, problems: ParseProblem[], signal?: AbortSignal): Promise<Finding[]> {
  const findings = new Map<string, Finding>();
  const tick = createYielder(signal);
  for (const rule of rules) {
    if (!rule.meta.modes.includes(inputs.mode)) continue;
    await tick();
    const context: RuleContext = {
      ...inputs,
      report: (input) => {
        const finding = toFinding(rule, input);
        // The same problem reached twice (e.g. two flows into one sink) is one finding; keep the most severe.
        const existing = findings.get(finding.id);
        if (!existing || severityRank(finding.severity) < severityRank(existing.severity)) findings.set(finding.id, finding);
      },
    };
    try {
      rule.check(context);
    } catch (error) {
      // A rule bug must not sink the scan; it is reported like a file that did not parse.
      problems.push({ file: '.', message: `rule ${rule.id} failed: ${error instanceof Error ? error.message : String(error)}`, kind: 'failed' });
    }
  }
  return [...findings.values()];
}

function toFinding(rule: Rule, input: FindingInput): Finding {
  const where = input.location
    ? `${input.location.file}:${input.location.line}`
    : input.tool
      ? `${input.tool.kind}:${input.tool.name}:${input.tool.field}`
      : '';
  const id = createHash('sha256')
    .update(`${rule.id}\0${where}\0${input.key ?? input.evidence}`)
    .digest('hex')
    .slice(0, 16);
  const finding: Finding = {
    id,
    ruleId: rule.id,
    category: rule.meta.category,
    severity: input.severity ?? rule.meta.severity,
    confidence: input.confidence ?? rule.meta.confidence,
    message: input.message,
    evidence: input.evidence,
  };
  if (input.location) finding.location = input.location;
  if (input.tool) finding.tool = input.tool;
  if (input.flow && input.flow.length > 0) finding.flow = input.flow;
  return finding;
}

function severityRank(severity: Finding['severity']): number {
  return SEVERITIES.indexOf(severity);
}

export function sortFindings(findings: Finding[]): Finding[] {
  return findings.sort(
    (a, b) =>
      severityRank(a.severity) - severityRank(b.severity) ||
      a.ruleId.localeCompare(b.ruleId) ||
      (a.location?.file ?? '').localeCompare(b.location?.file ?? '') ||
      (a.location?.line ?? 0) - (b.location?.line ?? 0) ||
      a.id.localeCompare(b.id),
  );
}

