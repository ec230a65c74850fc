// Which sizes, loops and patterns the rule reports in its fixtures, one by one: each malicious tool reaches a
// different sink, and its benign twin is bounded by a different guard (schema maximum, clamp, refusal, escaping).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scanWorkspace } from '../scan/engine.js';

const root = fileURLToPath(new URL('../../../../fixtures/rules/resource-exhaustion/', import.meta.url));

async function found(fixture: string): Promise<string[]> {
  const dir = path.join(root, fixture);
  const report = await scanWorkspace({ target: { kind: 'directory', input: dir, path: dir }, root: dir, name: fixture, dispose: async () => {} }, { mode: 'fast' });
  return report.findings
    .filter((finding) => finding.ruleId === 'resource-exhaustion')
    .map((finding) => {
      const origin = /parameter `([^`]+)` of tool `([^`]+)`/.exec(finding.message);
      const kind = finding.message.includes('regular expression') ? 'regex' : 'allocation';
      return `${finding.severity} ${origin?.[2]}.${origin?.[1]} ${kind} ${finding.location?.file}:${finding.location?.line}`;
    })
    .sort();
}

describe('resource-exhaustion', () => {
  it('reports each unbounded size, loop and pattern of the TypeScript server', async () => {
    expect(await found('malicious-ts-unbounded-sizes')).toEqual([
      'medium format_banner.width allocation src/samples.ts:21',
      'medium generate_samples.count allocation src/samples.ts:13',
      'medium plan_retries.attempts allocation src/samples.ts:31',
      'medium plan_retries.bufferBytes allocation src/samples.ts:26',
      'medium search_logs.pattern regex src/search.ts:14',
    ]);
  });

  it('reports each unbounded size and pattern of the Python server', async () => {
    expect(await found('malicious-py-unbounded-sizes')).toEqual([
      'medium grep_text.pattern regex src/textkit_mcp/matching.py:16',
      'medium make_ids.count allocation src/textkit_mcp/generate.py:7',
      'medium make_ruler.width allocation src/textkit_mcp/generate.py:11',
      'medium redact_text.pattern regex src/textkit_mcp/matching.py:23',
      'medium test_frame.size allocation src/textkit_mcp/generate.py:15',
    ]);
  });

  it('reads a JSON schema without a maximum as unbounded in a low-level server', async () => {
    expect(await found('malicious-py-lowlevel-batch')).toEqual(['medium reserve_ids.batch allocation server.py:26']);
  });

  it.each(['benign-ts-bounded-sizes', 'benign-py-bounded-sizes', 'benign-py-lowlevel-batch'])('accepts a schema maximum, a clamp, a refusal and escaping (%s)', async (fixture) => {
    expect(await found(fixture)).toEqual([]);
  });

  it('keeps a tool that says it runs a regular expression at low', async () => {
    const dir = fileURLToPath(new URL('../../../../fixtures/rules/ansi-escape-sequences/benign-ts-regex-description/', import.meta.url));
    const report = await scanWorkspace({ target: { kind: 'directory', input: dir, path: dir }, root: dir, name: 'regex-tool', dispose: async () => {} }, { mode: 'fast' });
    expect(report.findings.filter((finding) => finding.ruleId === 'resource-exhaustion').map((finding) => finding.severity)).toEqual(['low']);
  });
});
