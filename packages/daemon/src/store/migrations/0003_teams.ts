// Teams as spec 4.1 runs them: a version per team for optimistic concurrency (every team write bumps it in
// the transaction that makes the change, and a writer that read an older version changes nothing), invites,
// and the profile settings of PUT /me.
export default /* sql */ `
ALTER TABLE teams ADD COLUMN version INTEGER NOT NULL DEFAULT 0;

CREATE TABLE team_invites (
  id TEXT PRIMARY KEY,
  team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  -- Normalised (core's normalizeEmail): the form accept compares and "one open invite per email" keys on.
  email TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('member', 'admin')),
  -- sha256 of the token; the token itself is only in the invite mail and the creating response.
  token_hash TEXT NOT NULL UNIQUE,
  invited_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  accepted_at TEXT,
  accepted_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  revoked_at TEXT
) STRICT;
-- At most one open invite per team and address, also against concurrent writers. An expired open invite is
-- closed (revoked_at) by the next invite to the same address.
CREATE UNIQUE INDEX team_invites_open ON team_invites(team_id, email) WHERE accepted_at IS NULL AND revoked_at IS NULL;

-- Notification settings of PUT /me; every kind of mail is on until the user turns it off.
ALTER TABLE users ADD COLUMN notify_scan_completed INTEGER NOT NULL DEFAULT 1 CHECK (notify_scan_completed IN (0, 1));
ALTER TABLE users ADD COLUMN notify_new_location INTEGER NOT NULL DEFAULT 1 CHECK (notify_new_location IN (0, 1));
ALTER TABLE users ADD COLUMN notify_invites INTEGER NOT NULL DEFAULT 1 CHECK (notify_invites IN (0, 1));
`;
