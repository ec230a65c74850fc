import { SEVERITIES } from '@svc/core';
import type { Coverage, Finding, ScanEvent, Severity, Stage } from '@svc/core';

export interface TargetProgress {
  target: string;
  status: 'running' | 'done' | 'failed';
  stage?: Stage;
  /** The latest progress counter of the current stage (files done / total). */
  files?: { done: number; total: number };
  counts: Record<Severity, number>;
  error?: string;
  result?: { score: number | null; grade: string | null; files: number; coverage: Coverage };
}

export interface ListedFinding {
  key: string;
  target: string;
  finding: Finding;
}

export interface ProgressState {
  targets: TargetProgress[];
  /** Every finding in arrival order; the live view prints each exactly once. */
  findings: ListedFinding[];
}

export const initialProgress: ProgressState = { targets: [], findings: [] };

function zeroCounts(): Record<Severity, number> {
  return Object.fromEntries(SEVERITIES.map((severity) => [severity, 0])) as Record<Severity, number>;
}

/** Folds one scan event into the view state. Pure, so the Ink view can be tested from a scripted event list. */
export function reduceProgress(state: ProgressState, event: ScanEvent): ProgressState {
  // Config files expand into several targets, so rows are created on first sight rather than from the inputs.
  const existing = state.targets.find((row) => row.target === event.target);
  const row: TargetProgress = existing ?? { target: event.target, status: 'running', counts: zeroCounts() };
  let next: TargetProgress = row;
  let findings = state.findings;

  switch (event.type) {
    case 'stage':
      next = { ...row, stage: event.stage, files: undefined };
      break;
    case 'progress':
      next = { ...row, stage: event.stage, files: { done: event.done, total: event.total } };
      break;
    case 'finding':
      next = { ...row, counts: { ...row.counts, [event.finding.severity]: row.counts[event.finding.severity] + 1 } };
      findings = [...findings, { key: `${event.target}#${findings.length}`, target: event.target, finding: event.finding }];
      break;
    case 'problem':
      return state;
    case 'done': {
      const { report } = event;
      next = {
        ...row,
        status: 'done',
        // The report's counts are final: in deep mode the judge panel may have dismissed findings seen earlier.
        counts: { ...report.counts },
        result: { score: report.score, grade: report.grade, files: report.stats.files, coverage: report.coverage },
      };
      break;
    }
    case 'error':
      next = { ...row, status: 'failed', error: event.message };
      break;
  }

  const targets = existing ? state.targets.map((r) => (r === existing ? next : r)) : [...state.targets, next];
  return { targets, findings };
}
