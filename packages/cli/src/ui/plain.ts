import { coverageNote, describeWhere, scoreLabel, visibleLine } from '@svc/core';
import type { ScanEvent } from '@svc/core';

/**
 * Progress as one line per event, for logs and pipes (stderr is not a terminal). Per-file progress counters are left
 * out: they would flood a CI log without telling anything the stage lines do not.
 */
export function plainProgressLine(event: ScanEvent): string | undefined {
  const prefix = `[${visibleLine(event.target)}]`;
  switch (event.type) {
    case 'stage':
      return `${prefix} stage ${event.stage}`;
    case 'progress':
      return undefined;
    case 'finding': {
      const { finding } = event;
      const where = describeWhere(finding);
      return `${prefix} finding ${finding.severity.toUpperCase()} ${finding.ruleId} ${visibleLine(finding.message)}${where ? ` at ${visibleLine(where)}` : ''}`;
    }
    case 'problem':
      return `${prefix} problem ${visibleLine(event.file)}: ${visibleLine(event.message)}`;
    case 'done': {
      const { report } = event;
      const note = coverageNote(report);
      return `${prefix} done ${report.findings.length} finding(s), score ${scoreLabel(report)}${note ? `, ${note}` : ''}`;
    }
    case 'error':
      // The reason is printed once, with the run's other failures, when the scan ends (`svc: <input>: <reason>`).
      return `${prefix} failed`;
  }
}

export function createPlainProgress(write: (line: string) => void): (event: ScanEvent) => void {
  return (event) => {
    const line = plainProgressLine(event);
    if (line !== undefined) write(`${line}\n`);
  };
}
