import { TIER_DISPLAY_NAMES, visibleLine, type Tier } from '@svc/core';
import { InvalidArgumentError } from 'commander';
import type { Command } from 'commander';
import type { ApiClient } from '../client/api-client.js';
import { runCommand } from '../client/run.js';
import { connect } from '../credentials/connect.js';
import type { CommandIo } from '../terminal.js';
import { printJson } from '../ui/output.js';

// `svc me`: the profile of GET /me, changed with PUT /me when any option asks for a change (docs/daemon.md "Profile").

export interface Profile {
  email: string;
  user_id: string;
  tier: string;
  org_id?: string;
  display_name: string | null;
  notifications: { scan_completed: boolean; new_location: boolean; invites: boolean };
}

export interface MeOptions {
  json?: boolean;
  /** An empty string clears the name. */
  displayName?: string;
  notifyScanCompleted?: boolean;
  notifyNewLocation?: boolean;
  notifyInvites?: boolean;
}

/** `on`/`off` (also true/false, yes/no) for the notification switches. */
export function onOff(value: string): boolean {
  const text = value.trim().toLowerCase();
  if (['on', 'true', 'yes'].includes(text)) return true;
  if (['off', 'false', 'no'].includes(text)) return false;
  throw new InvalidArgumentError('must be on or off.');
}

const state = (on: boolean) => (on ? 'on' : 'off');

export function renderProfile(profile: Profile): string {
  const n = profile.notifications;
  return [
    `email:         ${visibleLine(profile.email)}`,
    `user id:       ${profile.user_id}`,
    `plan:          ${TIER_DISPLAY_NAMES[profile.tier as Tier] ?? profile.tier} (${profile.tier})`,
    `team:          ${profile.org_id ?? 'none'}`,
    `display name:  ${profile.display_name === null ? '(not set)' : visibleLine(profile.display_name)}`,
    `notifications: scan completed ${state(n.scan_completed)}, new location ${state(n.new_location)}, invites ${state(n.invites)}`,
    '',
  ].join('\n');
}

export async function meCommand(io: CommandIo, client: ApiClient, options: MeOptions): Promise<number> {
  const notifications = {
    ...(options.notifyScanCompleted === undefined ? {} : { scan_completed: options.notifyScanCompleted }),
    ...(options.notifyNewLocation === undefined ? {} : { new_location: options.notifyNewLocation }),
    ...(options.notifyInvites === undefined ? {} : { invites: options.notifyInvites }),
  };
  const body = {
    ...(options.displayName === undefined ? {} : { display_name: options.displayName.trim() === '' ? null : options.displayName }),
    ...(Object.keys(notifications).length === 0 ? {} : { notifications }),
  };
  const changing = Object.keys(body).length > 0;
  const profile = changing
    ? await client.request<Profile>('PUT', '/me', { body, signal: io.signal })
    : await client.request<Profile>('GET', '/me', { signal: io.signal });
  if (options.json === true) printJson(io, profile);
  else io.stdout.write(renderProfile(profile));
  return 0;
}

const SERVER_HELP = 'the svc server (default: SVC_SERVER, then `svc config set-server`, then http://127.0.0.1:7878)';

export function registerMeCommands(program: Command, io: CommandIo, setExitCode: (code: number) => void): void {
  program
    .command('me')
    .description('your profile: e-mail, plan, team, display name and which mail you get; options change it')
    .option('--display-name <name>', 'set the display name (1 to 100 characters; "" clears it)')
    .option('--notify-scan-completed <on|off>', 'mail when a scan finishes (stored; svcd sends no such mail yet)', onOff)
    .option('--notify-new-location <on|off>', 'mail when one of your API keys is used from a new network', onOff)
    .option('--notify-invites <on|off>', 'mail team invites to you (off: the inviter gets the token to pass on)', onOff)
    .option('--server <url>', SERVER_HELP)
    .option('--json', 'print the profile as JSON on stdout')
    .addHelpText(
      'after',
      `
Without options it reads the profile (GET /me); any option changes only that field (PUT /me) and prints the result.
Needs \`svc login\` (a session; API keys are refused).
Exit codes: 0 done, 2 error (one line on stderr with the server's message and code).

Examples:
  $ svc me
  $ svc me --display-name "Ada Lovelace"
  $ svc me --notify-new-location off --notify-invites on
  $ svc me --json | jq -r .org_id
`,
    )
    .action(async (options: MeOptions & { server?: string }) => {
      setExitCode(await runCommand(io, async () => meCommand(io, await connect(io, options, 'session'), options)));
    });
}
