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
