import { describe, expect, it } from 'vitest';
import { finding, report } from '../test/events.js';
import { createPlainProgress, plainProgressLine } from './plain.js';

describe('plain progress lines', () => {
  it('prints stages, findings with where, problems, completion and errors; not per-file counters', () => {
    const lines: string[] = [];
    const onEvent = createPlainProgress((line) => lines.push(line));
    const high = finding({
      severity: 'high',
      ruleId: 'shell-injection',
      location: { file: 'src/index.ts', line: 12, column: 5 },
    });
    onEvent({ type: 'stage', target: './srv', stage: 'fetch' });
    onEvent({ type: 'progress', target: './srv', stage: 'analyze', done: 1, total: 4 });
    onEvent({ type: 'finding', target: './srv', finding: high });
    onEvent({ type: 'problem', target: './srv', file: 'bad.ts', message: 'unexpected token' });
    onEvent({ type: 'done', target: './srv', report: report('./srv', [high]) });
    onEvent({ type: 'error', target: 'npm:nope', message: 'package not found' });
    expect(lines).toEqual([
      '[./srv] stage fetch\n',
      '[./srv] finding HIGH shell-injection tool input reaches a shell command at src/index.ts:12:5\n',
      '[./srv] problem bad.ts: unexpected token\n',
      '[./srv] done 1 finding(s), score 40/100 grade D\n',
      '[npm:nope] failed\n',
    ]);
  });

  it('names the tool field for findings about model-facing text and shows hidden characters', () => {
    const line = plainProgressLine({
      type: 'finding',
      target: 't',
      finding: finding({
        severity: 'critical',
        ruleId: 'hidden-instructions',
        message: 'description hides text\u200B',
        tool: { name: 'add', kind: 'tool', field: 'description' },
      }),
    });
    expect(line).toMatch(/^\[t\] finding CRITICAL hidden-instructions description hides text\S*U\+200B\S* at tool add › description$/);
    expect(line).not.toContain('\u200B');
  });

  it('says why a target was not scanned', () => {
    const line = plainProgressLine({
      type: 'done',
      target: 'https://x/mcp',
      report: report('https://x/mcp', [], { score: null, grade: null, coverage: { status: 'not-scanned', reasons: ['remote endpoint: code not available'] } }),
    });
    expect(line).toBe('[https://x/mcp] done 0 finding(s), score not graded, not scanned: remote endpoint: code not available');
  });

  it('never passes terminal escape sequences from scanned text through', () => {
    const line = plainProgressLine({ type: 'problem', target: 'evil\u001b[2J', file: 'a.js', message: 'bad\u001b]0;title\u0007' });
    expect(line).not.toContain('\u001b');
    expect(line).toMatch(/^\[evil\S*U\+001B\S*\[2J\] problem a\.js: bad\S*U\+001B\S*\]0;title\S*U\+0007\S*$/);
  });
});
