import { describe, expect, it } from 'vitest';
import { contextAround, withCodeContext } from './code-context.js';
import { foldRootCauses } from './facets.js';
import type { Finding } from './model.js';

const finding = (id: string, ruleId: string, severity: Finding['severity'], file: string, line = 1): Finding => ({
  id,
  ruleId,
  category: 'insecure-transport',
  severity,
  confidence: 0.7,
  message: `${ruleId} message`,
  evidence: 'app.listen(3000)',
  location: { file, line, column: 1 },
});

const causes: Record<string, string> = { 'http-transport-exposed': 'http-exposure', 'cors-wildcard': 'http-exposure', 'missing-origin-validation': 'http-exposure' };

describe('foldRootCauses', () => {
  it('folds the findings of one root cause in one file into the most severe, and keeps other files and rules apart', () => {
    const folded = foldRootCauses(
      [
        finding('a', 'cors-wildcard', 'medium', 'src/http.ts', 4),
        finding('b', 'http-transport-exposed', 'high', 'src/http.ts', 20),
        finding('c', 'missing-origin-validation', 'medium', 'src/http.ts', 12),
        finding('d', 'cors-wildcard', 'medium', 'src/admin.ts', 3),
        finding('e', 'command-injection', 'critical', 'src/http.ts', 30),
      ],
      (ruleId) => causes[ruleId],
    );
    expect(folded.map((f) => [f.id, (f.facets ?? []).map((facet) => facet.id)])).toEqual([
      ['e', []],
      ['b', ['a', 'c']],
      ['d', []],
    ]);
    expect(folded[1]!.facets![0]).toEqual({ id: 'a', ruleId: 'cors-wildcard', severity: 'medium', message: 'cors-wildcard message', location: { file: 'src/http.ts', line: 4, column: 1 } });
  });
});

describe('code context', () => {
  it('takes two lines either side, clipped at the file\'s ends', () => {
    const lines = ['a', 'b', 'c', 'd', 'e', 'f'];
    expect(contextAround(lines, 1)).toEqual({ startLine: 1, lines: ['a', 'b', 'c'] });
    expect(contextAround(lines, 4)).toEqual({ startLine: 2, lines: ['b', 'c', 'd', 'e', 'f'] });
  });

  it('cuts a minified line to a window around the column', () => {
    const long = `${'x'.repeat(5000)}exec(cmd)${'y'.repeat(5000)}`;
    const [line] = contextAround([long], 1, 5001).lines;
    expect(line!.length).toBeLessThanOrEqual(162);
    expect(line).toContain('exec(cmd)');
    expect(line!.startsWith('…') && line!.endsWith('…')).toBe(true);
  });

  it('leaves out the line of a secret and findings about a tool\'s text', () => {
    const text = 'const key = "sk-live-0123456789abcdef";\n';
    const secret: Finding = { ...finding('s', 'hardcoded-secret', 'high', 'src/key.ts'), category: 'secrets' };
    const described: Finding = { ...finding('t', 'tool-poisoning-directives', 'high', 'src/key.ts'), tool: { name: 'x', kind: 'tool', field: 'description' } };
    const code = finding('c', 'command-injection', 'high', 'src/key.ts');
    const [a, b, c] = withCodeContext([secret, described, code], () => text);
    expect(a!.context).toBeUndefined();
    expect(b!.context).toBeUndefined();
    expect(c!.context).toEqual({ startLine: 1, lines: ['const key = "sk-live-0123456789abcdef";', ''] });
  });
});
