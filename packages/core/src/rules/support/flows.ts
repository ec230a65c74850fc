import { isSafeFlow, UNTRUSTED_ORIGINS, WEAK_GUARDS } from '../../scan/analysis/catalog.js';
import type { FindingInput, RuleContext } from '../create-rule.js';
import type { OriginKind, SinkKind, TaintFlow, ToolDefinition } from '../../scan/model.js';

/**
 * Flows of the given origins (by default every origin an outsider chooses) into the given sinks that no recognised
 * guard makes safe for what the sink does: what every code rule starts from.
 */
export function unsanitisedFlows(
  context: RuleContext,
  sinks: readonly SinkKind[],
  origins: readonly OriginKind[] = UNTRUSTED_ORIGINS,
): TaintFlow[] {
  return context.flows.filter((flow) => sinks.includes(flow.sink.kind) && origins.includes(flow.origin.kind) && !isSafeFlow(flow));
}

export function toolNamed(context: RuleContext, name: string | undefined): ToolDefinition | undefined {
  if (name === undefined) return undefined;
  return context.tools.find((tool) => tool.kind === 'tool' && tool.name === name);
}

/** "parameter `cmd` of tool `run`", or the origin's detail for non-tool origins. */
export function describeOrigin(flow: TaintFlow): string {
  const { origin } = flow;
  if (origin.kind === 'tool-input') {
    const parameter = origin.param ? `parameter \`${origin.param}\`` : 'input';
    return origin.tool ? `${parameter} of tool \`${origin.tool}\`` : `tool ${parameter}`;
  }
  const names: Record<OriginKind, string> = {
    'tool-input': 'tool input',
    'http-request': 'HTTP request data',
    'remote-response': 'a remote server\'s response',
    env: 'the environment',
    'sensitive-file': 'a sensitive file',
    'decoded-constant': 'a decoded constant',
    constant: 'a constant',
    unknown: 'an unknown value',
  };
  return origin.detail ? `${names[origin.kind]} (${origin.detail})` : names[origin.kind];
}

/** The finding fields every flow-based rule shares: located at the sink, carrying the path. */
export function flowFinding(flow: TaintFlow, message: string): Pick<FindingInput, 'message' | 'evidence' | 'location' | 'flow' | 'key'> {
  return {
    message,
    evidence: flow.sink.snippet,
    location: flow.sink.location,
    flow: [...flow.steps, { file: flow.sink.location.file, line: flow.sink.location.line, note: `reaches ${flow.sink.callee}` }],
    key: `${flow.origin.kind}:${flow.origin.tool ?? ''}:${flow.origin.param ?? ''}:${flow.origin.detail ?? ''}:${flow.sink.callee}`,
  };
}

/**
 * A flow that passed a check that does not hold (a weak guard of the catalogue) is reported at that check, once per
 * check and origin however many sinks it guards: the check is what to fix. Undefined when there is none.
 */
export function weakGuardFinding(flow: TaintFlow, consequence: string): Pick<FindingInput, 'message' | 'evidence' | 'location' | 'flow' | 'key'> | undefined {
  const weak = flow.sanitizers.find((name) => name in WEAK_GUARDS);
  if (weak === undefined) return undefined;
  const check = flow.steps.find((step) => step.guard === weak);
  const base = flowFinding(flow, `${describeOrigin(flow)} ${consequence} after a check that does not hold: ${WEAK_GUARDS[weak]}`);
  if (!check) return base;
  return {
    ...base,
    evidence: check.note.replace(/^checked by /, ''),
    location: { file: check.file, line: check.line, column: 1 },
    key: weak,
  };
}

/**
 * MCP clients treat a tool without annotations as possibly destructive, but many do not ask before calling it; a tool
 * that declares `readOnlyHint: true` or `destructiveHint: false` while reaching a dangerous sink is actively misleading.
 */
export function annotationStance(tool: ToolDefinition | undefined): 'declared-destructive' | 'misleading' | 'missing' {
  const annotations = tool?.annotations;
  if (!annotations) return 'missing';
  if (annotations.readOnlyHint === true || annotations.destructiveHint === false) return 'misleading';
  if (annotations.destructiveHint === true) return 'declared-destructive';
  return 'missing';
}
