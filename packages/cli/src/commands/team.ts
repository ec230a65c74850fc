import { emailsMatch, TIER_DISPLAY_NAMES, visibleLine, type Tier } from '@svc/core';
import { Option } from 'commander';
import type { Command } from 'commander';
import type { ApiClient } from '../client/api-client.js';
import { runCommand } from '../client/run.js';
import { connect } from '../credentials/connect.js';
import type { CommandIo } from '../terminal.js';
import { printJson, textTable } from '../ui/output.js';

// `svc team …`: the team routes of svcd (docs/daemon.md "Teams"). Human-readable output on stdout by default,
// the route's data as JSON with --json; refusals are the server's message and code on one line (exit 2).

interface JsonOption {
  json?: boolean;
}

export interface TeamMember {
  user_id: string;
  email: string;
  display_name: string | null;
  role: 'owner' | 'admin' | 'member';
  joined_at: string;
}

export interface PendingInvite {
  email: string;
  role: 'member' | 'admin';
  invited_by: string | null;
  created_at: string;
  expires_at: string;
}

export interface TeamView {
  org_id: string;
  name: string;
  tier: string;
  plan: string;
  created_at: string;
  role: TeamMember['role'];
  members: TeamMember[];
  pending_invites: PendingInvite[];
  seats: { used: number; pending: number; limit: number | null };
}

export interface CreatedInvite {
  email: string;
  role: 'member' | 'admin';
  invited_by: string;
  expires_at: string;
  invite_token: string;
  mail_sent: boolean;
}

export interface UsageReport {
  period_start: string;
  period_end: string;
  org: { org_id: string; name: string; tier: string };
  totals: { scans_used: number; members_count: number };
  members: Array<{ user_id: string; email: string; role: string; scans_used: number; last_scan_at: string | null }>;
}

export const INVITE_ROLE_CHOICES = ['member', 'admin'] as const;


const day = (iso: string | null) => (iso === null ? 'never' : iso.slice(0, 10));
const minute = (iso: string | null) => (iso === null ? 'never' : iso.slice(0, 16).replace('T', ' '));
const plan = (tier: string) => TIER_DISPLAY_NAMES[tier as Tier] ?? tier;
const person = (member: Pick<TeamMember, 'email' | 'display_name'>) =>
  member.display_name === null ? visibleLine(member.email) : `${visibleLine(member.display_name)} <${visibleLine(member.email)}>`;

export function renderTeam(team: TeamView): string {
  const seats = `${team.seats.used} used, ${team.seats.pending} pending, ${team.seats.limit === null ? 'no limit' : `limit ${team.seats.limit}`}`;
  const lines = [
    `${visibleLine(team.name)} (${team.org_id}), ${plan(team.tier)} plan; you are ${team.role}`,
    `seats: ${seats}`,
    '',
    textTable([['MEMBER', 'ROLE', 'JOINED', 'USER ID'], ...team.members.map((m) => [person(m), m.role, day(m.joined_at), m.user_id])]),
  ];
  if (team.pending_invites.length > 0) {
    lines.push(
      '',
      textTable([
        ['PENDING INVITE', 'ROLE', 'EXPIRES', 'INVITED BY'],
        ...team.pending_invites.map((invite) => [visibleLine(invite.email), invite.role, day(invite.expires_at), visibleLine(invite.invited_by ?? '(gone)')]),
      ]),
    );
  }
  return `${lines.join('\n')}\n`;
}

export async function teamShowCommand(io: CommandIo, client: ApiClient, options: JsonOption): Promise<number> {
  const team = await client.request<TeamView>('GET', '/team', { signal: io.signal });
  if (options.json === true) printJson(io, team);
  else io.stdout.write(renderTeam(team));
  return 0;
}

export async function teamCreateCommand(io: CommandIo, client: ApiClient, name: string, options: JsonOption): Promise<number> {
  const team = await client.request<TeamView>('POST', '/team', { body: { name }, signal: io.signal });
  if (options.json === true) printJson(io, team);
  else io.stdout.write(`created team ${visibleLine(team.name)} (${team.org_id}) on the ${plan(team.tier)} plan; you are its owner\n`);
  return 0;
}

export async function teamRenameCommand(io: CommandIo, client: ApiClient, name: string, options: JsonOption): Promise<number> {
  const team = await client.request<TeamView>('PATCH', '/team', { body: { name }, signal: io.signal });
  if (options.json === true) printJson(io, team);
  else io.stdout.write(`renamed the team to ${visibleLine(team.name)}\n`);
  return 0;
}

export async function teamInviteCommand(
  io: CommandIo,
  client: ApiClient,
  email: string,
  options: JsonOption & { role?: (typeof INVITE_ROLE_CHOICES)[number] },
): Promise<number> {
  const invite = await client.request<CreatedInvite>('POST', '/team/invite', { body: { email, role: options.role ?? 'member' }, signal: io.signal });
  if (options.json === true) {
    printJson(io, invite);
    return 0;
  }
  io.stdout.write(`invited ${visibleLine(invite.email)} as ${invite.role}; the invite expires on ${day(invite.expires_at)}\n`);
  if (invite.mail_sent) io.stdout.write('the invite mail with the token is on its way\n');
  else {
    // The server could not mail it (or the invitee turned invite mail off): the token only exists here now.
    io.stdout.write(`no mail was sent; give ${visibleLine(invite.email)} this command to accept:\n  svc team accept ${invite.invite_token}\n`);
  }
  return 0;
}

