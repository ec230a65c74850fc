import type { ScanEvent } from '@svc/core';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { finding, report } from '../test/events.js';
import { initialProgress, reduceProgress } from './progress-state.js';
import type { ProgressState } from './progress-state.js';
import { ScanView } from './ScanView.js';

const shellFinding = finding({
  severity: 'high',
  ruleId: 'shell-injection',
  location: { file: 'src/server.ts', line: 7, column: 3 },
});
const hiddenFinding = finding({
  severity: 'critical',
  ruleId: 'hidden-characters',
  category: 'hidden-characters',
  message: 'description contains invisible characters',
  evidence: 'Adds numbers.\u200B\u{E0049}\u{E0047}',
  tool: { name: 'add', kind: 'tool', field: 'description' },
});

const SCRIPT: ScanEvent[] = [
  { type: 'stage', target: './a', stage: 'fetch' },
  { type: 'stage', target: './a', stage: 'analyze' },
  { type: 'progress', target: './a', stage: 'analyze', done: 3, total: 8 },
  { type: 'finding', target: './a', finding: shellFinding },
  { type: 'finding', target: './a', finding: hiddenFinding },
];

function fold(events: ScanEvent[]): ProgressState {
  return events.reduce(reduceProgress, initialProgress);
}

describe('progress state', () => {
  it('creates a row per target on first sight and tallies findings by severity', () => {
    const state = fold([...SCRIPT, { type: 'stage', target: 'npm:b', stage: 'fetch' }]);
    expect(state.targets.map((row) => row.target)).toEqual(['./a', 'npm:b']);
    expect(state.targets[0]).toMatchObject({ status: 'running', stage: 'analyze', files: { done: 3, total: 8 } });
    expect(state.targets[0]!.counts).toMatchObject({ critical: 1, high: 1, medium: 0 });
    expect(state.findings.map((item) => item.finding.ruleId)).toEqual(['shell-injection', 'hidden-characters']);
  });

  it('takes the final counts from the report, which may have fewer findings after the judges', () => {
    const state = fold([...SCRIPT, { type: 'done', target: './a', report: report('./a', [shellFinding]) }]);
    expect(state.targets[0]).toMatchObject({ status: 'done', result: { score: 40, grade: 'D', files: 3 } });
    expect(state.targets[0]!.counts).toMatchObject({ critical: 0, high: 1 });
  });
});

describe('ScanView', () => {
  it('shows a waiting line before the first event', () => {
    const { lastFrame } = render(<ScanView state={initialProgress} inputs={2} color={false} />);
    expect(lastFrame()).toContain('Scanning 2 targets…');
  });

  it('shows stage, file counter, tally and every finding with rule id, message, where and visible evidence', () => {
    const { lastFrame, frames } = render(<ScanView state={fold(SCRIPT)} inputs={1} color={false} />);
    const output = frames.join('\n');
    expect(lastFrame()).toMatch(/\.\/a\s+analyze 3\/8 files\s+│\s+1 critical · 1 high/);
    expect(output).toMatch(/HIGH\s+shell-injection tool input reaches a shell command/);
    expect(output).toContain('./a src/server.ts:7:3');
    expect(output).toMatch(/CRITICAL\s+hidden-characters description contains invisible characters/);
    expect(output).toContain('./a tool add › description');
    expect(output).toMatch(/Adds numbers\.\S*U\+200B\S*U\+E0049\S*U\+E0047/);
    expect(output).not.toMatch(/[\u200B\u{E0049}]/u);
  });

  it('prints each finding once as more events arrive, and ends with done and failed rows', () => {
    let state = initialProgress;
    const view = render(<ScanView state={state} inputs={2} color={false} />);
    const events: ScanEvent[] = [
      ...SCRIPT,
      { type: 'done', target: './a', report: report('./a', [shellFinding, hiddenFinding]) },
      { type: 'error', target: 'npm:missing', message: 'package not found in the registry' },
    ];
    for (const event of events) {
      state = reduceProgress(state, event);
      view.rerender(<ScanView state={state} inputs={2} color={false} />);
    }
    // Ink's test renderer prints all static output so far plus the live rows in every frame.
    expect(view.lastFrame()!.match(/shell-injection/g)).toHaveLength(1);
    expect(view.lastFrame()).toMatch(/✔ \.\/a done 3 files, score 40 \(D\)\s+│\s+1 critical · 1 high/);
    expect(view.lastFrame()).toContain('✖ npm:missing failed');
    // The reason is printed once, after the scan, not also in the live view.
    expect(view.lastFrame()).not.toContain('package not found in the registry');
  });

  it('says when a target was reported but not scanned', () => {
    const state = fold([
      {
        type: 'done',
        target: 'https://h/mcp',
        report: report('https://h/mcp', [], { score: null, grade: null, coverage: { status: 'not-scanned', reasons: ['remote endpoint'] } }),
      },
    ]);
    const { lastFrame } = render(<ScanView state={state} inputs={1} color={false} />);
    expect(lastFrame()).toContain('! https://h/mcp not scanned: remote endpoint │ no findings');
  });

  it('marks a partly scanned target beside its score, not with a check mark', () => {
    const state = fold([
      {
        type: 'done',
        target: './pkg',
        report: report('./pkg', [], { score: 100, grade: 'A', coverage: { status: 'partial', reasons: ['1 file not parsed (a.js: x)'] } }),
      },
    ]);
    const { lastFrame } = render(<ScanView state={state} inputs={1} color={false} />);
    expect(lastFrame()).toContain('! ./pkg done 3 files, score 100 (A) partial: 1 gap, see the report');
    expect(lastFrame()).not.toContain('✔');
  });
});
