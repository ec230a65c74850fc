// Scans as the daemon runs them: the queue, results, the events of the SSE stream, and the teams whose members
// share private scans (spec 4.6 rule 4). 0001's scans table was never written by any route, so it is replaced
// rather than altered.
export default /* sql */ `
CREATE TABLE teams (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  -- A team's tier is its owner's plan (DESIGN.md), so it is read from the owner, not stored twice.
  owner_user_id TEXT NOT NULL REFERENCES users(id),
  created_at TEXT NOT NULL
) STRICT;

-- A user belongs to at most one team.
CREATE TABLE team_members (
  team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  joined_at TEXT NOT NULL,
  PRIMARY KEY (team_id, user_id)
) STRICT;

DROP TABLE scans;
CREATE TABLE scans (
  id TEXT PRIMARY KEY,
  -- Who ran it (null: anonymous) and whose plan paid (null: the user's own plan or anonymous).
  user_id TEXT REFERENCES users(id) ON DELETE SET NULL,
  org_id TEXT REFERENCES teams(id) ON DELETE SET NULL,
  key_id TEXT REFERENCES api_keys(id) ON DELETE SET NULL,
  input TEXT NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('fast', 'deep')),
  visibility TEXT NOT NULL CHECK (visibility IN ('public', 'private')),
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
  -- What was scanned (npm, pypi, git, directory, config, remote), its name and version, from the report.
  source TEXT,
  package TEXT,
  version TEXT,
  score INTEGER,
  grade TEXT,
  -- Findings per severity, JSON {"critical": n, ...}.
  counts TEXT,
  findings_count INTEGER,
  tools_count INTEGER,
  -- The ScanRun JSON (reports and per-target errors) of a completed scan.
  result TEXT,
  error TEXT,
  -- Times the scan was started; a scan interrupted by a restart runs again.
  attempts INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT
) STRICT;
CREATE INDEX scans_user ON scans(user_id, created_at, id);
CREATE INDEX scans_org ON scans(org_id, created_at, id) WHERE org_id IS NOT NULL;
CREATE INDEX scans_queue ON scans(status, created_at) WHERE status IN ('queued', 'running');
CREATE INDEX scans_public ON scans(finished_at, id) WHERE visibility = 'public' AND status = 'completed';
CREATE INDEX scans_package ON scans(source, package, finished_at) WHERE visibility = 'public' AND status = 'completed';

-- One row per finding of a completed scan, for statistics without parsing every result.
CREATE TABLE scan_findings (
  scan_id TEXT NOT NULL REFERENCES scans(id) ON DELETE CASCADE,
  rule_id TEXT NOT NULL,
  category TEXT NOT NULL,
  severity TEXT NOT NULL
) STRICT;
CREATE INDEX scan_findings_scan ON scan_findings(scan_id);
CREATE INDEX scan_findings_rule ON scan_findings(rule_id);

-- The SSE stream's events; seq is the event id, so Last-Event-ID resumes, also after a restart.
CREATE TABLE scan_events (
  scan_id TEXT NOT NULL REFERENCES scans(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  event TEXT NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (scan_id, seq)
) STRICT, WITHOUT ROWID;
`;
