import type { Category, Finding, Severity } from '@svc/core';

export type AdvisoryClass =
  | 'command-injection'
  | 'argument-injection'
  | 'code-injection'
  | 'path-traversal'
  | 'ssrf'
  | 'sql-injection'
  | 'exfiltration'
  | 'exposed-http'
  | 'other';
export type AdvisorySource = 'tool-input' | 'http-request' | 'remote-response';

export interface AdvisoryEntry {
  id: string;
  aliases?: string[];
  package: string;
  vulnerable: string;
  fixed: string | null;
  class: AdvisoryClass;
  categories: Category[];
  file: string;
  /** The corresponding file of the fixed build when a bundler renamed it. */
  fixedFile?: string;
  line: number;
  source: AdvisorySource;
  summary: string;
  shipsInPackage: boolean;
}
export interface CleanEntry {
  name: string;
  version: string;
  note: string;
}
export interface AccuracyCorpus {
  advisories: AdvisoryEntry[];
  clean: CleanEntry[];
  dropped?: Array<{ id: string; package: string; reason: string }>;
}

/** What the evaluation reads of a scan report. */
export interface ReportLike {
  score: number;
  findings: Finding[];
  dismissed?: Finding[];
}
export type ScanOutcome = { report: ReportLike } | { error: string };

export interface Match {
  ruleId: string;
  category: Category;
  severity: Severity;
  file: string | null;
  line: number | null;
  lineDistance: number | null;
  message: string;
}
export interface AdvisoryResult {
  id: string;
  package: string;
  vulnerable: string;
  fixed: string | null;
  class: AdvisoryClass;
  file: string;
  line: number;
  shipsInPackage: boolean;
  scanned: boolean;
  detected: boolean;
  matches: Match[];
  error?: string;
  bestLineDistance?: number | null;
  dismissedMatches?: number;
  scoreVulnerable?: number;
  scoreFixed?: number;
  fixedMatches?: Match[];
  /** Set only for a detected advisory with a scanned fixed version. */
  fixedBetter?: boolean;
  fixedError?: string;
}
export interface SeriousFinding {
  ruleId: string;
  category: Category;
  severity: Severity;
  where: string;
  message: string;
}
export interface CleanResult {
  name: string;
  version: string;
  scanned: boolean;
  score?: number;
  error?: string;
  serious: SeriousFinding[];
}
export interface Tally {
  usable: number;
  tp: number;
  fn: number;
  /** Detected advisories whose fixed version was scanned: the denominator of fixedBetter. */
  fixedScanned: number;
  fixedBetter: number;
  fixedFalsePositives: number;
  recall: number | null;
  precision: number | null;
}
export interface Summary extends Tally {
  excluded: number;
  notScanned: number;
  cleanScanned: number;
  cleanWithSerious: number;
  cleanSeriousFindings: number;
  cleanRate: number | null;
  byClass: Partial<Record<AdvisoryClass, Tally>>;
}
export interface ModeResult {
  mode: 'fast' | 'deep';
  advisories: AdvisoryResult[];
  clean: CleanResult[];
  summary: Summary;
}

export declare const CLASSES: readonly AdvisoryClass[];
export declare const SOURCES: readonly AdvisorySource[];
export declare const THRESHOLDS: { recallMin: number; cleanRateMin: number };
export declare const PRECISION_FORMULA: string;
export declare function validateCorpus(corpus: unknown, categories: readonly string[]): string[];
export declare function packagesToScan(
  corpus: AccuracyCorpus,
): Array<{ name: string; version: string; role: 'vulnerable' | 'fixed' | 'clean' }>;
export declare function isSerious(finding: Pick<Finding, 'severity'>): boolean;
export declare function matchesAnyFile(entry: Pick<AdvisoryEntry, 'class'>): boolean;
export declare function matchFindings(
  entry: AdvisoryEntry,
  findings: readonly Finding[] | undefined,
  options?: { fixed?: boolean },
): Match[];
export declare function evaluateAdvisory(
  entry: AdvisoryEntry,
  vulnerable: ScanOutcome | undefined,
  fixed: ScanOutcome | undefined,
): AdvisoryResult;
export declare function evaluateClean(entry: CleanEntry, outcome: ScanOutcome | undefined): CleanResult;
export declare function summarize(advisories: readonly AdvisoryResult[], clean: readonly CleanResult[]): Summary;
export declare function checkSummary(summary: Summary): Array<{ name: string; value: number | null; target: string; pass: boolean }>;
export declare function percent(value: number | null | undefined): string;
export declare function formatModeMarkdown(result: ModeResult): string;
export declare function formatModeText(
  result: ModeResult,
  formatTable: (headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>) => string,
): string;
