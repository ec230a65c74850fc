import { readdirSync } from 'node:fs';
import { it } from 'vitest';
import { scanTarget } from '../scan/engine.js';
import { parseTarget } from '../scan/target.js';
import { defaultJudges, type Judge } from './panel.js';
it('e2e', async () => {
  const root = process.env.E2E_ROOT ?? '/work/main/fixtures/rules';
  const dirs = process.env.E2E_FLAT ? readdirSync(root).map((d) => `${root}/${d}`) : readdirSync(root).flatMap((rule) => readdirSync(`${root}/${rule}`).map((d) => `${root}/${rule}/${d}`));
  for (const dir of dirs) {
    const votes = new Map<string, string[]>();
    const judges: Judge[] = defaultJudges({}).map((judge) => ({
      ...judge,
      async vote(finding, context, signal) {
        const v = await judge.vote(finding, context, signal);
        const key = `${finding.ruleId} ${finding.location?.file ?? ''}:${finding.location?.line ?? ''} ${finding.tool ? `${finding.tool.name}/${finding.tool.field}` : ''}`;
        votes.set(key, [...(votes.get(key) ?? []), `      ${v.judge} ${v.verdict}: ${v.reason}`]);
        return v;
      },
    }));
    const report = await scanTarget((await parseTarget(dir)) as never, { mode: 'deep', judges });
    const kept = new Set(report.findings.map((f) => `${f.ruleId} ${f.location?.file ?? ''}:${f.location?.line ?? ''} ${f.tool ? `${f.tool.name}/${f.tool.field}` : ''}`));
    console.log(`@@ ${dir.replace(root + '/', '')}\n` + [...votes].map(([k, v]) => `   ${kept.has(k) ? 'KEPT' : 'DISMISSED'} ${k}\n${v.join('\n')}`).join('\n'));
  }
}, 300000);
