// What changed between two scanned versions of a package, as `svc scan` reports drift against an mcp.lock
// (core's pinReport + driftOf): tools, prompts and resources added, removed or changed (with the word diff of a
// changed text), and the findings the newer version has more of. /versions shows it between each version and the one
// scanned before it; /api/v1/compare between two versions of one package that are compared side by side.

import { driftOf, pinReport, type ScanReport, type Severity } from '@svc/core';
import { z } from '@hono/zod-openapi';
import type { ScanRepository } from '../store/repositories.js';

export const versionChangesSchema = z
  .object({
    from_version: z.string().nullable().openapi({ description: 'The version compared with' }),
    added: z.array(z.string()).openapi({ description: 'Items the newer version lists and the older did not, as `kind:name` (e.g. `tool:delete_repo`)' }),
    removed: z.array(z.string()).openapi({ description: 'Items the older version listed and the newer does not' }),
    changed: z.array(
      z.object({
        item: z.string(),
        changes: z.array(
          z.object({
            field: z.string().openapi({ description: '`description`, `inputSchema.<path>`, `annotations.<name>` …' }),
            kind: z.enum(['text', 'widened', 'narrowed', 'added', 'removed', 'changed']),
            summary: z.string(),
            diff: z.string().optional().openapi({ description: 'For text: `[-old words-]{+new words+}`' }),
          }),
        ),
      }),
    ),
    new_findings: z
      .array(z.object({ rule_id: z.string(), severity: z.string(), count: z.number().int() }))
      .openapi({ description: 'Findings by rule and severity the newer version has more of, with how many more' }),
  })
  .openapi('VersionChanges');

export type VersionChangesJson = z.infer<typeof versionChangesSchema>;

/**
 * The changes from the older scan's report to the newer's; undefined when either result is gone or holds no report.
 * Findings are compared by rule and severity, not by id: an id names a file and line, which move between versions.
 */
export async function versionChanges(scans: ScanRepository, olderScanId: string, newerScanId: string): Promise<VersionChangesJson | undefined> {
  const [older, newer] = await Promise.all([olderScanId, newerScanId].map(async (id) => (await scans.result(id))?.reports[0]));
  if (!older || !newer) return undefined;
  return changesBetween(older, newer);
}

export function changesBetween(older: ScanReport, newer: ScanReport): VersionChangesJson {
  // pinnedAt does not take part in the comparison; the epoch keeps the result independent of the clock.
  const drift = driftOf(pinReport(older, new Date(0)), newer);
  const before = findingCounts(older);
  const newFindings = [...findingCounts(newer)]
    .map(([key, count]) => ({ key, count: count - (before.get(key) ?? 0) }))
    .filter(({ count }) => count > 0)
    .map(({ key, count }) => {
      const [rule_id, severity] = key.split('\0') as [string, Severity];
      return { rule_id, severity, count };
    });
  return {
    from_version: older.target.version ?? null,
    added: drift.flatMap((item) => (item.kind === 'added' ? [item.key] : [])),
    removed: drift.flatMap((item) => (item.kind === 'removed' ? [item.key] : [])),
    changed: drift.flatMap((item) => (item.kind === 'changed' ? [{ item: item.key, changes: item.changes }] : [])),
    new_findings: newFindings,
  };
}

function findingCounts(report: ScanReport): Map<string, number> {
  const counts = new Map<string, number>();
  for (const finding of report.findings) {
    const key = `${finding.ruleId}\0${finding.severity}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}
