import { readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'vitest';
import { inventoryWorkspace } from '../../inventory.js';
import { javascriptAnalyzer } from './index.js';

test('perf', async () => {
  const root = '/work/main/.bench-cache/unpacked';
  const only = process.env.ONLY ?? '';
  let parseTotal = 0, fastTotal = 0, deepTotal = 0;
  const rows: string[] = [];
  for (const name of readdirSync(root)) {
    if (name.endsWith('.json') || !name.includes(only)) continue;
    const inv = await inventoryWorkspace(path.join(root, name));
    const files = inv.files.filter((f) => (f.role === 'source' || f.role === 'bundle') && (f.language === 'javascript' || f.language === 'typescript'));
    const time = async (fn: () => Promise<unknown>) => { const t = performance.now(); await fn(); return performance.now() - t; };
    await javascriptAnalyzer.analyze(files, { mode: 'fast' });
    const reps = 3; let p = Infinity, f = Infinity, d = Infinity; let res: any;
    for (let i = 0; i < reps; i++) {
      p = Math.min(p, await time(() => javascriptAnalyzer.parseOnly(files)));
      f = Math.min(f, await time(async () => { res = await javascriptAnalyzer.analyze(files, { mode: 'fast' }); }));
      d = Math.min(d, await time(() => javascriptAnalyzer.analyze(files, { mode: 'deep' })));
    }
    parseTotal += p; fastTotal += f; deepTotal += d;
    const bytes = files.reduce((a, b) => a + b.size, 0);
    rows.push(`${name.padEnd(60)} files=${String(files.length).padStart(4)} kb=${String(Math.round(bytes / 1024)).padStart(6)} parse=${p.toFixed(1).padStart(7)} fast=${f.toFixed(1).padStart(7)} (${(f / p).toFixed(2)}x) deep=${d.toFixed(1).padStart(7)} tools=${res.tools.length} flows=${res.flows.length} facts=${res.facts.length} problems=${res.problems.length}`);
  }
  console.log(rows.join('\n'));
  console.log(`TOTAL parse=${parseTotal.toFixed(1)} fast=${fastTotal.toFixed(1)} (${(fastTotal / parseTotal).toFixed(2)}x) deep=${deepTotal.toFixed(1)} (${(deepTotal / parseTotal).toFixed(2)}x)`);
}, 600_000);
