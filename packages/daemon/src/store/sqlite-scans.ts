import type { BucketRequest, QuotaDecision, ScanMode, ScanRun, Severity } from '@svc/core';
import type { SqliteDatabase } from './database.js';
import { SqliteQuotaStore } from './quota.js';
import type {
  NewScan,
  ScanCursor,
  ScanListFilter,
  ScanRecord,
  ScanRepository,
  ScanStatus,
  ScanSummary,
  ScanVisibility,
  StoredScanEvent,
} from './repositories.js';

interface ScanRow {
  id: string;
  user_id: string | null;
  org_id: string | null;
  key_id: string | null;
  input: string;
  mode: ScanMode;
  visibility: ScanVisibility;
  status: ScanStatus;
  source: string | null;
  package: string | null;
  version: string | null;
  score: number | null;
  grade: string | null;
  counts: string | null;
  findings_count: number | null;
  tools_count: number | null;
  error: string | null;
  attempts: number;
  bearer_token_given: 0 | 1;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

// Every column but `result`: lists never carry the (possibly large) report.
const SCAN_COLUMNS = `id, user_id, org_id, key_id, input, mode, visibility, status, source, package, version, score, grade, counts,
  findings_count, tools_count, error, attempts, bearer_token_given, created_at, started_at, finished_at`;

export function toScanRecord(row: ScanRow): ScanRecord {
  return {
    id: row.id,
    userId: row.user_id,
    orgId: row.org_id,
    keyId: row.key_id,
    input: row.input,
    mode: row.mode,
    visibility: row.visibility,
    status: row.status,
    source: row.source,
    package: row.package,
    version: row.version,
    summary:
      row.score === null || row.grade === null || row.counts === null
        ? null
        : {
            score: row.score,
            grade: row.grade,
            counts: JSON.parse(row.counts) as Record<Severity, number>,
            findingsCount: row.findings_count ?? 0,
            toolsCount: row.tools_count ?? 0,
          },
    error: row.error,
    attempts: row.attempts,
    bearerTokenGiven: row.bearer_token_given === 1,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

export class SqliteScanRepository implements ScanRepository {
  private readonly quota: SqliteQuotaStore;

  constructor(private readonly db: SqliteDatabase) {
    this.quota = new SqliteQuotaStore(db);
  }

  async submit({ scan, buckets, now }: { scan: NewScan; buckets: readonly BucketRequest[]; now: Date }): Promise<{ decision: QuotaDecision; scan?: ScanRecord }> {
    const createdAt = now.toISOString();
    const attempt = this.db.transaction(() => {
      const decision = this.quota.consumeInTransaction(buckets, now);
      if (!decision.allowed) return { decision };
      this.db
        .prepare(
          `INSERT INTO scans (id, user_id, org_id, key_id, input, mode, visibility, status, source, package, version, bearer_token_given, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?)`,
        )
        .run(scan.id, scan.userId, scan.orgId, scan.keyId, scan.input, scan.mode, scan.visibility, scan.source, scan.package, scan.version, scan.bearerTokenGiven ? 1 : 0, createdAt);
      const record: ScanRecord = {
        ...scan,
        status: 'queued',
        summary: null,
        error: null,
        attempts: 0,
        createdAt,
        startedAt: null,
        finishedAt: null,
      };
      return { decision, scan: record };
    });
    // IMMEDIATE: the counters are read under the write lock, so concurrent submissions cannot both take the last slot.
    return attempt.immediate();
  }

  async findById(id: string): Promise<ScanRecord | undefined> {
    const row = this.db.prepare<[string], ScanRow>(`SELECT ${SCAN_COLUMNS} FROM scans WHERE id = ?`).get(id);
    return row && toScanRecord(row);
  }

  async result(id: string): Promise<ScanRun | undefined> {
    const text = await this.resultJson(id);
    return text === undefined ? undefined : (JSON.parse(text) as ScanRun);
  }

  async resultJson(id: string): Promise<string | undefined> {
    const row = this.db.prepare<[string], { result: string | null }>('SELECT result FROM scans WHERE id = ?').get(id);
    return row?.result ?? undefined;
  }

  async list(filter: ScanListFilter, { after, limit }: { after?: ScanCursor; limit: number }): Promise<{ items: ScanRecord[]; next?: ScanCursor }> {
    const owner = filter.orgId === undefined ? 'user_id = @userId' : '(user_id = @userId OR org_id = @orgId)';
    const position = after === undefined ? '' : 'AND (created_at < @createdAt OR (created_at = @createdAt AND id < @id))';
    const rows = this.db
      .prepare<Record<string, string | number>, ScanRow>(
        `SELECT ${SCAN_COLUMNS} FROM scans WHERE ${owner} AND visibility = @visibility ${position}
         ORDER BY created_at DESC, id DESC LIMIT @limit`,
      )
      .all({
        userId: filter.userId,
        visibility: filter.visibility,
        limit: limit + 1,
        ...(filter.orgId === undefined ? {} : { orgId: filter.orgId }),
        ...(after === undefined ? {} : { createdAt: after.createdAt, id: after.id }),
      });
    const items = rows.slice(0, limit).map(toScanRecord);
    const last = items.at(-1);
    return rows.length > limit && last !== undefined ? { items, next: { createdAt: last.createdAt, id: last.id } } : { items };
  }

  async claimNext(now: Date): Promise<ScanRecord | undefined> {
    const claim = this.db.transaction(() => {
      // First in, first out, also among scans queued in the same millisecond (rowid is the insertion order).
      const row = this.db
        .prepare<[], { id: string }>("SELECT id FROM scans WHERE status = 'queued' ORDER BY created_at, rowid LIMIT 1")
        .get();
      if (row === undefined) return undefined;
      this.db
        .prepare("UPDATE scans SET status = 'running', started_at = ?, attempts = attempts + 1 WHERE id = ? AND status = 'queued'")
        .run(now.toISOString(), row.id);
      return row.id;
    });
    const id = claim.immediate();
    return id === undefined ? undefined : this.findById(id);
  }

  async complete({
    id,
    run,
    summary,
    findings,
    now,
  }: {
    id: string;
    run: ScanRun;
    summary: ScanSummary;
    findings: ReadonlyArray<{ ruleId: string; category: string; severity: Severity }>;
    now: Date;
  }): Promise<boolean> {
    const save = this.db.transaction(() => {
      const updated = this.db
        .prepare(
          `UPDATE scans SET status = 'completed', source = ?, package = ?, version = ?, score = ?, grade = ?, counts = ?,
             findings_count = ?, tools_count = ?, result = ?, error = NULL, finished_at = ?
           WHERE id = ? AND status = 'running'`,
        )
        .run(
          summary.source,
          summary.package,
          summary.version,
          summary.score,
          summary.grade,
          JSON.stringify(summary.counts),
          summary.findingsCount,
          summary.toolsCount,
          JSON.stringify(run),
          now.toISOString(),
          id,
        );
      if (updated.changes === 0) return false;
      const insert = this.db.prepare('INSERT INTO scan_findings (scan_id, rule_id, category, severity) VALUES (?, ?, ?, ?)');
      for (const finding of findings) insert.run(id, finding.ruleId, finding.category, finding.severity);
      return true;
    });
    return save.immediate();
  }

  async fail({ id, message, now }: { id: string; message: string; now: Date }): Promise<boolean> {
    const result = this.db
      .prepare("UPDATE scans SET status = 'failed', error = ?, finished_at = ? WHERE id = ? AND status = 'running'")
      .run(message, now.toISOString(), id);
    return result.changes > 0;
  }

  async cancel({ id, now }: { id: string; now: Date }): Promise<'cancelled' | 'finished' | 'not_found'> {
    const result = this.db
      .prepare("UPDATE scans SET status = 'cancelled', finished_at = ? WHERE id = ? AND status IN ('queued', 'running')")
      .run(now.toISOString(), id);
    if (result.changes > 0) return 'cancelled';
    return this.db.prepare('SELECT 1 FROM scans WHERE id = ?').get(id) === undefined ? 'not_found' : 'finished';
  }

  async requeue(id: string): Promise<void> {
    this.db.prepare("UPDATE scans SET status = 'queued', started_at = NULL WHERE id = ? AND status = 'running'").run(id);
  }

  async requeueInterrupted(): Promise<number> {
    return this.db.prepare("UPDATE scans SET status = 'queued', started_at = NULL WHERE status = 'running'").run().changes;
  }

  async appendEvent({ scanId, event, data }: { scanId: string; event: string; data: string }): Promise<number> {
    const append = this.db.transaction(() => {
      const seq = this.lastSeq(scanId) + 1;
      this.db.prepare('INSERT INTO scan_events (scan_id, seq, event, data) VALUES (?, ?, ?, ?)').run(scanId, seq, event, data);
      return seq;
    });
    return append.immediate();
  }

  async eventsAfter(scanId: string, seq: number): Promise<StoredScanEvent[]> {
    return this.db
      .prepare<[string, number], StoredScanEvent>('SELECT seq, event, data FROM scan_events WHERE scan_id = ? AND seq > ? ORDER BY seq')
      .all(scanId, seq);
  }

  async lastEventSeq(scanId: string): Promise<number> {
    return this.lastSeq(scanId);
  }

  private lastSeq(scanId: string): number {
    return this.db.prepare<[string], { seq: number | null }>('SELECT MAX(seq) AS seq FROM scan_events WHERE scan_id = ?').get(scanId)?.seq ?? 0;
  }
}
