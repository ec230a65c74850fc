import type { Severity } from '@svc/core';

/** Ink/chalk colour names per severity for the live view; the same palette as the core text reporter. */
export const SEVERITY_COLOR: Record<Severity, string> = {
  critical: 'magenta',
  high: 'red',
  medium: 'yellow',
  low: 'cyan',
  info: 'gray',
};
