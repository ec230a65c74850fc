import type { Finding, Severity } from '@svc/core';

/** Where a finding points: a code location, or the tool field the model reads. */
export function findingWhere(finding: Finding): string | undefined {
  if (finding.location) {
    const { file, line, column } = finding.location;
    return `${file}:${line}:${column}`;
  }
  if (finding.tool) return `${finding.tool.kind} ${finding.tool.name} › ${finding.tool.field}`;
  return undefined;
}

/** Ink/chalk colour names per severity, shared by the live view and the summaries. */
export const SEVERITY_COLOR: Record<Severity, string> = {
  critical: 'magenta',
  high: 'red',
  medium: 'yellow',
  low: 'cyan',
  info: 'gray',
};
