import type { ScanMode, Severity } from '@svc/core';
import type { SqliteDatabase } from './database.js';

// The public registry is a read model over `scans`: only completed public scans of package sources count, so a
// private or unfinished scan can never leak into it, whatever a route asks for. Every query below starts from
// PUBLIC_COMPLETED.

/** Sources that name a package; directory, config and remote scans are public scans but not registry entries. */
export const REGISTRY_SOURCES = ['npm', 'pypi', 'git'] as const;
export type RegistrySource = (typeof REGISTRY_SOURCES)[number];

export const GRADES = ['A', 'B', 'C', 'D', 'F'] as const;
export type RegistryGrade = (typeof GRADES)[number];

/** recent: newest scan first; name: package name in byte order; best: highest score first; worst: lowest first. */
export const REGISTRY_SORTS = ['recent', 'name', 'best', 'worst'] as const;
export type RegistrySort = (typeof REGISTRY_SORTS)[number];

/** One completed public scan's summary, as the registry shows it. */
export interface PublicScanSummary {
  scanId: string;
  source: string | null;
  package: string | null;
  version: string | null;
  mode: ScanMode;
  score: number;
  grade: string;
  counts: Record<Severity, number>;
  findingsCount: number;
  toolsCount: number;
  scannedAt: string;
}

/** A package of the registry: its latest completed public scan plus how many public scans it has. */
export interface RegistryEntry extends PublicScanSummary {
  source: RegistrySource;
  package: string;
  scans: number;
}

/** The keyset of the last entry of a page; every sort ends on (source, package), which is unique. */
export interface RegistryPosition {
  scannedAt: string;
  score: number;
  source: string;
  package: string;
}

export interface RegistryQuery {
  source?: RegistrySource;
  /** Case-insensitive substring of the package name, taken literally (no wildcards). */
  q?: string;
  grade?: RegistryGrade;
  sort: RegistrySort;
  after?: RegistryPosition;
  limit: number;
}

export interface VersionEntry {
  version: string | null;
  /** The latest completed public scan of this version. */
  scanId: string;
  score: number;
  grade: string;
  scannedAt: string;
  scans: number;
}

export interface TopFinding {
  ruleId: string;
  category: string;
  severity: Severity;
  count: number;
}

export interface RecentPosition {
  finishedAt: string;
  id: string;
}

export interface Tally {
  key: string;
  findings: number;
  packages: number;
}

/** Aggregates over the latest completed public scan of each registry package (optionally since a date). */
export interface LatestScanAggregate {
  packages: number;
  /** Packages whose latest scan has at least one critical or high finding. */
  packagesWithCriticalOrHigh: number;
  averageScore: number | null;
  gradeDistribution: Record<RegistryGrade, number>;
  bySeverity: Tally[];
  byCategory: Tally[];
  byRule: (Tally & { category: string })[];
  /** Oldest and newest finished_at among those latest scans. */
  from: string | null;
  to: string | null;
}

export interface RegistryRepository {
  list(query: RegistryQuery): Promise<{ items: RegistryEntry[]; next?: RegistryPosition }>;
  /** The package's registry entry, or the entry as of its latest public scan of `version` when given. */
  find(source: RegistrySource, pkg: string, version?: string): Promise<RegistryEntry | undefined>;
  /** One row per version, newest scan first; empty when the package has no completed public scan. */
  versions(source: RegistrySource, pkg: string): Promise<VersionEntry[]>;
  /** The findings of one scan grouped by rule and severity, most severe and most frequent first. */
  topFindings(scanId: string, limit: number): Promise<TopFinding[]>;
  /** Completed public scans of any source, newest first. */
  recent(page: { after?: RecentPosition; limit: number }): Promise<{ items: PublicScanSummary[]; next?: RecentPosition }>;
  /** Completed public scans of any source, and the newest finished_at among them. */
  scanTotals(): Promise<{ scans: number; updatedAt: string | null }>;
  latestAggregate(options?: { since?: string }): Promise<LatestScanAggregate>;
}

const PUBLIC_COMPLETED = "visibility = 'public' AND status = 'completed' AND score IS NOT NULL";
const IN_REGISTRY = `${PUBLIC_COMPLETED} AND package IS NOT NULL AND source IN (${REGISTRY_SOURCES.map((s) => `'${s}'`).join(', ')})`;

