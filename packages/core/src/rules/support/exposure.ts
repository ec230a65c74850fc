import type { RuleContext } from '../create-rule.js';
import type { CodeFact, Severity, TaintFlow } from '../../scan/model.js';
import { bindsAllInterfaces, factsOf } from './transport.js';

/**
 * What lets others reach the package's own HTTP routes: a socket on every interface (other machines), no
 * authentication check (anyone who reaches it), no Origin/Host check (any web page the user opens, by DNS rebinding
 * or a simple form post to localhost). Empty when the routes are on loopback behind both checks. A package may run
 * several servers (a UI server beside the proxy): the facts of the route's own file are preferred when it has any.
 */
export function httpExposure(context: RuleContext, routeFile?: string): string[] {
  const near = (kind: CodeFact['kind']): CodeFact[] => {
    const all = factsOf(context, kind);
    const local = all.filter((fact) => fact.location.file === routeFile);
    return local.length > 0 ? local : all;
  };
  const listens = near('http-listen');
  const reasons: string[] = [];
  if (listens.length === 0 || listens.some(bindsAllInterfaces)) reasons.push(listens.length === 0 ? 'no loopback-only binding is visible' : 'it listens on all interfaces');
  if (near('auth-middleware').length === 0) reasons.push('no authentication check guards it');
  if (near('origin-check').length === 0) reasons.push('no Origin or Host check guards it');
  return reasons;
}

const LOWER: Record<Severity, Severity> = { critical: 'high', high: 'medium', medium: 'low', low: 'low', info: 'info' };

/**
 * Severity of an injection by who can supply the value, with a sentence saying why: a remote server's answer or an
 * exposed route's request is anyone's (critical). A route on loopback behind authentication and an Origin check is
 * only reachable by the user's own authenticated client: a value it passes on whole is the route's purpose (low), one
 * built into something larger is still an injection, one step lower. Tool input keeps the rule's severity.
 */
export function severityBySource(flow: TaintFlow, context: RuleContext, base: Severity): { severity: Severity; note: string } {
  if (flow.origin.kind === 'remote-response') return { severity: 'critical', note: '. A server the package connects to decides this value.' };
  if (flow.origin.kind !== 'http-request') return { severity: base, note: '' };
  const reasons = httpExposure(context, flow.steps[0]?.file);
  if (reasons.length > 0) return { severity: 'critical', note: `. Anyone can send that request: ${reasons.join(', ')}.` };
  return {
    severity: flow.composition === 'whole' ? 'low' : LOWER[base],
    note: '. The route is on loopback behind authentication and an Origin check, so only the user\'s own authenticated client can send it.',
  };
}
