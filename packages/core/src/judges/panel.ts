// The judge panel of deep mode: independent judges vote on every finding; a strict majority of dismissals drops it,
// the rest keep it with a consensus and a confidence moved from the rule's prior by the votes. See docs/judges.md.
import type { CodeFact, Finding, JudgeVote, Manifest, SourceFile, TaintFlow, ToolDefinition, Verdict } from '../scan/model.js';
import { dataflowReachabilityJudge } from './dataflow-reachability.js';
import { descriptionBehaviourJudge } from './description-behaviour.js';
import { lexicalIntentJudge } from './lexical-intent.js';
import { llmJudgeFromEnv } from './llm.js';

/** What a judge may look at besides the finding itself: the scan's inventory and analysis. */
export interface JudgeContext {
  tools: readonly ToolDefinition[];
  flows: readonly TaintFlow[];
  facts: readonly CodeFact[];
  files: readonly SourceFile[];
  /** The package manifests, for what the package runs (entry points); absent, reach is unknown. */
  manifests?: readonly Manifest[];
}

export interface Judge {
  id: string;
  description: string;
  /** Never throws on purpose; the panel still turns a throw into an `uncertain` vote so one judge cannot sink a scan. */
  vote(finding: Finding, context: JudgeContext, signal?: AbortSignal): JudgeVote | Promise<JudgeVote>;
}

export interface PanelResult {
  /** Kept findings, in input order, with votes, consensus and final confidence. */
  findings: Finding[];
  /** Findings a strict majority dismissed, in input order, with their votes (served at /scan/{id}/consensus). */
  dismissed: Finding[];
}

/** The three deterministic judges, plus the LLM judge when SVC_LLM_URL and SVC_LLM_MODEL are set. */
export function defaultJudges(env: NodeJS.ProcessEnv = process.env): Judge[] {
  const judges: Judge[] = [lexicalIntentJudge, descriptionBehaviourJudge, dataflowReachabilityJudge];
  const llm = llmJudgeFromEnv(env);
  if (llm) judges.push(llm);
  return judges;
}

export async function runPanel(
  findings: Finding[],
  context: JudgeContext,
  options: { judges?: Judge[]; signal?: AbortSignal } = {},
): Promise<PanelResult> {
  const judges = options.judges ?? defaultJudges();
  const { signal } = options;
  signal?.throwIfAborted();
  // All findings at once: the deterministic judges are synchronous, and the LLM judge bounds its own concurrency.
  const judged = await Promise.all(
    findings.map(async (finding) => {
      const votes = await Promise.all(judges.map((judge) => castVote(judge, finding, context, signal)));
      return decide(finding, votes);
    }),
  );
  signal?.throwIfAborted();
  const result: PanelResult = { findings: [], dismissed: [] };
  for (const { finding, dismissed } of judged) (dismissed ? result.dismissed : result.findings).push(finding);
  return result;
}

async function castVote(judge: Judge, finding: Finding, context: JudgeContext, signal?: AbortSignal): Promise<JudgeVote> {
  try {
    const vote = await judge.vote(finding, context, signal);
    return { judge: judge.id, verdict: vote.verdict, reason: vote.reason };
  } catch (error) {
    return { judge: judge.id, verdict: 'uncertain', reason: `The judge failed: ${errorMessage(error)}.` };
  }
}

/**
 * Consensus rules (docs/judges.md):
 * - dismissed when strictly more than half of the votes are `dismiss`;
 * - `consensus` is `dismiss` exactly when the finding is dismissed; otherwise the verdict with the most votes, and
 *   `uncertain` on a tie, with no votes, or when dismissals lead without a strict majority;
 * - confidence moves the rule's prior in log-odds space by +1 per confirm, −1 per dismiss and −0.25 per uncertain,
 *   then is clamped to 0.05..0.99 and rounded to two decimals. Log-odds make the result independent of vote order
 *   and keep a strong prior strong after a single dissent;
 * - a finding whose consensus is `uncertain` never ends above the rule's prior (what fast mode reports): a panel that
 *   cannot agree has not added evidence.
 */
export function decide(finding: Finding, votes: JudgeVote[]): { finding: Finding; dismissed: boolean } {
  const count = (verdict: Verdict) => votes.filter((vote) => vote.verdict === verdict).length;
  const confirms = count('confirm');
  const dismisses = count('dismiss');
  const uncertains = count('uncertain');
  const dismissed = dismisses * 2 > votes.length;
  const consensus = dismissed ? 'dismiss' : plurality({ confirm: confirms, dismiss: dismisses, uncertain: uncertains });
  const moved = panelConfidence(finding.confidence, confirms, dismisses, uncertains);
  return {
    finding: { ...finding, votes, consensus, confidence: consensus === 'uncertain' ? Math.min(moved, finding.confidence) : moved },
    dismissed,
  };
}

/**
 * The verdict with the most votes. `dismiss` only counts with a strict majority (handled by the caller), because
 * reports and scores read `consensus: 'dismiss'` as "dismissed"; a kept finding whose plurality dismisses is uncertain.
 */
function plurality(counts: Record<Verdict, number>): Verdict {
  const ranked = (Object.entries(counts) as Array<[Verdict, number]>).sort((a, b) => b[1] - a[1]);
  const [first, second] = ranked;
  if (!first || first[1] === 0 || (second && second[1] === first[1]) || first[0] === 'dismiss') return 'uncertain';
  return first[0];
}

export const CONFIDENCE_FLOOR = 0.05;
export const CONFIDENCE_CEILING = 0.99;
const VOTE_WEIGHT: Record<Verdict, number> = { confirm: 1, dismiss: -1, uncertain: -0.25 };

export function panelConfidence(prior: number, confirms: number, dismisses: number, uncertains: number): number {
  const start = clamp(Number.isFinite(prior) ? prior : 0.5, CONFIDENCE_FLOOR, CONFIDENCE_CEILING);
  const logOdds =
    Math.log(start / (1 - start)) +
    confirms * VOTE_WEIGHT.confirm +
    dismisses * VOTE_WEIGHT.dismiss +
    uncertains * VOTE_WEIGHT.uncertain;
  const moved = 1 / (1 + Math.exp(-logOdds));
  return Math.round(clamp(moved, CONFIDENCE_FLOOR, CONFIDENCE_CEILING) * 100) / 100;
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