/**
 * The latest public scan of each package with the package's scan count; `extra` narrows the scans considered.
 * SQLite takes a bare column of a MAX() aggregate from the row holding the maximum, so one pass over the
 * scans_package index finds each latest id. finished_at is a fixed-width ISO string, so `finished_at || id` orders
 * exactly like (finished_at, id), which makes the choice deterministic when two scans finish in the same ms.
 */
function latestPerPackage(extra = ''): string {
  return `latest_ids AS MATERIALIZED (
    SELECT id, MAX(finished_at || id) AS position, COUNT(*) AS scans
    FROM scans WHERE ${IN_REGISTRY} ${extra} GROUP BY source, package
  ), latest AS MATERIALIZED (
    SELECT s.id, s.source, s.package, s.version, s.mode, s.score, s.grade, s.counts, s.findings_count, s.tools_count,
      s.finished_at, l.scans
    FROM latest_ids l JOIN scans s ON s.id = l.id
  )`;
}

// Each sort is a list of (column, direction) ending on a unique key, so keyset pages neither skip nor repeat.
const SORT_KEYS: Record<RegistrySort, [column: keyof RegistryPosition, sql: string, direction: 'ASC' | 'DESC'][]> = {
  recent: [
    ['scannedAt', 'finished_at', 'DESC'],
    ['source', 'source', 'ASC'],
    ['package', 'package', 'ASC'],
  ],
  name: [
    ['package', 'package', 'ASC'],
    ['source', 'source', 'ASC'],
  ],
  best: [
    ['score', 'score', 'DESC'],
    ['package', 'package', 'ASC'],
    ['source', 'source', 'ASC'],
  ],
  worst: [
    ['score', 'score', 'ASC'],
    ['package', 'package', 'ASC'],
    ['source', 'source', 'ASC'],
  ],
};

/** `(a, b, c) after (x, y, z)` in the sort's mixed directions, as OR-ed prefixes (row values need one direction). */
function afterClause(sort: RegistrySort): string {
  const keys = SORT_KEYS[sort];
  const alternatives = keys.map(([name, column, direction], i) => {
    const equal = keys.slice(0, i).map(([earlier, earlierColumn]) => `${earlierColumn} = @after_${earlier}`);
    return [...equal, `${column} ${direction === 'ASC' ? '>' : '<'} @after_${name}`].join(' AND ');
  });
  return `(${alternatives.map((a) => `(${a})`).join(' OR ')})`;
}

