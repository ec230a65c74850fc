import type { BucketRequest } from '@svc/core';
import type { SqliteDatabase } from './database.js';
import { SqliteQuotaStore } from './quota.js';
import type { CreateInviteResult, Membership, MemberUsage, Team, TeamInvite, TeamMember, TeamRepository } from './repositories.js';

interface TeamRow {
  id: string;
  name: string;
  owner_user_id: string;
  tier: Team['tier'];
  version: number;
  created_at: string;
}

interface InviteRow {
  id: string;
  team_id: string;
  email: string;
  role: TeamInvite['role'];
  invited_by: string | null;
  invited_by_email: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  revoked_at: string | null;
}

function toInvite(row: InviteRow): TeamInvite {
  return {
    id: row.id,
    teamId: row.team_id,
    email: row.email,
    role: row.role,
    invitedBy: row.invited_by,
    invitedByEmail: row.invited_by_email,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    acceptedAt: row.accepted_at,
    revokedAt: row.revoked_at,
  };
}

const INVITE_SELECT = `SELECT i.id, i.team_id, i.email, i.role, i.invited_by, inviter.email AS invited_by_email, i.created_at, i.expires_at,
  i.accepted_at, i.revoked_at FROM team_invites i LEFT JOIN users inviter ON inviter.id = i.invited_by`;

const OPEN = 'i.accepted_at IS NULL AND i.revoked_at IS NULL';

/** Thrown inside a versioned write to roll it back (version bump included) and answer with `result`. */
class Abort<R> extends Error {
  constructor(readonly result: R) {
    super('team write aborted');
  }
}

