import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scanWorkspace, type ScanOptions } from './engine.js';
import type { ScanReport, ScanTarget } from './model.js';
import { createBaseline, inlineSuppressions } from './suppressions.js';

const BARE_IGNORE = fileURLToPath(new URL('../../../../fixtures/rules/suppression-without-reason/malicious-ts-bare-ignore/', import.meta.url));
const at = new Date('2026-11-18T10:00:00.000Z');

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'svc-suppress-'));
  await cp(BARE_IGNORE, root, { recursive: true });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function scan(options: ScanOptions = {}, target: ScanTarget = { kind: 'directory', input: root, path: root }): Promise<ScanReport> {
  return scanWorkspace({ target, root, name: 'repo-tools-mcp', dispose: async () => {} }, { clock: () => at, ...options });
}

const ruleIds = (report: ScanReport) => report.findings.map((finding) => finding.ruleId);

async function giveReason(reason: string): Promise<void> {
  const file = path.join(root, 'src/index.ts');
  const text = await readFile(file, 'utf8');
  await writeFile(file, text.replace('// svc-ignore command-injection\n', `// svc-ignore command-injection: ${reason}\n`));
}

describe('inline svc-ignore', () => {
  it('reads the rules and the reason of comments in every comment syntax', () => {
    const files = [
      { path: 'a.ts', absPath: '', role: 'source' as const, size: 0, text: 'x();\nrun(cmd); // svc-ignore command-injection, ssrf: both inputs are enums\n' },
      { path: 'b.py', absPath: '', role: 'source' as const, size: 0, text: '# svc-ignore *: generated test data\nos.system(x)\n' },
      { path: 'c.js', absPath: '', role: 'source' as const, size: 0, text: '/* svc-ignore code-injection */\n' },
    ];
    expect(inlineSuppressions(files)).toEqual([
      { file: 'a.ts', line: 2, rules: ['command-injection', 'ssrf'], reason: 'both inputs are enums' },
      { file: 'b.py', line: 1, rules: ['*'], reason: 'generated test data' },
      { file: 'c.js', line: 1, rules: ['code-injection'], reason: '' },
    ]);
  });

  it('does not honour a comment without a reason, and reports the comment', async () => {
    const report = await scan();
    expect(ruleIds(report)).toEqual(expect.arrayContaining(['command-injection', 'suppression-without-reason']));
    expect(report.suppressed).toBeUndefined();
  });

  it('moves the finding on the next line to `suppressed`, with the comment\'s reason and place, when it gives a reason', async () => {
    await giveReason('the file name comes from our own index, see indexer.ts');
    const report = await scan();
    expect(ruleIds(report)).not.toContain('command-injection');
    expect(ruleIds(report)).not.toContain('suppression-without-reason');
    expect(report.suppressed?.map((finding) => [finding.ruleId, finding.suppression])).toEqual([
      ['command-injection', { kind: 'inline', reason: 'the file name comes from our own index, see indexer.ts', source: 'src/index.ts:14' }],
    ]);
    expect(report.counts.critical + report.counts.high).toBe(0);
  });

  it('is ignored in a package fetched from a registry: a package cannot silence its own findings', async () => {
    await giveReason('trust me');
    const report = await scan({}, { kind: 'npm', input: 'npm:repo-tools-mcp', name: 'repo-tools-mcp', spec: 'repo-tools-mcp' });
    expect(ruleIds(report)).toContain('command-injection');
    expect(report.suppressed).toBeUndefined();
  });
});

describe('svc.config.json', () => {
  const config = (data: unknown) => writeFile(path.join(root, 'svc.config.json'), JSON.stringify(data));

  it('disables rules, excludes paths, overrides severities and carries failOn into the report', async () => {
    await config({ disable: ['suppression-without-reason'], severity: { 'command-injection': 'medium' }, failOn: 'medium' });
    const report = await scan();
    expect(report.findings.find((finding) => finding.ruleId === 'command-injection')?.severity).toBe('medium');
    expect(report.suppressed?.map((finding) => finding.suppression)).toEqual([
      { kind: 'config', reason: 'rule suppression-without-reason disabled', source: 'svc.config.json' },
    ]);
    expect(report.repoConfig).toEqual({ file: 'svc.config.json', failOn: 'medium' });

    await config({ exclude: ['src/**'] });
    const excluded = await scan();
    expect(excluded.findings.filter((finding) => finding.location?.file.startsWith('src/'))).toEqual([]);
    expect(excluded.suppressed?.every((finding) => finding.suppression?.reason.startsWith('path src/'))).toBe(true);
  });

  it('fails the target with the reason when the file is wrong, rather than scanning without it', async () => {
    await config({ disable: ['comand-injection'] });
    await expect(scan()).rejects.toThrow(/unknown rule id `comand-injection`/);
    await config({ disabled: [] });
    await expect(scan()).rejects.toThrow(/svc\.config\.json is not valid: Unrecognized key/);
    await writeFile(path.join(root, 'svc.config.json'), '{ "disable": [ }');
    await expect(scan()).rejects.toThrow(/svc\.config\.json is not valid JSON/);
  });

  it('reads it as a file of the scanned tree: a symbolic link or a FIFO is refused, never followed or waited on', async () => {
    const secret = path.join(root, '..', `outside-${path.basename(root)}.json`);
    await writeFile(secret, JSON.stringify({ disable: ['command-injection'] }));
    try {
      await symlink(secret, path.join(root, 'svc.config.json'));
      await expect(scan()).rejects.toThrow(/svc\.config\.json is a symbolic link; refused/);
      await rm(path.join(root, 'svc.config.json'));
      execFileSync('mkfifo', [path.join(root, 'svc.config.json')]);
      await expect(scan()).rejects.toThrow(/svc\.config\.json is not a regular file; refused/);
    } finally {
      await rm(secret, { force: true });
    }
  });
});

describe('baseline', () => {
  it('silences the findings it lists until their expiry, then they come back', async () => {
    const first = await scan();
    const baseline = createBaseline(first.findings, 'accepted in the 1.2 security review', at, '2026-12-31');
    const data = JSON.parse(JSON.stringify(baseline));
    const options: ScanOptions = { suppressions: { baseline: { file: '.svc-baseline.json', data } } };

    const before = await scan(options);
    expect(before.findings).toEqual([]);
    expect(before.suppressed?.map((finding) => finding.suppression?.kind)).toEqual(first.findings.map(() => 'baseline'));
    expect(before.suppressed?.[0]?.suppression?.reason).toBe('accepted in the 1.2 security review (until 2026-12-31)');

    const after = await scan({ ...options, clock: () => new Date('2027-01-01T00:00:00.000Z') });
    expect(ruleIds(after).sort()).toEqual(ruleIds(first).sort());
  });

  it('still reports a finding that is new since the baseline', async () => {
    const first = await scan();
    const baseline = createBaseline(first.findings.filter((finding) => finding.ruleId !== 'command-injection'), 'known', at);
    const report = await scan({ suppressions: { baseline: { file: 'b.json', data: baseline } } });
    expect(ruleIds(report)).toEqual(['command-injection']);
  });

  it('command-line exclusions apply to every target, packages included', async () => {
    const report = await scan(
      { suppressions: { excludeRules: ['command-injection'], excludePaths: ['**/*.json'] } },
      { kind: 'npm', input: 'npm:x', name: 'x', spec: 'x' },
    );
    expect(ruleIds(report)).not.toContain('command-injection');
    expect(report.suppressed?.[0]?.suppression).toEqual({ kind: 'flag', reason: 'rule command-injection excluded', source: '--exclude-rule' });
  });
});