function orderBy(sort: RegistrySort): string {
  return SORT_KEYS[sort].map(([, column, direction]) => `${column} ${direction}`).join(', ');
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

interface SummaryRow {
  id: string;
  source: string | null;
  package: string | null;
  version: string | null;
  mode: ScanMode;
  score: number;
  grade: string;
  counts: string;
  findings_count: number | null;
  tools_count: number | null;
  finished_at: string;
}

function toSummary(row: SummaryRow): PublicScanSummary {
  return {
    scanId: row.id,
    source: row.source,
    package: row.package,
    version: row.version,
    mode: row.mode,
    score: row.score,
    grade: row.grade,
    counts: JSON.parse(row.counts) as Record<Severity, number>,
    findingsCount: row.findings_count ?? 0,
    toolsCount: row.tools_count ?? 0,
    scannedAt: row.finished_at,
  };
}

function toEntry(row: SummaryRow & { scans: number }): RegistryEntry {
  return { ...toSummary(row), source: row.source as RegistrySource, package: row.package ?? '', scans: row.scans };
}

interface AggregateRow {
  kind: 'total' | 'grade' | 'severity' | 'category' | 'rule';
  key: string | null;
  category: string | null;
  n: number;
  m: number | null;
  average: number | null;
  first: string | null;
  last: string | null;
}

const SEVERITY_RANK = "CASE f.severity WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END";
const SUMMARY_COLUMNS = 'id, source, package, version, mode, score, grade, counts, findings_count, tools_count, finished_at';

export class SqliteRegistryRepository implements RegistryRepository {
  constructor(private readonly db: SqliteDatabase) {}

  async list({ source, q, grade, sort, after, limit }: RegistryQuery): Promise<{ items: RegistryEntry[]; next?: RegistryPosition }> {
    // Source and name hold for every scan of a package, so they narrow the scans before the latest is picked;
    // grade and position depend on the latest scan and apply after.
    const perPackage: string[] = [];
    const where: string[] = [];
    const params: Record<string, string | number> = { limit: limit + 1 };
    if (source !== undefined) {
      perPackage.push('AND source = @source');
      params['source'] = source;
    }
    if (q !== undefined && q !== '') {
      // LIKE is case-insensitive for ASCII in SQLite; the escape keeps % and _ in the query literal.
      perPackage.push("AND package LIKE @q ESCAPE '\\'");
      params['q'] = `%${escapeLike(q)}%`;
    }
    if (grade !== undefined) {
      where.push('grade = @grade');
      params['grade'] = grade;
    }
    if (after !== undefined) {
      where.push(afterClause(sort));
      for (const [name] of SORT_KEYS[sort]) params[`after_${name}`] = after[name];
    }
    const rows = this.db
      .prepare<Record<string, string | number>, SummaryRow & { scans: number }>(
        `WITH ${latestPerPackage(perPackage.join(' '))} SELECT * FROM latest ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
         ORDER BY ${orderBy(sort)} LIMIT @limit`,
      )
      .all(params);
    const items = rows.slice(0, limit).map(toEntry);
    const last = items.at(-1);
    if (rows.length <= limit || last === undefined) return { items };
    return { items, next: { scannedAt: last.scannedAt, score: last.score, source: last.source, package: last.package } };
  }

  async find(source: RegistrySource, pkg: string, version?: string): Promise<RegistryEntry | undefined> {
    const params: Record<string, string> = { source, pkg };
    let versionFilter = '';
    if (version !== undefined) {
      versionFilter = 'AND version = @version';
      params['version'] = version;
    }
    const row = this.db
      .prepare<Record<string, string>, SummaryRow & { scans: number }>(
        `WITH ${latestPerPackage(`AND source = @source AND package = @pkg ${versionFilter}`)} SELECT * FROM latest`,
      )
      .get(params);
    if (row === undefined) return undefined;
    if (version === undefined) return toEntry(row);
    // `scans` stays the package's total, like in the registry list, not the count of this one version.
    const total = this.db
      .prepare<[string, string], { n: number }>(`SELECT COUNT(*) AS n FROM scans WHERE ${IN_REGISTRY} AND source = ? AND package = ?`)
      .get(source, pkg);
    return { ...toEntry(row), scans: total?.n ?? row.scans };
  }

  async versions(source: RegistrySource, pkg: string): Promise<VersionEntry[]> {
    const rows = this.db
      .prepare<[string, string], { id: string; version: string | null; score: number; grade: string; finished_at: string; scans: number }>(
        `WITH latest_ids AS MATERIALIZED (
           SELECT id, MAX(finished_at || id) AS position, COUNT(*) AS scans
           FROM scans WHERE ${IN_REGISTRY} AND source = ? AND package = ? GROUP BY version
         )
         SELECT s.id, s.version, s.score, s.grade, s.finished_at, l.scans FROM latest_ids l JOIN scans s ON s.id = l.id
         ORDER BY s.finished_at DESC, s.id DESC`,
      )
      .all(source, pkg);
    return rows.map((row) => ({ version: row.version, scanId: row.id, score: row.score, grade: row.grade, scannedAt: row.finished_at, scans: row.scans }));
  }

  async topFindings(scanId: string, limit: number): Promise<TopFinding[]> {
    return this.db
      .prepare<[string, number], TopFinding>(
        `SELECT f.rule_id AS ruleId, f.category AS category, f.severity AS severity, COUNT(*) AS count
         FROM scan_findings f JOIN scans s ON s.id = f.scan_id
         WHERE f.scan_id = ? AND s.visibility = 'public' AND s.status = 'completed'
         GROUP BY f.rule_id, f.category, f.severity
         ORDER BY ${SEVERITY_RANK}, count DESC, f.rule_id
         LIMIT ?`,
      )
      .all(scanId, limit);
  }

  async recent({ after, limit }: { after?: RecentPosition; limit: number }): Promise<{ items: PublicScanSummary[]; next?: RecentPosition }> {
    const position = after === undefined ? '' : 'AND (finished_at < @finishedAt OR (finished_at = @finishedAt AND id < @id))';
    const rows = this.db
      .prepare<Record<string, string | number>, SummaryRow>(
        `SELECT ${SUMMARY_COLUMNS} FROM scans WHERE ${PUBLIC_COMPLETED} ${position} ORDER BY finished_at DESC, id DESC LIMIT @limit`,
      )
      .all({ limit: limit + 1, ...(after === undefined ? {} : { finishedAt: after.finishedAt, id: after.id }) });
    const items = rows.slice(0, limit).map(toSummary);
    const last = items.at(-1);
    return rows.length > limit && last !== undefined ? { items, next: { finishedAt: last.scannedAt, id: last.scanId } } : { items };
  }

  async scanTotals(): Promise<{ scans: number; updatedAt: string | null }> {
    const row = this.db
      .prepare<[], { scans: number; updated_at: string | null }>(`SELECT COUNT(*) AS scans, MAX(finished_at) AS updated_at FROM scans WHERE ${PUBLIC_COMPLETED}`)
      .get();
    return { scans: row?.scans ?? 0, updatedAt: row?.updated_at ?? null };
  }

  async latestAggregate({ since }: { since?: string } = {}): Promise<LatestScanAggregate> {
    // One statement, so the latest scans are found once for every figure (a compound SELECT of tagged rows).
    const rows = this.db
      .prepare<Record<string, string>, AggregateRow>(
        `WITH ${latestPerPackage(since === undefined ? '' : 'AND finished_at >= @since')},
         found AS MATERIALIZED (SELECT f.scan_id, f.rule_id, f.category, f.severity FROM scan_findings f JOIN latest l ON l.id = f.scan_id)
         SELECT 'total' AS kind, NULL AS key, NULL AS category, COUNT(*) AS n,
           SUM(COALESCE(json_extract(counts, '$.critical'), 0) + COALESCE(json_extract(counts, '$.high'), 0) > 0) AS m,
           AVG(score) AS average, MIN(finished_at) AS first, MAX(finished_at) AS last FROM latest
         UNION ALL SELECT 'grade', grade, NULL, COUNT(*), NULL, NULL, NULL, NULL FROM latest GROUP BY grade
         UNION ALL SELECT 'severity', severity, NULL, COUNT(*), COUNT(DISTINCT scan_id), NULL, NULL, NULL FROM found GROUP BY severity
         UNION ALL SELECT 'category', category, NULL, COUNT(*), COUNT(DISTINCT scan_id), NULL, NULL, NULL FROM found GROUP BY category
         UNION ALL SELECT 'rule', rule_id, MIN(category), COUNT(*), COUNT(DISTINCT scan_id), NULL, NULL, NULL FROM found GROUP BY rule_id`,
      )
      .all(since === undefined ? {} : { since });
    const total = rows.find((row) => row.kind === 'total');
    const gradeDistribution = Object.fromEntries(GRADES.map((grade) => [grade, 0])) as Record<RegistryGrade, number>;
    const tallies = (kind: AggregateRow['kind']) =>
      rows
        .filter((row) => row.kind === kind && row.key !== null)
        .map((row) => ({ key: row.key ?? '', category: row.category ?? '', findings: row.n, packages: row.m ?? 0 }))
        .sort((a, b) => (kind === 'rule' ? b.packages - a.packages : 0) || b.findings - a.findings || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (const row of rows) {
      if (row.kind === 'grade' && (GRADES as readonly (string | null)[]).includes(row.key)) gradeDistribution[row.key as RegistryGrade] = row.n;
    }
    const plain = (list: (Tally & { category: string })[]): Tally[] => list.map(({ key, findings, packages }) => ({ key, findings, packages }));
    return {
      packages: total?.n ?? 0,
      packagesWithCriticalOrHigh: total?.m ?? 0,
      averageScore: total?.average ?? null,
      gradeDistribution,
      bySeverity: plain(tallies('severity')),
      byCategory: plain(tallies('category')),
      byRule: tallies('rule'),
      from: total?.first ?? null,
      to: total?.last ?? null,
    };
  }
}
