// Reporters by name, chosen with `--format` (DESIGN.md convention 5). Each turns a whole run into one string.
import { githubReporter } from './github.js';
import { jsonReporter } from './json.js';
import { markdownReporter } from './markdown.js';
import { sarifReporter } from './sarif.js';
import type { ScanRun } from './schema.js';
import { textReporter, type TextOptions } from './text.js';

export type ReportFormat = 'text' | 'json' | 'sarif' | 'markdown' | 'github';

/** Options only some formats use; the others ignore them. */
export type ReporterOptions = TextOptions;

export type Reporter = (run: ScanRun, options?: ReporterOptions) => string;

export const REPORTERS: Record<ReportFormat, Reporter> = {
  text: textReporter,
  json: jsonReporter,
  sarif: sarifReporter,
  markdown: markdownReporter,
  github: githubReporter,
};

export const REPORT_FORMATS = Object.keys(REPORTERS) as ReportFormat[];

export function isReportFormat(value: string): value is ReportFormat {
  return Object.hasOwn(REPORTERS, value);
}

export function formatRun(format: ReportFormat, run: ScanRun, options: ReporterOptions = {}): string {
  return REPORTERS[format](run, options);
}

export { toSarif } from './sarif.js';
export type { TextOptions } from './text.js';
