import type { Finding, ScanReport, Severity } from '@svc/core';

/** Test data in the shapes the engine emits; only the fields a test cares about are parameters. */
export function finding(overrides: Partial<Finding> & { severity: Severity; ruleId: string }): Finding {
  return {
    id: `${overrides.ruleId}-1`,
    category: 'command-injection',
    confidence: 0.9,
    message: 'tool input reaches a shell command',
    evidence: 'exec(`ls ${path}`)',
    ...overrides,
  };
}

export function report(input: string, findings: Finding[], extra: Partial<ScanReport> = {}): ScanReport {
  const counts = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
  for (const f of findings) counts[f.severity] += 1;
  return {
    schemaVersion: '2.0.0',
    generator: { name: 'svc', version: '0.0.0' },
    target: { kind: 'directory', input, name: input, contentHash: 'sha256:0' },
    mode: 'fast',
    startedAt: '2026-01-01T00:00:00.000Z',
    timings: { total: 1 },
    stats: { files: 3, bytes: 100, parsedFiles: 3, skippedFiles: 0 },
    tools: [],
    findings,
    score: 40,
    grade: 'D',
    counts,
    problems: [],
    coverage: { status: 'scanned', reasons: [] },
    ...extra,
  };
}
