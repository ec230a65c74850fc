// The live-endpoint rules on the observations a remote scan makes (scan/remote/posture.ts); the observations
// themselves are tested against real servers in scan/remote/remote.test.ts.
import { describe, expect, it } from 'vitest';
import type { RemoteObservation } from '../scan/model.js';
import { RULES } from './index.js';
import { runRule, tool } from './support/test-context.js';

const URL = 'https://mcp.example.com/mcp';
const OBSERVED: Record<string, RemoteObservation['kind']> = {
  'remote-plaintext-http': 'plaintext-http',
  'remote-no-auth': 'no-auth',
  'remote-session-id-in-url': 'session-id-in-url',
  'remote-dns-rebinding': 'foreign-origin-accepted',
  'remote-cors-credentials': 'cors-credentials-wildcard',
  'remote-tls-error': 'tls-error',
};

describe('live-endpoint rules', () => {
  const live = RULES.filter((rule) => rule.meta.liveEndpoint);
  it('cover every kind of observation, one rule each', () => {
    expect(live.map((rule) => rule.id).sort()).toEqual(Object.keys(OBSERVED).sort());
  });

  it.each(live.map((rule) => [rule.id, rule] as const))('%s reports its own observation at the endpoint URL and nothing else', (id, rule) => {
    const all = Object.values(OBSERVED).map((kind) => ({ kind, url: URL, detail: `${kind} evidence` }));
    const findings = runRule(rule, { remote: all });
    expect(findings).toEqual([expect.objectContaining({ evidence: `${OBSERVED[id]} evidence`, location: { file: URL, line: 1, column: 1 } })]);
    // A static scan has no observations: the rule stays silent whatever the tools say.
    expect(runRule(rule, { tools: [tool('fetch', 'Fetches http://example.com without auth')] })).toEqual([]);
  });
});
