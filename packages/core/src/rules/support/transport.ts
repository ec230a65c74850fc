import type { RuleContext } from '../create-rule.js';
import type { CodeFact } from '../../scan/model.js';

/** Hosts that make a listening socket reachable from other machines (Node binds all interfaces when none is given). */
export function bindsAllInterfaces(fact: CodeFact): boolean {
  const host = (fact.detail ?? 'default').replace(/^\[|\]$/g, '');
  return host === 'default' || host === '0.0.0.0' || host === '::' || host === '' || host === '*';
}

export function factsOf(context: RuleContext, kind: CodeFact['kind']): CodeFact[] {
  return context.facts.filter((fact) => fact.kind === kind);
}

/**
 * The checks of `kind` that can guard `transport`: those in the modules its server loads when the analyzer knows them
 * (an example server beside the library, a second server in the same package, are not guarded by each other's
 * middleware), otherwise any in the package.
 */
export function guardsOf(context: RuleContext, transport: CodeFact, kind: 'auth-middleware' | 'origin-check'): CodeFact[] {
  const all = factsOf(context, kind);
  if (!transport.loads) return all;
  const loaded = new Set(transport.loads);
  return all.filter((fact) => loaded.has(fact.location.file));
}
