import { test } from 'vitest';
import path from 'node:path';
import { readdirSync } from 'node:fs';
import { pythonAnalyzer } from './index.js';
import { pythonSources } from './test-support.js';

const ROOT = path.resolve(__dirname, '../../../../../../fixtures');
test('dump', async () => {
  const only = process.env.ONLY;
  const dirs: string[] = [];
  for (const rule of readdirSync(path.join(ROOT, 'rules'))) for (const d of readdirSync(path.join(ROOT, 'rules', rule))) if (d.includes('-py-')) dirs.push(path.join(ROOT, 'rules', rule, d));
  for (const d of readdirSync(path.join(ROOT, 'servers'), { withFileTypes: true }).filter((e) => e.isDirectory() && e.name.endsWith('-py'))) dirs.push(path.join(ROOT, 'servers', d.name));
  for (const dir of dirs) {
    if (only && !dir.includes(only)) continue;
    const result = await pythonAnalyzer.analyze(await pythonSources(dir), { mode: (process.env.MODE as 'fast') ?? 'fast' });
    console.log('=== ' + path.relative(ROOT, dir));
    if (process.env.TOOLS) console.log(JSON.stringify(result.tools.map(({ location, ...t }) => t), null, 1));
    else console.log('tools', result.tools.map((t) => `${t.kind}:${t.name}(${t.parameters.map((p) => p.name + (p.enum ? '[' + p.enum + ']' : '')).join(',')})`).join(' '));
    for (const f of result.flows) console.log('  flow', f.sink.kind, f.sink.callee, f.sink.shell ? 'shell' : '', f.sink.target ?? '', '<-', f.origin.kind, f.origin.tool ?? '', f.origin.param ?? '', (f.origin.detail ?? '').slice(0, 40), f.composition, f.sanitizers.join('+'), f.crossFile ? 'X' : '', '@' + f.sink.location.line);
    for (const f of result.facts) console.log('  fact', f.kind, f.detail ?? '', '@' + f.location.line);
    for (const p of result.problems) console.log('  problem', p.file, p.message);
  }
});
