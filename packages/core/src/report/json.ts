import { jsonWithVisibleEscapes } from './common.js';
import type { ScanRun } from './schema.js';

/** The run as the JSON contract of schema/report.schema.json: data verbatim, hidden characters as \u escapes. */
export function jsonReporter(run: ScanRun): string {
  return `${jsonWithVisibleEscapes(JSON.stringify(run, null, 2))}\n`;
}
