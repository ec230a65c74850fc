import type { CodeFact, ExtractionDiagnostic, Language, ParseProblem, ScanMode, SourceFile, TaintFlow, ToolDefinition } from '../model.js';

/** What one language analyzer learns from the source files of its language. */
export interface LanguageAnalysis {
  tools: ToolDefinition[];
  flows: TaintFlow[];
  facts: CodeFact[];
  problems: ParseProblem[];
  /** Files that parsed (a file that failed to parse is in `problems` and skipped, never fatal). */
  parsedFiles: number;
  /** Server frameworks in use whose tools were not found (see extract/frameworks.ts). */
  diagnostics?: ExtractionDiagnostic[];
}

export interface AnalyzeOptions {
  mode: ScanMode;
  signal?: AbortSignal;
  /** Called after each file is parsed, for progress. */
  onFile?: (file: SourceFile) => void;
  /** The text of any text file of the package (JSON, Markdown, …) by its path: descriptions kept in data files. */
  readText?: (path: string) => string | undefined;
}

/**
 * One per language family (JS/TS with oxc-parser, Python with web-tree-sitter). The engine hands each analyzer the
 * files whose `language` it claims and whose role is `source` or `bundle` (vendored code is inventoried only). The
 * dataflow follows calls across the package's files in both modes; deep mode adds judges, not reach.
 */
export interface LanguageAnalyzer {
  id: string;
  languages: readonly Language[];
  analyze(files: readonly SourceFile[], options: AnalyzeOptions): Promise<LanguageAnalysis>;
  /** Parse only, nothing else: the benchmark's baseline. Returns how many files parsed. */
  parseOnly(files: readonly SourceFile[]): Promise<number>;
}