export async function teamAcceptCommand(io: CommandIo, client: ApiClient, token: string, options: JsonOption): Promise<number> {
  const team = await client.request<TeamView>('POST', '/team/invite/accept', { body: { invite_token: token }, signal: io.signal });
  if (options.json === true) printJson(io, team);
  else io.stdout.write(`joined ${visibleLine(team.name)} as ${team.role}; your scans are now paid by the ${plan(team.tier)} plan of the team\n`);
  return 0;
}

export async function teamRevokeInviteCommand(io: CommandIo, client: ApiClient, email: string, options: JsonOption): Promise<number> {
  const result = await client.request<{ email: string; revoked: true }>('DELETE', `/team/invites/${encodeURIComponent(email)}`, { signal: io.signal });
  if (options.json === true) printJson(io, result);
  else io.stdout.write(`revoked the invite of ${visibleLine(result.email)}; its token no longer works\n`);
  return 0;
}

/**
 * A member named by user id or email, as the routes need the id. An email that matches no member is sent as it is,
 * so the server gives its own answer (NOT_A_MEMBER to the owner, FORBIDDEN to others) rather than a guess of ours.
 */
async function memberId(io: CommandIo, client: ApiClient, who: string): Promise<string> {
  if (!who.includes('@')) return who;
  const team = await client.request<TeamView>('GET', '/team', { signal: io.signal });
  return team.members.find((member) => emailsMatch(member.email, who))?.user_id ?? who;
}

export async function teamRemoveCommand(io: CommandIo, client: ApiClient, who: string, options: JsonOption): Promise<number> {
  const id = await memberId(io, client, who);
  const result = await client.request<{ user_id: string; removed: true; left: boolean }>('DELETE', `/team/members/${encodeURIComponent(id)}`, { signal: io.signal });
  if (options.json === true) printJson(io, result);
  else io.stdout.write(result.left ? 'you left the team\n' : `removed ${visibleLine(who)} from the team\n`);
  return 0;
}

export async function teamLeaveCommand(io: CommandIo, client: ApiClient, options: JsonOption): Promise<number> {
  const me = await client.request<{ user_id: string }>('GET', '/me', { signal: io.signal });
  const result = await client.request<{ user_id: string; removed: true; left: boolean }>('DELETE', `/team/members/${encodeURIComponent(me.user_id)}`, {
    signal: io.signal,
  });
  if (options.json === true) printJson(io, result);
  else io.stdout.write('you left the team; your scans are paid by your own plan again\n');
  return 0;
}

export async function teamTransferCommand(io: CommandIo, client: ApiClient, who: string, options: JsonOption): Promise<number> {
  const id = await memberId(io, client, who);
  const team = await client.request<TeamView>('PATCH', '/team', { body: { new_owner_user_id: id }, signal: io.signal });
  if (options.json === true) {
    printJson(io, team);
    return 0;
  }
  const owner = team.members.find((member) => member.role === 'owner');
  io.stdout.write(
    `${owner === undefined ? visibleLine(who) : person(owner)} now owns ${visibleLine(team.name)}; you are ${team.role}. ` +
      `The team is on the new owner's plan: ${plan(team.tier)}\n`,
  );
  return 0;
}

export function renderUsage(report: UsageReport): string {
  const rows = [
    ['MEMBER', 'ROLE', 'SCANS', 'LAST SCAN'],
    ...report.members.map((member) => [visibleLine(member.email), member.role, String(member.scans_used), minute(member.last_scan_at)]),
  ];
  return (
    `${visibleLine(report.org.name)}, ${plan(report.org.tier)} plan: scans paid by the team from ${day(report.period_start)} to ${day(report.period_end)} (UTC)\n\n` +
    `${textTable(rows)}\n\n` +
    `${report.totals.scans_used} scan${report.totals.scans_used === 1 ? '' : 's'} this month, ${report.totals.members_count} member${report.totals.members_count === 1 ? '' : 's'}\n`
  );
}

export async function teamUsageCommand(io: CommandIo, client: ApiClient, options: JsonOption): Promise<number> {
  const report = await client.request<UsageReport>('GET', '/team/usage', { signal: io.signal });
  if (options.json === true) printJson(io, report);
  else io.stdout.write(renderUsage(report));
  return 0;
}

const SERVER_HELP = 'the svc server (default: SVC_SERVER, then `svc config set-server`, then http://127.0.0.1:7878)';

const TEAM_HELP = `
Needs \`svc login\` (a session; API keys are refused). A user is in at most one team. The owner renames, transfers,
removes members and reads usage; owners and admins invite and revoke invites; anyone but the owner may leave.
A refused or concurrent change (RETRY) changes nothing: run \`svc team show\` and try again.
Exit codes: 0 done, 2 error (one line on stderr with the server's message and code).
`;

