import type { ScanEvent } from '@svc/core';
import { findingWhere } from './describe.js';
import { visible } from './visible.js';

/**
 * Progress as one line per event, for logs and pipes (stderr is not a terminal). Per-file progress counters are left
 * out: they would flood a CI log without telling anything the stage lines do not.
 */
export function plainProgressLine(event: ScanEvent): string | undefined {
  const prefix = `[${visible(event.target)}]`;
  switch (event.type) {
    case 'stage':
      return `${prefix} stage ${event.stage}`;
    case 'progress':
      return undefined;
    case 'finding': {
      const { finding } = event;
      const where = findingWhere(finding);
      return `${prefix} finding ${finding.severity.toUpperCase()} ${finding.ruleId} ${visible(finding.message)}${where ? ` (${visible(where)})` : ''}`;
    }
    case 'problem':
      return `${prefix} problem ${visible(event.file)}: ${visible(event.message)}`;
    case 'done': {
      const { report } = event;
      const status = report.notScanned ? `not scanned: ${visible(report.notScanned)}` : `score ${report.score} (${report.grade})`;
      return `${prefix} done ${report.findings.length} finding(s), ${status}`;
    }
    case 'error':
      return `${prefix} error ${visible(event.message)}`;
  }
}

export function createPlainProgress(write: (line: string) => void): (event: ScanEvent) => void {
  return (event) => {
    const line = plainProgressLine(event);
    if (line !== undefined) write(`${line}\n`);
  };
}
