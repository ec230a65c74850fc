// Reporters by name, chosen with `--format` (DESIGN.md convention 5). Each turns a whole run into one string.
import type { FailPolicy } from './common.js';
import { gitlabSastReporter, type GitlabSastOptions } from './gitlab-sast.js';
import { githubReporter } from './github.js';
import { jsonReporter } from './json.js';
import { junitReporter } from './junit.js';
import { markdownReporter } from './markdown.js';
import { sarifReporter } from './sarif.js';
import type { ScanRun } from './schema.js';
import { textReporter, type TextOptions } from './text.js';

export type ReportFormat = 'text' | 'json' | 'sarif' | 'markdown' | 'github' | 'junit' | 'gitlab-sast';

/** Options only some formats use; the others ignore them. */
export type ReporterOptions = TextOptions & FailPolicy & GitlabSastOptions;

export type Reporter = (run: ScanRun, options?: ReporterOptions) => string;

export const REPORTERS: Record<ReportFormat, Reporter> = {
  text: textReporter,
  json: jsonReporter,
  sarif: sarifReporter,
  markdown: markdownReporter,
  github: githubReporter,
  junit: junitReporter,
  'gitlab-sast': gitlabSastReporter,
};

export const REPORT_FORMATS = Object.keys(REPORTERS) as ReportFormat[];

export function isReportFormat(value: string): value is ReportFormat {
  return Object.hasOwn(REPORTERS, value);
}

export function formatRun(format: ReportFormat, run: ScanRun, options: ReporterOptions = {}): string {
  return REPORTERS[format](run, options);
}

export { toGitlabSast, GITLAB_SAST_SCHEMA_VERSION, type GitlabSastReport } from './gitlab-sast.js';
export { toSarif } from './sarif.js';
export type { TextOptions } from './text.js';
