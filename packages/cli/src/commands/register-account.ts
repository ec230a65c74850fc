import { InvalidArgumentError, Option } from 'commander';
import type { Command } from 'commander';
import { runCommand } from '../client/run.js';
import { connect } from '../credentials/connect.js';
import type { CommandIo } from '../terminal.js';
import { setServerCommand, showConfigCommand } from './config.js';
import { forgetOAuthCommand } from './forget-oauth.js';
import { keysCreateCommand, keysListCommand, keysRevokeCommand } from './keys.js';
import type { KeysCreateOptions } from './keys.js';
import { authStatusCommand, loginCommand, logoutCommand, whoamiCommand } from './login.js';
import type { LoginOptions, LogoutOptions, ServerOptions } from './login.js';

// The account commands: sign-in, credentials, server profiles and API keys. Every one takes --server and --json.

const SERVER_HELP = 'the svc server (default: SVC_SERVER, then `svc config set-server`, then http://127.0.0.1:7878)';

const CREDENTIALS_HELP = `
Credentials:
  SVC_TOKEN (a session) and SVC_API_KEY (an API key) take precedence over stored credentials, for CI.
  Stored credentials live in the OS keychain; without one (a headless box) in a 0600 file in the config dir
  (SVC_CONFIG_DIR, else $XDG_CONFIG_HOME/svc, else ~/.config/svc), and svc says so when it writes there.
  SVC_CREDENTIAL_STORE=file never tries the keychain; SVC_CREDENTIAL_STORE=keychain fails without one.

Exit codes: 0 done, 2 error (not signed in, session expired, server unreachable or refusing: one line on stderr).
`;

function positiveInteger(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number of days.');
  return Number(value);
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').map((part) => part.trim()).filter(Boolean)];
}

function withServer(command: Command): Command {
  return command.option('--server <url>', SERVER_HELP).option('--json', 'print the result as JSON on stdout');
}

