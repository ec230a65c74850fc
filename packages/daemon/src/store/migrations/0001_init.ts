// Migrations are embedded as TypeScript strings, one numbered file each, so the bundle carries them and no
// .sql files have to be found on disk next to dist/ at run time. Never edit a shipped migration: add the next one.
export default /* sql */ `
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  display_name TEXT,
  tier TEXT NOT NULL DEFAULT 'free' CHECK (tier IN ('free', 'dev', 'team', 'business')),
  created_at TEXT NOT NULL
) STRICT;

-- One live code per address: a new login replaces the previous code.
CREATE TABLE login_codes (
  email TEXT PRIMARY KEY,
  code_hash TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
) STRICT;

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  hash TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  last4 TEXT NOT NULL,
  label TEXT NOT NULL,
  scopes TEXT NOT NULL DEFAULT '[]',
  ip_allowlist TEXT NOT NULL DEFAULT '[]',
  expires_at TEXT NOT NULL,
  revoked_at TEXT,
  last_used_at TEXT,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX api_keys_user ON api_keys(user_id);

-- Networks (/24 or /64) a key was used from, for the new-location mail of spec 5.1 rule 8.
CREATE TABLE seen_networks (
  key_id TEXT NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
  network TEXT NOT NULL,
  first_seen_at TEXT NOT NULL,
  PRIMARY KEY (key_id, network)
) STRICT;

CREATE TABLE scans (
  id TEXT PRIMARY KEY,
  user_id TEXT REFERENCES users(id) ON DELETE SET NULL,
  org_id TEXT,
  input TEXT NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('fast', 'deep')),
  visibility TEXT NOT NULL CHECK (visibility IN ('public', 'private')),
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
  error TEXT,
  report TEXT,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT
) STRICT;
CREATE INDEX scans_user ON scans(user_id, created_at);
CREATE INDEX scans_public ON scans(visibility, status, finished_at);

CREATE TABLE quota_counters (
  bucket TEXT PRIMARY KEY,
  count INTEGER NOT NULL,
  reset_at TEXT NOT NULL
) STRICT;

CREATE TABLE outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  "to" TEXT NOT NULL,
  subject TEXT NOT NULL,
  text TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
`;
