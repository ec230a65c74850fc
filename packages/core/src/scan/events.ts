import type { Finding, ScanReport } from './model.js';

/**
 * Stages in the order a scan runs them; progress UIs and the SSE stream name them. `analyze` covers parsing, tool
 * extraction and dataflow, which the language analyzers do in one pass per file.
 */
export const STAGES = ['fetch', 'inventory', 'analyze', 'rules', 'judges', 'score'] as const;
export type Stage = (typeof STAGES)[number];

/**
 * What a running scan tells the world. The Ink UI, the plain-line logger, the daemon's SSE stream and JSON-lines
 * output all consume this one union.
 */
export type ScanEvent =
  | { type: 'stage'; target: string; stage: Stage }
  | { type: 'progress'; target: string; stage: Stage; done: number; total: number; file?: string }
  | { type: 'finding'; target: string; finding: Finding }
  | { type: 'problem'; target: string; file: string; message: string }
  | { type: 'done'; target: string; report: ScanReport }
  | { type: 'error'; target: string; message: string };

export type ScanEventListener = (event: ScanEvent) => void;