function common(command: Command): Command {
  return command.option('--server <url>', SERVER_HELP).option('--json', 'print the result as JSON on stdout');
}

type WithServer<T> = T & { server?: string };

export function registerTeamCommands(program: Command, io: CommandIo, setExitCode: (code: number) => void): void {
  const run = async (action: () => Promise<number | void>) => setExitCode(await runCommand(io, action));
  const session = (options: { server?: string }) => connect(io, options, 'session');

  const team = program.command('team').description('your team: members, invites, ownership and usage');
  team.addHelpText('after', TEAM_HELP);

  common(team.command('show'))
    .description('the team: plan, seats, members and pending invites')
    .addHelpText('after', `${TEAM_HELP}\nExamples:\n  $ svc team show\n  $ svc team show --json | jq -r '.members[].email'\n`)
    .action((options: WithServer<JsonOption>) => run(async () => teamShowCommand(io, await session(options), options)));

  common(team.command('create'))
    .description('create a team and become its owner (Team and Business plans)')
    .argument('<name>', 'the team name (1 to 100 characters)')
    .addHelpText('after', `${TEAM_HELP}\nExamples:\n  $ svc team create "Acme Security"\n`)
    .action((name: string, options: WithServer<JsonOption>) => run(async () => teamCreateCommand(io, await session(options), name, options)));

  common(team.command('rename'))
    .description('rename the team (owner)')
    .argument('<name>', 'the new name')
    .addHelpText('after', `${TEAM_HELP}\nExamples:\n  $ svc team rename "Acme AppSec"\n`)
    .action((name: string, options: WithServer<JsonOption>) => run(async () => teamRenameCommand(io, await session(options), name, options)));

  common(team.command('invite'))
    .description('invite someone by e-mail (owner, admin); the token is mailed to them and works for 7 days')
    .argument('<email>', 'the address to invite; only a session of this address can accept')
    .addOption(new Option('--role <role>', 'what the invitee becomes').choices(INVITE_ROLE_CHOICES).default('member'))
    .addHelpText(
      'after',
      `${TEAM_HELP}
At most 20 invites per hour and 100 per day per team. When no mail could be sent, the token is printed instead.

Examples:
  $ svc team invite bob@example.com
  $ svc team invite carol@example.com --role admin
`,
    )
    .action((email: string, options: WithServer<JsonOption & { role?: (typeof INVITE_ROLE_CHOICES)[number] }>) =>
      run(async () => teamInviteCommand(io, await session(options), email, options)),
    );

  common(team.command('accept'))
    .description('accept an invite with the token from the invite mail (signed in as the invited address)')
    .argument('<token>', 'the invite token')
    .addHelpText('after', `${TEAM_HELP}\nExamples:\n  $ svc team accept inv_1MbLcedJQx6m8n9_sq4MlsVWW2t2LIyItVeu071mh1A\n`)
    .action((token: string, options: WithServer<JsonOption>) => run(async () => teamAcceptCommand(io, await session(options), token, options)));

  common(team.command('revoke-invite'))
    .description('revoke a pending invite (owner, admin); its token stops working')
    .argument('<email>', 'the invited address')
    .addHelpText('after', `${TEAM_HELP}\nExamples:\n  $ svc team revoke-invite bob@example.com\n`)
    .action((email: string, options: WithServer<JsonOption>) => run(async () => teamRevokeInviteCommand(io, await session(options), email, options)));

  common(team.command('remove'))
    .description('remove a member from the team (owner)')
    .argument('<member>', 'the member’s user id or e-mail address')
    .addHelpText('after', `${TEAM_HELP}\nExamples:\n  $ svc team remove bob@example.com\n  $ svc team remove 0b5c7e9e-4c1d-4f7a-9d51-2f8e3a6b1c20\n`)
    .action((who: string, options: WithServer<JsonOption>) => run(async () => teamRemoveCommand(io, await session(options), who, options)));

  common(team.command('leave'))
    .description('leave the team (not the owner: transfer ownership first)')
    .addHelpText('after', `${TEAM_HELP}\nExamples:\n  $ svc team leave\n`)
    .action((options: WithServer<JsonOption>) => run(async () => teamLeaveCommand(io, await session(options), options)));

  common(team.command('transfer'))
    .description('make another member the owner (owner); you become an admin and the team takes the new owner’s plan')
    .argument('<member>', 'the new owner’s user id or e-mail address')
    .addHelpText('after', `${TEAM_HELP}\nExamples:\n  $ svc team transfer carol@example.com\n`)
    .action((who: string, options: WithServer<JsonOption>) => run(async () => teamTransferCommand(io, await session(options), who, options)));

  common(team.command('usage'))
    .description('scans paid by the team this calendar month (UTC), per member (owner)')
    .addHelpText('after', `${TEAM_HELP}\nExamples:\n  $ svc team usage\n  $ svc team usage --json | jq '.totals'\n`)
    .action((options: WithServer<JsonOption>) => run(async () => teamUsageCommand(io, await session(options), options)));
}
