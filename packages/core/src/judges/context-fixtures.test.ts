// The panel on whole packages (fixtures/judges/): findings in code the package never runs, and CORS on the OAuth
// endpoints the specifications open, are dismissed in deep mode and reported apart; their look-alikes are kept.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scanWorkspace } from '../scan/engine.js';
import type { Finding, ScanReport } from '../scan/model.js';
import { defaultJudges } from './panel.js';

const fixtures = fileURLToPath(new URL('../../../../fixtures/judges/', import.meta.url));

async function scan(fixture: string, mode: 'fast' | 'deep'): Promise<ScanReport> {
  const root = path.join(fixtures, fixture);
  return scanWorkspace(
    { target: { kind: 'directory', input: root, path: root }, root, name: path.basename(root), dispose: async () => {} },
    // The built-in panel only: a configured LLM judge must not change what these tests expect.
    { mode, judges: defaultJudges({}) },
  );
}

/** Rule ids of the findings and of the facets folded into them (scan/facets.ts). */
const ruleIds = (findings: readonly Finding[]) => findings.flatMap((finding) => [finding.ruleId, ...(finding.facets ?? []).map((facet) => facet.ruleId)]).sort();
const key = (finding: Finding) => `${finding.ruleId} ${finding.location?.file}:${finding.location?.line}`;
const vote = (finding: Finding | undefined, judge: string) => finding?.votes?.find((candidate) => candidate.judge === judge);

/** Deep mode reports every fast finding, kept or dismissed, and never more confident when the panel is uncertain. */
function expectSameFindings(fast: ScanReport, deep: ScanReport): void {
  expect([...deep.findings, ...(deep.dismissed ?? [])].map(key).sort()).toEqual(fast.findings.map(key).sort());
  for (const kept of deep.findings.filter((finding) => finding.consensus === 'uncertain')) {
    const before = fast.findings.find((finding) => key(finding) === key(kept));
    expect(kept.confidence, key(kept)).toBeLessThanOrEqual(before!.confidence);
  }
}

describe('code the package never runs', () => {
  it('dismisses the findings of example servers no entry point loads, with both reasons', async () => {
    const fixture = 'package-reach/benign-js-unreached-examples';
    const [fast, deep] = await Promise.all([scan(fixture, 'fast'), scan(fixture, 'deep')]);
    expect(ruleIds(fast.findings)).toEqual(['command-injection', 'cors-wildcard', 'http-transport-exposed', 'missing-origin-validation']);
    expectSameFindings(fast, deep);
    expect(deep.findings).toEqual([]);
    for (const dismissed of deep.dismissed ?? []) {
      expect(dismissed.consensus).toBe('dismiss');
      expect(vote(dismissed, 'lexical-intent')?.reason).toMatch(/examples\/ directory/);
      expect(vote(dismissed, 'dataflow-reachability')?.reason).toMatch(/Nothing mcp-meeting-notes runs loads dist\/examples\/.*entry points \(dist\/index\.js, dist\/cli\.js\)/);
    }
    // The shell injection in the example tool is real code; only its reach is in question, and the other judge says so.
    const injection = deep.dismissed?.find((finding) => finding.ruleId === 'command-injection');
    expect(vote(injection, 'description-behaviour')?.verdict).toBe('confirm');
    expect(deep.score).toBeGreaterThan(fast.score ?? 100);
  });

  it('keeps them when the command imports the example module', async () => {
    const fixture = 'package-reach/malicious-js-entry-imports-example';
    const [fast, deep] = await Promise.all([scan(fixture, 'fast'), scan(fixture, 'deep')]);
    expectSameFindings(fast, deep);
    expect(deep.dismissed).toEqual([]);
    expect(ruleIds(deep.findings)).toEqual(['command-injection', 'cors-wildcard', 'http-transport-exposed', 'missing-origin-validation']);
    const injection = deep.findings.find((finding) => finding.ruleId === 'command-injection');
    expect(injection?.consensus).toBe('confirm');
    expect(vote(injection, 'lexical-intent')?.reason).toMatch(/dist\/cli\.js → dist\/examples\/http-server\.js → dist\/examples\/export-pdf\.js/);
    expect(deep.findings.find((finding) => finding.ruleId === 'http-transport-exposed')?.severity).toBe('high');
  });
});

describe('CORS on OAuth endpoints', () => {
  it('dismisses a wildcard on the metadata, registration and token endpoints without credentials', async () => {
    const fixture = 'oauth-cors/benign-js-oauth-endpoints';
    const [fast, deep] = await Promise.all([scan(fixture, 'fast'), scan(fixture, 'deep')]);
    expect(fast.findings.map(key).sort()).toEqual(['cors-wildcard dist/auth/metadata.js:6', 'cors-wildcard dist/auth/register.js:7', 'cors-wildcard dist/auth/token.js:10']);
    expectSameFindings(fast, deep);
    expect(deep.findings).toEqual([]);
    const reasons = (deep.dismissed ?? []).map((finding) => vote(finding, 'lexical-intent')?.reason);
    expect(reasons).toEqual([
      expect.stringMatching(/metadata document \/\.well-known\/oauth-authorization-server \(dist\/auth\/router\.js:17\)/),
      expect.stringMatching(/dynamic client registration endpoint \(RFC 7591\) \(dist\/auth\/router\.js:20\)/),
      expect.stringMatching(/token endpoint \(dist\/auth\/router\.js:19\)/),
    ]);
  });

  it('keeps a wildcard that lets credentials cross origins, on the token endpoint and on the API', async () => {
    const fixture = 'oauth-cors/malicious-js-cors-credentials-api';
    const [fast, deep] = await Promise.all([scan(fixture, 'fast'), scan(fixture, 'deep')]);
    expectSameFindings(fast, deep);
    expect(deep.dismissed).toEqual([]);
    expect(deep.findings.map(key).sort()).toEqual(['cors-wildcard dist/auth/token.js:6', 'cors-wildcard dist/server.js:20']);
    const token = deep.findings.find((finding) => finding.location?.file === 'dist/auth/token.js');
    expect(vote(token, 'dataflow-reachability')).toMatchObject({ verdict: 'confirm', reason: expect.stringMatching(/credentials cross origins on the token endpoint/) });
    expect(vote(token, 'lexical-intent')?.verdict).toBe('uncertain');
  });
});
