import { it } from 'vitest';
import { RULES } from '../rules/index.js';
import * as mal from '../rules/support/malicious-texts.js';
import { BENIGN_TOOLS } from '../rules/support/benign-texts.js';
import { runRule } from '../rules/support/test-context.js';
import type { Finding, ToolDefinition } from '../scan/model.js';
import { runPanel, defaultJudges } from './panel.js';
import { context } from './test-builders.js';
it('texts', async () => {
  const malicious = Object.values(mal).filter((v): v is ToolDefinition => typeof v === 'object' && v !== null && 'name' in v);
  const judge = async (label: string, tools: ToolDefinition[], findings: Finding[]) => {
    const r = await runPanel(findings, context({ tools }), { judges: defaultJudges({}) });
    for (const f of [...r.findings, ...r.dismissed]) {
      console.log(`${label} ${r.dismissed.includes(f) ? 'DISMISSED' : 'kept'} ${f.ruleId} ${f.tool?.name}/${f.tool?.field} ${f.consensus} ${f.confidence} ev=${JSON.stringify(f.evidence.slice(0, 90))}\n` + f.votes!.map((v) => `      ${v.judge} ${v.verdict}: ${v.reason}`).join('\n'));
    }
  };
  const textRules = RULES.filter((r) => ['tool-poisoning', 'hidden-characters', 'tool-shadowing', 'exfiltration', 'obfuscation'].includes(r.meta.category));
  for (const t of malicious) {
    const findings: Finding[] = [];
    for (const rule of textRules) for (const f of runRule(rule, { tools: [t] })) findings.push({ id: 'x', ruleId: rule.id, category: rule.meta.category, severity: f.severity!, confidence: f.confidence ?? rule.meta.confidence, message: f.message, evidence: f.evidence, location: f.location, tool: f.tool, flow: f.flow });
    await judge('MAL', malicious, findings);
  }
  // Benign: pretend a rule flagged every sentence of every benign description.
  for (const t of BENIGN_TOOLS) {
    const sentences = (t.description ?? '').split(/(?<=[.!?])\s+/);
    const findings = sentences.map((s, i) => ({ id: `b${i}`, ruleId: 'tool-poisoning-directives', category: 'tool-poisoning' as const, severity: 'medium' as const, confidence: 0.6, message: 'm', evidence: s, tool: { name: t.name, kind: t.kind, field: 'description' } }));
    await judge('BEN', BENIGN_TOOLS, findings);
  }
});
