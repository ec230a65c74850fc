import type { FindingInput, ModelText, Rule, ToolDefinition } from '@svc/core';

export interface CorpusItem {
  id: string;
  label: 'poisoned' | 'benign';
  style: string;
  lang?: string;
  tool: string;
  siblings?: string[];
  field?: string;
  text: string;
}
export interface Core {
  rules: readonly Rule[];
  modelTexts(tools: readonly ToolDefinition[]): ModelText[];
}
export interface StyleRow {
  label: 'poisoned' | 'benign';
  style: string;
  total: number;
  flagged: number;
}
export interface Evaluation {
  rows: StyleRow[];
  misses: CorpusItem[];
  poisoned: { total: number; flagged: number };
  benign: { total: number; flagged: number };
  msPerDescription: number;
}
export declare function serverOf(item: CorpusItem): ToolDefinition[];
export declare function flagsOf(item: CorpusItem, core: Core): Array<FindingInput & { rule: string }>;
export declare function evaluate(items: readonly CorpusItem[], core: Core): Evaluation;
export declare function percent(part: number, whole: number): string;
export declare function formatResult(title: string, result: Evaluation): string;
export declare function costPerText(realItems: readonly (CorpusItem & { server?: string })[], core: Core): { servers: number; texts: number; msPerText: number };
export declare function realItems(data: { servers: Record<string, string[]>; items: Array<Omit<CorpusItem, 'label'> & { server: string }> }): Array<CorpusItem & { server: string }>;