export function registerAccountCommands(program: Command, io: CommandIo, setExitCode: (code: number) => void): void {
  const run = async (action: () => Promise<number | void>) => setExitCode(await runCommand(io, action));

  withServer(program.command('login'))
    .description('sign in with your e-mail address and a one-time code mailed to it; the session is stored for later commands')
    .option('--email <address>', 'the address to sign in (asked for on a terminal when not given)')
    .option('--code <digits>', 'the 6-digit code from the mail (asked for, or read from stdin when it is not a terminal)')
    .addHelpText(
      'after',
      `
The server mails a code valid for 10 minutes; type it at the prompt. The session token (valid 12 hours) is stored
for the server, and the server becomes the default when there is none yet.
${CREDENTIALS_HELP}
Examples:
  $ svc login --email ada@example.com
  $ svc login --server https://svc.example.com --email ada@example.com
  $ echo 123456 | svc login --email ada@example.com     # the code on stdin
`,
    )
    .action((options: LoginOptions) => run(() => loginCommand(io, options)));

  withServer(program.command('logout'))
    .description('forget the stored session of the server (with --all also its stored API key)')
    .option('--all', 'also remove the API key stored with `svc keys create --save`')
    .addHelpText('after', `\nExamples:\n  $ svc logout\n  $ svc logout --server https://svc.example.com --all\n`)
    .action((options: LogoutOptions) => run(() => logoutCommand(io, options)));

  withServer(program.command('whoami'))
    .description('show the signed-in account of the server (GET /me): e-mail, plan, team')
    .addHelpText('after', `${CREDENTIALS_HELP}\nExamples:\n  $ svc whoami\n  $ svc whoami --json | jq -r .tier\n`)
    .action((options: ServerOptions) => run(() => whoamiCommand(io, options)));

  const auth = program.command('auth').description('what the CLI holds for a server').helpOption('-h, --help', 'show help');
  withServer(auth.command('status'))
    .description('which server, which credential store (keychain or file, and why), which credentials are present; asks no server, prints no secret')
    .addHelpText('after', `${CREDENTIALS_HELP}\nExamples:\n  $ svc auth status\n  SVC_API_KEY=svc_… svc auth status --json\n`)
    .action((options: ServerOptions) => run(() => authStatusCommand(io, options)));

  auth
    .command('forget')
    .description('forget the OAuth tokens `svc scan` keeps for a remote MCP endpoint (the next scan signs in again)')
    .argument('<url>', 'the endpoint, as given to `svc scan`')
    .option('--json', 'print the result as JSON on stdout')
    .addHelpText('after', `\nExamples:\n  $ svc auth forget https://mcp.example.com/mcp\n`)
    .action((url: string, options: { json?: boolean }) => run(() => forgetOAuthCommand(io, url, options)));

  const keys = program.command('keys').description('create, list and revoke API keys (paid plans; needs `svc login`)');
  withServer(keys.command('create'))
    .description('create an API key; it is printed once, on stdout')
    .requiredOption('--label <label>', 'a name for the key, e.g. the CI job that uses it')
    .option('--scope <scopes>', 'a scope (repeat or comma-separate); default scan:submit, scan:list, scan:get', collect)
    .option('--expires-in-days <days>', 'lifetime in whole days, 1 to 365 (default 90)', positiveInteger)
    .option('--ip <cidr>', 'accept the key only from this address or CIDR (repeat or comma-separate; up to 20)', collect)
    .option('--save', 'store the key (keychain, else the credentials file) so `svc scan --remote` uses it')
    .addHelpText(
      'after',
      `
The key goes to stdout alone, so a script can capture it; what it is goes to stderr.

Examples:
  $ svc keys create --label laptop --save
  $ svc keys create --label ci --scope scan:submit,scan:get --expires-in-days 30 --ip 203.0.113.0/24
  $ KEY=$(svc keys create --label ci)
`,
    )
    .action((options: KeysCreateOptions & ServerOptions) =>
      run(async () => keysCreateCommand(io, await connect(io, options, 'session'), options)),
    );
  withServer(keys.command('list'))
    .description('list your API keys: id, label, prefix…last4, scopes, expiry, last use (never the secret)')
    .option('--all', 'also list revoked and expired keys')
    .addHelpText('after', `\nExamples:\n  $ svc keys list\n  $ svc keys list --all --json\n`)
    .action((options: ServerOptions & { all?: boolean }) => run(async () => keysListCommand(io, await connect(io, options, 'session'), options)));
  withServer(keys.command('revoke'))
    .description('revoke an API key: it stops working at once')
    .argument('<id>', 'the key id (from `svc keys list`)')
    .addHelpText('after', `\nExamples:\n  $ svc keys revoke 4f9c2d7e-…\n`)
    .action((id: string, options: ServerOptions) => run(async () => keysRevokeCommand(io, await connect(io, options, 'session'), id, options)));

  const config = program.command('config').description('server profiles: which server the account commands and `svc scan --remote` use');
  config
    .command('set-server')
    .description('make a server the default (remembered in config.json in the config dir)')
    .argument('<url>', 'http(s)://host[:port] of an svcd or the hosted service')
    .option('--json', 'print the result as JSON on stdout')
    .addHelpText('after', `\nPrecedence: --server, then SVC_SERVER, then this default, then http://127.0.0.1:7878.\n\nExamples:\n  $ svc config set-server https://svc.example.com\n`)
    .action((url: string, options: { json?: boolean }) => run(() => setServerCommand(io, url, options)));
  config
    .command('show')
    .description('the config dir, the default server and the servers signed in to')
    .option('--json', 'print the result as JSON on stdout')
    .addHelpText('after', `\nExamples:\n  $ svc config show\n`)
    .action((options: { json?: boolean }) => run(() => showConfigCommand(io, options)));
}

/** The scan command's remote options (added by program.ts to `svc scan`). */
export function remoteScanOptions(): Option[] {
  return [
    new Option('--remote', 'scan on an svc server instead of in-process: with the API key (SVC_API_KEY or stored), else the session'),
    new Option('--server <url>', `with --remote: ${SERVER_HELP}`),
  ];
}
