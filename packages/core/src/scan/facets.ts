import type { Finding, FindingFacet } from './model.js';
import { SEVERITIES } from './model.js';

/**
 * Folds the findings that share a root cause and a file into one: an HTTP server without authentication, with CORS
 * `*` and without an Origin check is one exposure with three facets, not three problems. The most severe finding
 * (then the most confident) carries the others as facets; it keeps its id, so suppressions and baselines of it
 * still match. Runs after suppressions and judges, so a facet silenced or dismissed on its own stays out.
 */
export function foldRootCauses(findings: readonly Finding[], rootCauseOf: (ruleId: string) => string | undefined): Finding[] {
  const groups = new Map<string, Finding[]>();
  const folded: Finding[] = [];
  for (const finding of findings) {
    const cause = rootCauseOf(finding.ruleId);
    if (cause === undefined || finding.location === undefined) {
      folded.push(finding);
      continue;
    }
    const key = `${cause}\0${finding.location.file}`;
    const group = groups.get(key);
    if (group) group.push(finding);
    else groups.set(key, [finding]);
  }
  for (const group of groups.values()) {
    if (group.length === 1) {
      folded.push(group[0]!);
      continue;
    }
    const [primary, ...rest] = [...group].sort(
      (a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) || b.confidence - a.confidence || a.id.localeCompare(b.id),
    );
    folded.push({ ...primary!, facets: rest.map(toFacet) });
  }
  return folded;
}

function toFacet(finding: Finding): FindingFacet {
  return {
    id: finding.id,
    ruleId: finding.ruleId,
    severity: finding.severity,
    message: finding.message,
    ...(finding.location ? { location: finding.location } : {}),
  };
}
