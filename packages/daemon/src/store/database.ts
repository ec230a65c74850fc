import Database from 'better-sqlite3';
import { MIGRATIONS, type Migration } from './migrations/index.js';

export type SqliteDatabase = Database.Database;

/**
 * Opens (creating if needed) the daemon's SQLite file. WAL lets the HTTP handlers read while a scan worker
 * writes; busy_timeout makes a second process (`svcd admin …` beside a running daemon) wait instead of
 * failing with SQLITE_BUSY; synchronous=NORMAL is durable in WAL mode except for the last commits on power loss.
 */
export function openDatabase(file: string): SqliteDatabase {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  return cachePreparedStatements(db);
}

/**
 * better-sqlite3 compiles the SQL on every prepare() (20–40 µs each) and the repositories prepare where they run
 * their SQL, several times per request. A statement is reusable, so one per SQL text is kept for the life of the
 * connection: the SQL texts are fixed fragments with bound values, so the cache stays small. This holds only while
 * nothing uses iterate(), pluck(), raw() or expand(), whose state would leak between callers of one statement.
 */
function cachePreparedStatements(db: SqliteDatabase): SqliteDatabase {
  const prepare = db.prepare.bind(db);
  const statements = new Map<string, ReturnType<SqliteDatabase['prepare']>>();
  db.prepare = ((sql: string) => {
    let statement = statements.get(sql);
    if (statement === undefined) statements.set(sql, (statement = prepare(sql)));
    return statement;
  }) as SqliteDatabase['prepare'];
  return db;
}

/**
 * Applies the migrations not yet recorded in schema_migrations, in order, each in its own transaction
 * (IMMEDIATE, so two processes starting at once cannot both apply one). Returns the versions applied.
 */
export function migrate(db: SqliteDatabase, migrations: readonly Migration[] = MIGRATIONS): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  ) STRICT`);
  const isApplied = db.prepare<[number], { version: number }>('SELECT version FROM schema_migrations WHERE version = ?');
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const applied: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    // A plain read first: an up-to-date database then takes no write lock (svcd admin beside a busy daemon).
    if (isApplied.get(migration.version) !== undefined) continue;
    const apply = db.transaction(() => {
      if (isApplied.get(migration.version) !== undefined) return false;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, new Date().toISOString());
      return true;
    });
    if (apply.immediate()) applied.push(migration.version);
  }
  return applied;
}

/** The highest applied migration, or 0 for an empty database. */
export function schemaVersion(db: SqliteDatabase): number {
  const row = db.prepare<[], { version: number | null }>('SELECT MAX(version) AS version FROM schema_migrations').get();
  return row?.version ?? 0;
}
