import type { ScanRun } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { EXIT, exitCodeForRun, meetsThreshold } from './exit-codes.js';
import { finding, report } from './test/events.js';

function run(findings: Parameters<typeof report>[1], errors: ScanRun['errors'] = []): ScanRun {
  return { schemaVersion: '1.0.0', generator: { name: 'svc', version: '0' }, reports: [report('./x', findings)], errors };
}

describe('exit codes', () => {
  it('orders severities: a threshold includes itself and everything worse', () => {
    expect(meetsThreshold('critical', 'high')).toBe(true);
    expect(meetsThreshold('high', 'high')).toBe(true);
    expect(meetsThreshold('medium', 'high')).toBe(false);
    expect(meetsThreshold('low', 'low')).toBe(true);
    expect(meetsThreshold('info', 'low')).toBe(false);
    expect(meetsThreshold('critical', 'never')).toBe(false);
  });

  it('is 0 without findings at the threshold, 1 with one', () => {
    const medium = finding({ severity: 'medium', ruleId: 'r' });
    expect(exitCodeForRun(run([medium]), 'high')).toBe(EXIT.clean);
    expect(exitCodeForRun(run([medium]), 'medium')).toBe(EXIT.findings);
    expect(exitCodeForRun(run([medium]), 'never')).toBe(EXIT.clean);
    expect(exitCodeForRun(run([]), 'low')).toBe(EXIT.clean);
  });

  it('ignores findings the judge panel dismissed', () => {
    const dismissed = finding({ severity: 'critical', ruleId: 'r', consensus: 'dismiss' });
    const uncertain = finding({ severity: 'critical', ruleId: 'r', consensus: 'uncertain' });
    expect(exitCodeForRun(run([dismissed]), 'high')).toBe(EXIT.clean);
    expect(exitCodeForRun(run([dismissed, uncertain]), 'high')).toBe(EXIT.findings);
  });

  it('is 2 when any target failed, even with findings', () => {
    const critical = finding({ severity: 'critical', ruleId: 'r' });
    expect(exitCodeForRun(run([critical], [{ input: 'npm:x', message: 'not found' }]), 'high')).toBe(EXIT.error);
    expect(exitCodeForRun(run([], [{ input: './gone', message: 'no such directory' }]), 'never')).toBe(EXIT.error);
  });
});
