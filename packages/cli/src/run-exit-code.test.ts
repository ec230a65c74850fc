import { meetsThreshold, type ScanRun } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { EXIT } from './exit-codes.js';
import { exitCodeForRun } from './run-exit-code.js';
import { finding, report } from './test/events.js';

function run(findings: Parameters<typeof report>[1], errors: ScanRun['errors'] = []): ScanRun {
  return { schemaVersion: '2.0.0', generator: { name: 'svc', version: '0' }, reports: [report('./x', findings)], errors };
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
    expect(exitCodeForRun(run([medium]), { failOn: 'high' })).toBe(EXIT.clean);
    expect(exitCodeForRun(run([medium]), { failOn: 'medium' })).toBe(EXIT.findings);
    expect(exitCodeForRun(run([medium]), { failOn: 'never' })).toBe(EXIT.clean);
    expect(exitCodeForRun(run([]), { failOn: 'low' })).toBe(EXIT.clean);
    const info = finding({ severity: 'info', ruleId: 'r' });
    expect(exitCodeForRun(run([info]), { failOn: 'low' })).toBe(EXIT.clean);
    expect(exitCodeForRun(run([info]), { failOn: 'info' })).toBe(EXIT.findings);
  });

  it('ignores findings the judge panel dismissed', () => {
    const dismissed = finding({ severity: 'critical', ruleId: 'r', consensus: 'dismiss' });
    const uncertain = finding({ severity: 'critical', ruleId: 'r', consensus: 'uncertain' });
    expect(exitCodeForRun(run([dismissed]), { failOn: 'high' })).toBe(EXIT.clean);
    expect(exitCodeForRun(run([dismissed, uncertain]), { failOn: 'high' })).toBe(EXIT.findings);
  });

  it('is 2 when any target failed, even with findings', () => {
    const critical = finding({ severity: 'critical', ruleId: 'r' });
    expect(exitCodeForRun(run([critical], [{ input: 'npm:x', message: 'not found' }]), { failOn: 'high' })).toBe(EXIT.error);
    expect(exitCodeForRun(run([], [{ input: './gone', message: 'no such directory' }]), { failOn: 'never' })).toBe(EXIT.error);
  });

  it('is 2 when a target was not scanned, whatever the threshold', () => {
    const remote = report('https://h/mcp', [], { score: null, grade: null, coverage: { status: 'not-scanned', reasons: ['remote endpoint'] } });
    const scanned = report('./x', []);
    const mixed: ScanRun = { schemaVersion: '2.0.0', generator: { name: 'svc', version: '0' }, reports: [scanned, remote], errors: [] };
    expect(exitCodeForRun(mixed, { failOn: 'never' })).toBe(EXIT.error);
    expect(exitCodeForRun(mixed, { failOn: 'high', failOnPartial: false })).toBe(EXIT.error);
  });

  it('lets a partly scanned target pass unless --fail-on-partial, which makes it 2', () => {
    const partial = report('./x', [], { coverage: { status: 'partial', reasons: ['1 file not parsed (a.js: x)'] } });
    const partialRun: ScanRun = { schemaVersion: '2.0.0', generator: { name: 'svc', version: '0' }, reports: [partial], errors: [] };
    expect(exitCodeForRun(partialRun, { failOn: 'high' })).toBe(EXIT.clean);
    expect(exitCodeForRun(partialRun, { failOn: 'high', failOnPartial: true })).toBe(EXIT.error);
    // A fully scanned run is not affected by the flag.
    expect(exitCodeForRun(run([]), { failOn: 'high', failOnPartial: true })).toBe(EXIT.clean);
  });

  it('takes a repository\'s failOn (svc.config.json) unless --fail-on was given on the command line', () => {
    const medium = finding({ severity: 'medium', ruleId: 'r' });
    const strict: ScanRun = { schemaVersion: '2.0.0', generator: { name: 'svc', version: '0' }, reports: [report('./x', [medium], { repoConfig: { file: 'svc.config.json', failOn: 'medium' } })], errors: [] };
    expect(exitCodeForRun(strict, { failOn: 'high', failOnExplicit: false })).toBe(EXIT.findings);
    expect(exitCodeForRun(strict, { failOn: 'high', failOnExplicit: true })).toBe(EXIT.clean);
  });
});
