// Table-driven rule tests over the fixture mini-projects (DESIGN.md convention 4):
//   fixtures/rules/<rule-id>/malicious-*/  must produce at least one finding of <rule-id>;
//   fixtures/rules/<rule-id>/benign-*/     must produce no finding at medium or above, from any rule;
//   fixtures/servers/poisoned-*/           must produce a high or critical finding;
//   fixtures/servers/clean-*/              must produce no finding at medium or above.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { scanWorkspace } from '../scan/engine.js';
import { parseLockfile, serverKey, type Lockfile } from '../scan/lockfile.js';
import type { Finding, ScanMode, ScanReport, Workspace } from '../scan/model.js';
import { RULES } from './index.js';

const fixturesRoot = fileURLToPath(new URL('../../../../fixtures/', import.meta.url));

function subdirectories(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

function workspaceOf(dir: string): Workspace {
  return {
    target: { kind: 'directory', input: dir, path: dir },
    root: dir,
    name: path.basename(dir),
    dispose: async () => {},
  };
}

async function scan(dir: string, mode: ScanMode = 'fast'): Promise<ScanReport> {
  const lock = fixtureLock(dir);
  return scanWorkspace(workspaceOf(dir), { mode, ...(lock ? { lock } : {}) });
}

/**
 * A fixture's own mcp.lock (tool-drift), written by `svc pin . --lockfile mcp.lock` inside it: its one entry is keyed to
 * the fixture wherever the test runs it from.
 */
function fixtureLock(dir: string): Lockfile | undefined {
  const file = path.join(dir, 'mcp.lock');
  if (!existsSync(file)) return undefined;
  const lock = parseLockfile(readFileSync(file, 'utf8'), file);
  const entries = Object.values(lock.servers);
  if (entries.length !== 1) throw new Error(`${file}: a fixture's lock pins exactly one server`);
  return { ...lock, servers: { [serverKey({ kind: 'directory', input: dir, name: path.basename(dir) })]: entries[0]! } };
}

const atLeastMedium = (finding: Finding) => ['critical', 'high', 'medium'].includes(finding.severity);
const summary = (findings: Finding[]) =>
  findings.map((finding) => `${finding.severity} ${finding.ruleId} ${finding.location?.file ?? finding.tool?.name ?? ''}:${finding.location?.line ?? finding.tool?.field ?? ''} ${finding.message}`);

const ruleCases = RULES.flatMap((rule) =>
  subdirectories(path.join(fixturesRoot, 'rules', rule.id)).map((fixture) => ({ rule: rule.id, fixture })),
);

describe('rule fixtures', () => {
  test('every rule has a malicious and a benign fixture (live-endpoint rules have live servers instead)', () => {
    const missing = RULES.filter((rule) => !rule.meta.liveEndpoint).filter((rule) => {
      const names = subdirectories(path.join(fixturesRoot, 'rules', rule.id));
      return !names.some((name) => name.startsWith('malicious-')) || !names.some((name) => name.startsWith('benign-'));
    }).map((rule) => rule.id);
    expect(missing).toEqual([]);
  });

  test.each(ruleCases.filter((c) => c.fixture.startsWith('malicious-')))('$rule: $fixture is found', async ({ rule, fixture }) => {
    const ruleMeta = RULES.find((candidate) => candidate.id === rule)!;
    const mode: ScanMode = ruleMeta.meta.modes.includes('fast') ? 'fast' : 'deep';
    const report = await scan(path.join(fixturesRoot, 'rules', rule, fixture), mode);
    // A finding folded into another of the same root cause is still found: it is a facet of that one.
    const ruleIds = report.findings.flatMap((finding) => [finding.ruleId, ...(finding.facets ?? []).map((facet) => facet.ruleId)]);
    expect(ruleIds.filter((id) => id === rule), summary(report.findings).join('\n')).not.toEqual([]);
  });

  test.each(ruleCases.filter((c) => c.fixture.startsWith('benign-')))('$rule: $fixture stays clean', async ({ rule, fixture }) => {
    const report = await scan(path.join(fixturesRoot, 'rules', rule, fixture));
    expect(summary(report.findings.filter(atLeastMedium))).toEqual([]);
  });
});

describe('showcase servers', () => {
  const servers = subdirectories(path.join(fixturesRoot, 'servers'));

  test.each(servers.filter((name) => name.startsWith('poisoned-')))('%s has high or critical findings', async (name) => {
    const report = await scan(path.join(fixturesRoot, 'servers', name));
    expect(report.findings.filter((finding) => finding.severity === 'critical' || finding.severity === 'high')).not.toEqual([]);
    expect(report.grade).not.toBe('A');
  });

  test.each(servers.filter((name) => name.startsWith('clean-')))('%s stays clean in fast and deep mode', async (name) => {
    for (const mode of ['fast', 'deep'] as const) {
      const report = await scan(path.join(fixturesRoot, 'servers', name), mode);
      expect(summary(report.findings.filter(atLeastMedium))).toEqual([]);
      expect(report.tools.length).toBeGreaterThan(0);
    }
  });
});
