import { randomUUID } from 'node:crypto';
import { getRule, REPORT_SCHEMA_VERSION, scoreFindings, SVC_VERSION, type Finding, type ScanReport, type ScanRun, type TargetKind } from '@svc/core';
import type { Services } from '../services.js';
import type { SqliteDatabase } from '../store/database.js';
import type { ScanVisibility } from '../store/repositories.js';

export interface SeedScan {
  kind: TargetKind;
  name: string;
  version?: string;
  /** Rule ids of core's catalog, one finding each (repeat an id for several findings of that rule). */
  rules?: readonly string[];
  visibility?: ScanVisibility;
  mode?: 'fast' | 'deep';
  userId?: string | null;
  /** Where the scan stops; only `completed` has a result. */
  state?: 'completed' | 'queued' | 'running' | 'failed';
  /** When it was submitted; it completes a minute later. */
  at: Date;
  tools?: number;
  /** The tools by name and description, instead of `tools` generic ones. */
  definitions?: ReadonlyArray<{ name: string; description: string }>;
}

function finding(ruleId: string, index: number): Finding {
  const rule = getRule(ruleId);
  if (rule === undefined) throw new Error(`unknown rule ${ruleId}`);
  return {
    id: `${ruleId}:${index}`,
    ruleId,
    category: rule.meta.category,
    severity: rule.meta.severity,
    confidence: 0.9,
    message: rule.meta.title,
    evidence: 'seeded',
    location: { file: 'src/index.ts', line: 10 + index, column: 1 },
  };
}

function inputFor(seed: SeedScan): string {
  switch (seed.kind) {
    case 'npm':
      return `npm:${seed.name}${seed.version === undefined ? '' : `@${seed.version}`}`;
    case 'pypi':
      return `pypi:${seed.name}${seed.version === undefined ? '' : `==${seed.version}`}`;
    case 'git':
      return `git+https://example.com/${seed.name}.git`;
    case 'remote':
      return `https://${seed.name}/mcp`;
    default:
      return `/srv/${seed.name}`;
  }
}

/**
 * A scan through the real repository, as the worker would leave it: submitted, claimed, then completed with a
 * realistic ScanRun (findings from the real rule catalog, scored by core) or failed. Seed unfinished scans after
 * the finished ones: claimNext takes the oldest queued scan.
 */
export async function seedScan(services: Services, seed: SeedScan): Promise<string> {
  const id = randomUUID();
  const input = inputFor(seed);
  const mode = seed.mode ?? 'fast';
  const isPackage = seed.kind === 'npm' || seed.kind === 'pypi' || seed.kind === 'git';
  const submitted = await services.scans.submit({
    scan: {
      id,
      userId: seed.userId ?? null,
      orgId: null,
      keyId: null,
      input,
      mode,
      visibility: seed.visibility ?? 'public',
      bearerTokenGiven: false,
      source: isPackage ? seed.kind : null,
      package: isPackage ? seed.name : null,
      version: seed.version ?? null,
    },
    buckets: [],
    now: seed.at,
  });
  if (submitted.scan === undefined) throw new Error('seed scan refused');
  const state = seed.state ?? 'completed';
  if (state === 'queued') return id;
  const claimed = await services.scans.claimNext(seed.at);
  if (claimed?.id !== id) throw new Error('another scan was queued first; seed unfinished scans last');
  if (state === 'running') return id;
  const finishedAt = new Date(seed.at.getTime() + 60_000);
  if (state === 'failed') {
    await services.scans.fail({ id, message: 'fetch failed', now: finishedAt });
    return id;
  }

  const findings = (seed.rules ?? []).map(finding);
  const { score, grade, counts } = scoreFindings(findings);
  const report: ScanReport = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generator: { name: 'svc', version: SVC_VERSION },
    target: { kind: seed.kind, input, name: seed.name, ...(seed.version === undefined ? {} : { version: seed.version }), contentHash: 'a'.repeat(64) },
    mode,
    startedAt: seed.at.toISOString(),
    timings: { total: 1200 },
    stats: { files: 12, bytes: 40_960, parsedFiles: 12, skippedFiles: 0 },
    tools: (seed.definitions ?? Array.from({ length: seed.tools ?? 2 }, (_, i) => ({ name: `tool_${i}`, description: 'Does a thing' }))).map(({ name, description }, i) => ({
      kind: 'tool' as const,
      name,
      description,
      parameters: [],
      location: { file: 'src/index.ts', line: i + 1, column: 1 },
      extractor: 'mcp-sdk' as const,
    })),
    findings,
    score,
    grade,
    counts,
    problems: [],
    coverage: { status: 'scanned', reasons: [] },
  };
  const run: ScanRun = { schemaVersion: REPORT_SCHEMA_VERSION, generator: { name: 'svc', version: SVC_VERSION }, reports: [report], errors: [] };
  const completed = await services.scans.complete({
    id,
    run,
    summary: {
      source: seed.kind,
      package: seed.name,
      version: seed.version ?? null,
      score,
      grade,
      counts,
      findingsCount: findings.length,
      toolsCount: report.tools.length,
    },
    findings: findings.map(({ ruleId, category, severity }) => ({ ruleId, category, severity })),
    now: finishedAt,
  });
  if (!completed) throw new Error('seed scan did not complete');
  return id;
}

/** Minutes after a fixed start, so seeded scans have a known order. */
export function minute(n: number): Date {
  return new Date(Date.UTC(2026, 10, 1, 0, n));
}

/**
 * A team written straight into the database: its owner and members, without the invite round trip the team routes
 * test themselves. For tests of what membership changes elsewhere (who pays, who sees, who may mint a key).
 */
export function seedTeam(db: SqliteDatabase, team: { id: string; ownerId: string; memberIds: readonly string[]; now: Date; name?: string }): void {
  const at = team.now.toISOString();
  db.prepare('INSERT INTO teams (id, name, owner_user_id, created_at) VALUES (?, ?, ?, ?)').run(team.id, team.name ?? 'Acme', team.ownerId, at);
  const join = db.prepare('INSERT INTO team_members (team_id, user_id, role, joined_at) VALUES (?, ?, ?, ?)');
  join.run(team.id, team.ownerId, 'owner', at);
  for (const memberId of team.memberIds) join.run(team.id, memberId, 'member', at);
}
