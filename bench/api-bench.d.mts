export declare const TARGETS: { readOverBareMin: number; readP99MsMax: number; steadyTailOverMedianMax: number };
export declare const EDGE_LIMIT: number;
export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}
export interface ConnectionSpread {
  connections: number;
  minRequests: number;
  maxRequests: number;
  firstAnswer: LatencySummary;
  steady: LatencySummary;
  fastestP50: number;
  slowestP50: number;
  p50Spread: number;
}
export interface PhaseResult {
  id: string;
  label: string;
  /** 'bare' (the baseline server) or 'daemon'. */
  kind?: string;
  connections: number;
  requests: number;
  requestsPerSecond: number;
  latency: LatencySummary;
  statuses: Record<string, number>;
  expected: number[];
  errors: number;
  timeouts: number;
  fairness: ConnectionSpread;
  vsBare?: number;
  serverCpuMicrosPerRequest?: number;
}
export interface TargetVerdict {
  name: string;
  value: number;
  target: string;
  pass: boolean;
}
export declare function percentile(sorted: readonly number[], p: number): number;
export declare function latencySummary(values: readonly number[]): LatencySummary;
export declare function connectionSpread(perConnection: ReadonlyArray<readonly number[]>): ConnectionSpread;
export declare function formatStatuses(statuses: Record<string, number>): string;
export declare function checkBudget(plan: { warmup: number; requests: number }): void;
export declare function apiVerdicts(phases: readonly PhaseResult[], plan: { connections: number; highConnections: number }): TargetVerdict[];
export declare function formatApiMarkdown(run: unknown): string;
