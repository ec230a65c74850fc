import { readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'vitest';
import { inventoryWorkspace } from '../../inventory.js';
import { parseFile } from './ast.js';
import { buildFileIndex } from './file-index.js';
import { extractTools } from './index.js';
import { findFacts } from './facts.js';
import { TaintEngine, newScope } from './taint.js';
import type { FileContext } from './taint.js';

test('prof', async () => {
  const root = '/work/main/.bench-cache/unpacked';
  const only = process.env.ONLY ?? '';
  const t = { parse: 0, index: 0, extract: 0, facts: 0, taint: 0 };
  for (const name of readdirSync(root)) {
    if (name.endsWith('.json') || !name.includes(only)) continue;
    const inv = await inventoryWorkspace(path.join(root, name));
    const files = inv.files.filter((f) => (f.role === 'source' || f.role === 'bundle') && (f.language === 'javascript' || f.language === 'typescript'));
    for (let rep = 0; rep < 2; rep++) {
      const contexts = new Map<string, FileContext>();
      const tools = [];
      for (const file of files) {
        let s = performance.now();
        const o = parseFile(file); if (!o.ok) continue;
        const prog = o.parsed.program; void prog;
        t.parse += performance.now() - s; s = performance.now();
        const index = buildFileIndex(o.parsed);
        t.index += performance.now() - s; s = performance.now();
        const ex = extractTools(index); tools.push(...ex.tools);
        t.extract += performance.now() - s; s = performance.now();
        findFacts(index);
        t.facts += performance.now() - s;
        contexts.set(file.path, { index, handlers: new Map(ex.handlers.map((h) => [h.node, h])), dispatchers: new Set(ex.dispatchers), moduleScope: newScope() });
      }
      const s = performance.now();
      new TaintEngine({ mode: 'fast', files: contexts, tools }).run();
      t.taint += performance.now() - s;
    }
  }
  console.log('PROF', JSON.stringify(Object.fromEntries(Object.entries(t).map(([k, v]) => [k, Math.round(v)]))));
}, 600_000);
