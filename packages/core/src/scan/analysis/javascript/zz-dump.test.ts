import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'vitest';
import { javascriptAnalyzer } from './index.js';
import { isJsPath, languageOf } from './ast.js';
import type { SourceFile } from '../../model.js';

function files(root: string): SourceFile[] {
  const out: SourceFile[] = [];
  const visit = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const abs = path.join(dir, name);
      if (statSync(abs).isDirectory()) visit(abs);
      else if (isJsPath(abs)) {
        const text = readFileSync(abs, 'utf8');
        out.push({ path: path.relative(root, abs).split(path.sep).join('/'), absPath: abs, language: languageOf(abs)!, role: 'source', size: text.length, text });
      }
    }
  };
  visit(root);
  return out;
}

test('dump', async () => {
  const dirs = (process.env.DUMP_DIRS ?? '').split(',').filter(Boolean);
  for (const dir of dirs) {
    const result = await javascriptAnalyzer.analyze(files(dir), { mode: (process.env.DUMP_MODE as 'fast') ?? 'fast' });
    console.log('=====', dir);
    if (process.env.DUMP_TOOLS) console.log(JSON.stringify(result.tools, null, 1));
    for (const f of result.flows) console.log('FLOW', f.sink.kind, f.sink.callee, `${f.sink.location.file}:${f.sink.location.line}`, JSON.stringify(f.origin), f.composition, f.sanitizers.join(','), f.sink.target ?? '', f.sink.shell ?? '', f.crossFile ? 'cross' : '');
    for (const f of result.facts) console.log('FACT', f.kind, f.detail, `${f.location.file}:${f.location.line}`);
    for (const p of result.problems) console.log('PROBLEM', p.file, p.message);
  }
});
