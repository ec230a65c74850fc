import { test } from 'vitest';
import { pythonAnalyzer } from './index.js';
import { pythonSources } from './test-support.js';

test('perf', async () => {
  const files = (await pythonSources(process.env.PERF_DIR ?? '/usr/lib/python3.11')).filter((f) => !f.path.includes('test'));
  const bytes = files.reduce((n, f) => n + f.size, 0);
  await pythonAnalyzer.parseOnly(files.slice(0, 5));
  let t = performance.now();
  const parsed = await pythonAnalyzer.parseOnly(files);
  const parseMs = performance.now() - t;
  for (const mode of ['fast', 'deep'] as const) {
    t = performance.now();
    const r = await pythonAnalyzer.analyze(files, { mode });
    const ms = performance.now() - t;
    console.log(mode, { files: files.length, mb: (bytes / 1e6).toFixed(1), parsed, parseMs: Math.round(parseMs), ms: Math.round(ms), ratio: (ms / parseMs).toFixed(2), flows: r.flows.length, facts: r.facts.length, tools: r.tools.length, problems: r.problems.length });
  }
}, 600_000);
