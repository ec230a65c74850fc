import { SEVERITIES, type Severity } from '@svc/core';
import { z } from '@hono/zod-openapi';
import type { ScanRecord } from './store/repositories.js';

// The public shape of a scan record: the body of the scan routes and of the stream's snapshot and terminal
// events. user_id and org_id follow spec 2.9 (for the scan's owner and team only); key_id never leaves the daemon
// (it would name another key of a teammate). The full report is only on single reads (`result`), never in lists.

/** Findings per severity: the scan summary's, the registry's and the statistics' counts. */
export const countsSchema = z
  .object(Object.fromEntries(SEVERITIES.map((severity) => [severity, z.number().int()])) as Record<Severity, z.ZodNumber>)
  .openapi('SeverityCounts');

export const scanViewSchema = z
  .object({
    id: z.string(),
    status: z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']),
    input: z.string(),
    mode: z.enum(['fast', 'deep']),
    visibility: z.enum(['public', 'private']),
    user_id: z.string().nullable().openapi({ description: 'Who ran it; null for anonymous scans, and for callers other than the owner and their team.' }),
    org_id: z.string().nullable().openapi({ description: "Whose plan paid: the team's id when a team plan paid, else null (and null for callers other than the owner and their team)." }),
    target: z.object({
      source: z.string().nullable().openapi({ description: 'npm, pypi, git, directory, config or remote.' }),
      package: z.string().nullable(),
      version: z.string().nullable(),
    }),
    summary: z
      .object({ score: z.number().int(), grade: z.string(), counts: countsSchema, findings: z.number().int(), tools: z.number().int() })
      .nullable()
      .openapi({ description: 'Set once the scan completed.' }),
    error: z.string().nullable().openapi({ description: 'Why the scan failed.' }),
    created_at: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
  })
  .openapi('Scan');

export type ScanView = z.infer<typeof scanViewSchema>;

/**
 * `insider`: the caller ran the scan or is in the team that paid. Who ran a public scan is not public: others see
 * user_id and org_id as null, like the public registry, which never says who scanned what.
 */
export function scanView(scan: ScanRecord, { insider }: { insider: boolean }): ScanView {
  return {
    id: scan.id,
    status: scan.status,
    input: scan.input,
    mode: scan.mode,
    visibility: scan.visibility,
    user_id: insider ? scan.userId : null,
    org_id: insider ? scan.orgId : null,
    target: { source: scan.source, package: scan.package, version: scan.version },
    summary:
      scan.summary === null
        ? null
        : {
            score: scan.summary.score,
            grade: scan.summary.grade,
            counts: scan.summary.counts,
            findings: scan.summary.findingsCount,
            tools: scan.summary.toolsCount,
          },
    error: scan.error,
    created_at: scan.createdAt,
    started_at: scan.startedAt,
    finished_at: scan.finishedAt,
  };
}
