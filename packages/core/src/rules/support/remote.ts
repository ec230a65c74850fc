import type { FindingInput, RuleContext } from '../create-rule.js';
import type { RemoteObservation } from '../../scan/model.js';

/**
 * Reports each remote observation of one kind (scan/remote/posture.ts), located at the endpoint URL: a live scan has
 * no file, and the URL is what a reader can act on (and a valid SARIF artifact URI).
 */
export function reportObservations(
  context: RuleContext,
  kind: RemoteObservation['kind'],
  describe: (observation: RemoteObservation) => Pick<FindingInput, 'message' | 'severity'>,
): void {
  for (const observation of context.remote ?? []) {
    if (observation.kind !== kind) continue;
    context.report({ ...describe(observation), evidence: observation.detail, location: { file: observation.url, line: 1, column: 1 } });
  }
}
