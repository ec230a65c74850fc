// The judge panel of deep mode: the engine calls runPanel with defaultJudges(); see docs/judges.md.
export { defaultJudges, runPanel, decide, panelConfidence, CONFIDENCE_CEILING, CONFIDENCE_FLOOR } from './panel.js';
export type { Judge, JudgeContext, PanelResult } from './panel.js';
export { lexicalIntentJudge } from './lexical-intent.js';
export { descriptionBehaviourJudge } from './description-behaviour.js';
export { dataflowReachabilityJudge } from './dataflow-reachability.js';
export { createLlmJudge, llmJudgeFromEnv, LLM_DEFAULT_CONCURRENCY, LLM_DEFAULT_TIMEOUT_MS } from './llm.js';
export type { LlmJudgeOptions } from './llm.js';