function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export class SqliteTeamRepository implements TeamRepository {
  private readonly quota: SqliteQuotaStore;

  constructor(private readonly db: SqliteDatabase) {
    this.quota = new SqliteQuotaStore(db);
  }

  async membershipOf(userId: string): Promise<Membership | undefined> {
    const row = this.db
      .prepare<[string], { team_id: string; role: Membership['role']; tier: Membership['teamTier'] }>(
        `SELECT m.team_id, m.role, owner.tier FROM team_members m
         JOIN teams t ON t.id = m.team_id JOIN users owner ON owner.id = t.owner_user_id
         WHERE m.user_id = ?`,
      )
      .get(userId);
    return row && { teamId: row.team_id, role: row.role, teamTier: row.tier };
  }

  async findTeam(teamId: string): Promise<Team | undefined> {
    return this.team(teamId);
  }

  async members(teamId: string): Promise<TeamMember[]> {
    return this.db
      .prepare<[string], { user_id: string; email: string; display_name: string | null; role: TeamMember['role']; joined_at: string }>(
        `SELECT m.user_id, u.email, u.display_name, m.role, m.joined_at FROM team_members m JOIN users u ON u.id = m.user_id
         WHERE m.team_id = ? ORDER BY m.role = 'owner' DESC, m.joined_at, m.user_id`,
      )
      .all(teamId)
      .map((row) => ({ userId: row.user_id, email: row.email, displayName: row.display_name, role: row.role, joinedAt: row.joined_at }));
  }

  async pendingInvites(teamId: string, now: Date): Promise<TeamInvite[]> {
    return this.db
      .prepare<[string, string], InviteRow>(`${INVITE_SELECT} WHERE i.team_id = ? AND ${OPEN} AND i.expires_at > ? ORDER BY i.created_at, i.id`)
      .all(teamId, now.toISOString())
      .map(toInvite);
  }

  async findInviteByTokenHash(tokenHash: string): Promise<TeamInvite | undefined> {
    const row = this.db.prepare<[string], InviteRow>(`${INVITE_SELECT} WHERE i.token_hash = ?`).get(tokenHash);
    return row && toInvite(row);
  }

  async create({ id, name, ownerUserId, now }: { id: string; name: string; ownerUserId: string; now: Date }): Promise<{ ok: true; team: Team } | { ok: false; reason: 'member' }> {
    const createdAt = now.toISOString();
    const insert = this.db.transaction(() => {
      this.db.prepare('INSERT INTO teams (id, name, owner_user_id, created_at, version) VALUES (?, ?, ?, ?, 0)').run(id, name, ownerUserId, createdAt);
      this.db.prepare("INSERT INTO team_members (team_id, user_id, role, joined_at) VALUES (?, ?, 'owner', ?)").run(id, ownerUserId, createdAt);
    });
    try {
      insert.immediate();
    } catch (error) {
      // team_members.user_id is unique: a user belongs to at most one team, also against a concurrent create.
      if (isUniqueViolation(error)) return { ok: false, reason: 'member' };
      throw error;
    }
    const team = this.team(id);
    if (team === undefined) throw new Error('team vanished right after its insert');
    return { ok: true, team };
  }

  async rename({ teamId, version, name }: { teamId: string; version: number; name: string }): Promise<'ok' | 'conflict'> {
    return this.versioned(teamId, version, () => {
      this.db.prepare('UPDATE teams SET name = ? WHERE id = ?').run(name, teamId);
      return 'ok' as const;
    });
  }

  async transfer({
    teamId,
    version,
    from,
    to,
    previousOwnerRole,
  }: {
    teamId: string;
    version: number;
    from: string;
    to: string;
    previousOwnerRole: 'admin' | 'member';
  }): Promise<'ok' | 'conflict' | 'not_member'> {
    return this.versioned<'ok' | 'not_member'>(teamId, version, () => {
      const promoted = this.db.prepare("UPDATE team_members SET role = 'owner' WHERE team_id = ? AND user_id = ? AND role != 'owner'").run(teamId, to);
      if (promoted.changes === 0) throw new Abort('not_member' as const);
      this.db.prepare('UPDATE team_members SET role = ? WHERE team_id = ? AND user_id = ?').run(previousOwnerRole, teamId, from);
      this.db.prepare('UPDATE teams SET owner_user_id = ? WHERE id = ?').run(to, teamId);
      return 'ok';
    });
  }

  async createInvite({
    version,
    invite,
    tokenHash,
    buckets,
    now,
  }: {
    version: number;
    invite: Omit<TeamInvite, 'invitedByEmail' | 'acceptedAt' | 'revokedAt'>;
    tokenHash: string;
    buckets: readonly BucketRequest[];
    now: Date;
  }): Promise<CreateInviteResult> {
    const nowText = now.toISOString();
    const result = this.versioned<CreateInviteResult>(invite.teamId, version, () => {
      const member = this.db
        .prepare<[string, string], { user_id: string }>('SELECT m.user_id FROM team_members m JOIN users u ON u.id = m.user_id WHERE m.team_id = ? AND u.email = ?')
        .get(invite.teamId, invite.email);
      if (member !== undefined) throw new Abort<CreateInviteResult>({ ok: false, reason: 'member' });
      const open = this.db
        .prepare<[string, string], { id: string; expires_at: string }>(`SELECT i.id, i.expires_at FROM team_invites i WHERE i.team_id = ? AND i.email = ? AND ${OPEN}`)
        .get(invite.teamId, invite.email);
      if (open !== undefined) {
        if (open.expires_at > nowText) throw new Abort<CreateInviteResult>({ ok: false, reason: 'pending' });
        // An expired invite is dead but still holds the "one open invite" slot; the new one replaces it.
        this.db.prepare('UPDATE team_invites SET revoked_at = ? WHERE id = ?').run(nowText, open.id);
      }
      // Counted only together with a stored invite, so refused invites do not use up the team's limit.
      const decision = this.quota.consumeInTransaction(buckets, now);
      if (!decision.allowed) throw new Abort<CreateInviteResult>({ ok: false, reason: 'rate_limited', decision });
      this.db
        .prepare(
          `INSERT INTO team_invites (id, team_id, email, role, token_hash, invited_by, created_at, expires_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(invite.id, invite.teamId, invite.email, invite.role, tokenHash, invite.invitedBy, invite.createdAt, invite.expiresAt);
      return { ok: true };
    });
    return result === 'conflict' ? { ok: false, reason: 'conflict' } : result;
  }

  async acceptInvite({
    inviteId,
    teamId,
    version,
    userId,
    now,
  }: {
    inviteId: string;
    teamId: string;
    version: number;
    userId: string;
    now: Date;
  }): Promise<'ok' | 'conflict' | 'gone' | 'member'> {
    const nowText = now.toISOString();
    return this.versioned<'ok' | 'gone' | 'member'>(teamId, version, () => {
      // The state check and the update are one statement: a second accept of the same token finds no open row.
      const closed = this.db
        .prepare(`UPDATE team_invites SET accepted_at = ?, accepted_by = ? WHERE id = ? AND accepted_at IS NULL AND revoked_at IS NULL`)
        .run(nowText, userId, inviteId);
      if (closed.changes === 0) throw new Abort('gone' as const);
      const role = this.db.prepare<[string], { role: string }>('SELECT role FROM team_invites WHERE id = ?').get(inviteId)?.role;
      try {
        this.db.prepare('INSERT INTO team_members (team_id, user_id, role, joined_at) VALUES (?, ?, ?, ?)').run(teamId, userId, role, nowText);
      } catch (error) {
        if (isUniqueViolation(error)) throw new Abort('member' as const);
        throw error;
      }
      return 'ok';
    });
  }

  async revokeInvite({ teamId, version, email, now }: { teamId: string; version: number; email: string; now: Date }): Promise<'ok' | 'conflict' | 'not_found'> {
    return this.versioned<'ok' | 'not_found'>(teamId, version, () => {
      const revoked = this.db
        .prepare(`UPDATE team_invites SET revoked_at = ? WHERE team_id = ? AND email = ? AND accepted_at IS NULL AND revoked_at IS NULL`)
        .run(now.toISOString(), teamId, email);
      if (revoked.changes === 0) throw new Abort('not_found' as const);
      return 'ok';
    });
  }

  async removeMember({ teamId, version, userId }: { teamId: string; version: number; userId: string }): Promise<'ok' | 'conflict' | 'not_member'> {
    return this.versioned<'ok' | 'not_member'>(teamId, version, () => {
      // Never the owner: the route refuses that earlier, and this keeps a race from leaving a team without one.
      const removed = this.db.prepare("DELETE FROM team_members WHERE team_id = ? AND user_id = ? AND role != 'owner'").run(teamId, userId);
      if (removed.changes === 0) throw new Abort('not_member' as const);
      return 'ok';
    });
  }

  async usage({ teamId, from, to }: { teamId: string; from: Date; to: Date }): Promise<{ perUser: MemberUsage[]; total: number }> {
    const rows = this.db
      .prepare<{ teamId: string; from: string; to: string }, { user_id: string; scans_used: number; last_scan_at: string | null }>(
        `SELECT user_id, SUM(CASE WHEN created_at >= @from AND created_at < @to THEN 1 ELSE 0 END) AS scans_used, MAX(created_at) AS last_scan_at
         FROM scans WHERE org_id = @teamId AND user_id IS NOT NULL GROUP BY user_id`,
      )
      .all({ teamId, from: from.toISOString(), to: to.toISOString() });
    const perUser = rows.map((row) => ({ userId: row.user_id, scansUsed: row.scans_used, lastScanAt: row.last_scan_at }));
    return { perUser, total: perUser.reduce((sum, row) => sum + row.scansUsed, 0) };
  }

  private team(teamId: string): Team | undefined {
    const row = this.db
      .prepare<[string], TeamRow>(
        'SELECT t.id, t.name, t.owner_user_id, owner.tier, t.version, t.created_at FROM teams t JOIN users owner ON owner.id = t.owner_user_id WHERE t.id = ?',
      )
      .get(teamId);
    return row && { id: row.id, name: row.name, ownerUserId: row.owner_user_id, tier: row.tier, version: row.version, createdAt: row.created_at };
  }

  /**
   * Optimistic concurrency: the write runs only if the team is still at `version`, and moves it on in the same
   * IMMEDIATE transaction, so of two writers that read the same version exactly one succeeds (also across
   * processes on one file). `write` throws Abort to roll everything back and answer with its result.
   */
  private versioned<R>(teamId: string, version: number, write: () => R): R | 'conflict' {
    const run = this.db.transaction((): R | 'conflict' => {
      const bumped = this.db.prepare('UPDATE teams SET version = version + 1 WHERE id = ? AND version = ?').run(teamId, version);
      if (bumped.changes === 0) return 'conflict';
      return write();
    });
    try {
      return run.immediate();
    } catch (error) {
      if (error instanceof Abort) return error.result as R;
      throw error;
    }
  }
}
