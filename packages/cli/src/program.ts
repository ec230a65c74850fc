import { existsSync } from 'node:fs';
import { FAIL_ON_LEVELS, getRule, isReportFormat, LOCKFILE_NAME, REPORT_FORMATS, SVC_VERSION } from '@svc/core';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { rulesCommand, RULES_FORMATS } from './commands/rules.js';
import type { RulesFormat } from './commands/rules.js';
import { registerBillingCommands } from './commands/billing.js';
import { registerMeCommands } from './commands/me.js';
import { registerAccountCommands, remoteScanOptions } from './commands/register-account.js';
import { remoteScan } from './commands/remote-scan.js';
import { baselineCommand, type BaselineCommandOptions } from './commands/baseline.js';
import { pinCommand, type PinCommandOptions } from './commands/pin.js';
import { scanCommand } from './commands/scan.js';
import { registerTeamCommands } from './commands/team.js';
import type { ReportFile, ScanCommandOptions } from './commands/scan.js';
import { EXIT } from './exit-codes.js';
import { runCommand } from './client/run.js';
import type { CommandIo } from './terminal.js';

/** Repeatable options: each occurrence adds to the list. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** `--exclude-rule a,b --exclude-rule c`: every id must name a rule, or nothing would be excluded and no one would know. */
function ruleIds(value: string, previous: string[] | undefined): string[] {
  const ids = value.split(',').map((id) => id.trim()).filter(Boolean);
  const unknown = ids.filter((id) => getRule(id) === undefined);
  if (unknown.length > 0) throw new InvalidArgumentError(`unknown rule ${unknown.join(', ')} (see \`svc rules\`).`);
  return [...(previous ?? []), ...ids];
}

/**
 * `--report <format>=<file>`, repeatable: the shape Syft and Grype use for `-o format=file`. Each file gets the same
 * scan in another format, so CI scans once for SARIF, a job summary and annotations.
 */
function reportFile(value: string, previous: ReportFile[] | undefined): ReportFile[] {
  const at = value.indexOf('=');
  const format = at < 0 ? value : value.slice(0, at);
  const file = at < 0 ? '' : value.slice(at + 1);
  if (!isReportFormat(format)) throw new InvalidArgumentError(`expected <format>=<file> with a format of ${REPORT_FORMATS.join(', ')}.`);
  if (file === '') throw new InvalidArgumentError(`expected <format>=<file>: give the file to write the ${format} report to.`);
  return [...(previous ?? []), { format, file }];
}

function isoDate(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value))) throw new InvalidArgumentError('not a date (YYYY-MM-DD).');
  return value;
}

function jobCount(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 256) throw new InvalidArgumentError('not a whole number from 1 to 256.');
  return Number(value);
}

function httpUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('not a URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError('must be an http(s) URL.');
  return value;
}

function registryOption(): Option {
  return new Option('--registry <url>', 'npm registry for npm targets (default: npm_config_registry, .npmrc, then https://registry.npmjs.org)').argParser(httpUrl);
}

function indexUrlOption(): Option {
  return new Option('--index-url <url>', 'PyPI base URL serving /pypi/<name>/json (default: SVC_PYPI_INDEX, PIP_INDEX_URL, then https://pypi.org)').argParser(httpUrl);
}

const SCAN_EXAMPLES = `
Targets:
  ./path/to/server            a local directory
  npm:name@version, @scope/x  an npm package (fetched from the registry, never installed)
  pypi:name==version          a PyPI package
  github:owner/repo, git+https://host/repo.git
                              a git repository
  https://host/mcp            a remote MCP endpoint, listed live (tools, prompts, resources; no tool is ever called)
  path/to/mcp.json            an MCP client config: every server in it is scanned

Remote endpoints that require OAuth: in a terminal (or with --oauth) svc signs in in your browser (a loopback
redirect on 127.0.0.1), keeps the tokens in the OS keychain (else the 0600 credentials file), refreshes them, and
scans again. Later scans use the stored tokens; \`svc auth forget <url>\` removes them.

Exit codes:
  0    no finding at or above --fail-on, every target scanned (or partly scanned, without --fail-on-partial)
  1    at least one finding at or above --fail-on
  2    usage error, a target could not be scanned (failed, or not scanned such as a remote endpoint),
       a partly scanned target with --fail-on-partial, or an internal error
  130  interrupted (Ctrl-C)

Examples:
  $ svc scan ./my-mcp-server
  $ svc scan npm:@modelcontextprotocol/server-filesystem --mode deep
  $ svc scan --discover
  $ svc scan . --format sarif --output svc.sarif --fail-on medium
  $ svc scan . --format github --report sarif=svc.sarif --report junit=svc-junit.xml
  $ svc scan ./server --format json > report.json
  $ MCP_TOKEN=… svc scan https://mcp.example.com/mcp --bearer-token-env MCP_TOKEN
  $ svc pin && svc scan --discover       # report tool changes since the pin (mcp.lock)
  $ svc scan https://mcp.example.com/mcp --oauth
  $ svc scan --remote npm:@modelcontextprotocol/server-everything
  $ SVC_API_KEY=svc_… svc scan --remote --server https://svc.example.com /srv/mcp/notes --format sarif
`;

/**
 * Builds the `svc` program. Every command reports its exit code through `setExitCode`; nothing below the entry point
 * exits the process.
 */
export function createProgram(io: CommandIo, setExitCode: (code: number) => void): Command {
  const program = new Command();
  program
    .name('svc')
    .description('Scan MCP (Model Context Protocol) servers for security problems.')
    .version(SVC_VERSION, '-V, --version', 'print the svc version')
    .helpOption('-h, --help', 'show help')
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    // Read by the entry point (index.ts) before parsing, so a crash at start-up can show its stack too.
    .option('--debug', 'print the stack trace of an internal error (also SVC_DEBUG=1)')
    .showHelpAfterError('(add --help for usage)')
    // Commander exits with 1 on usage errors; svc promises 2 (1 means findings), so errors come back as exceptions.
    .exitOverride()
    // Commands with --json print their failures as JSON on stdout (client/run.ts).
    .hook('preAction', (_program, action) => {
      io.json = action.opts()['json'] === true;
    });

  program
    .command('scan')
    .description('scan MCP servers and report security findings')
    .argument('[targets...]', 'directories, package specs, git URLs, remote endpoints or MCP client config files')
    .addOption(new Option('-f, --format <format>', 'report format').choices(REPORT_FORMATS).default('text'))
    .option('-o, --output <file>', 'write the report to this file (atomically) instead of stdout')
    .addOption(
      new Option('--report <format=file>', 'also write the same scan in this format to this file, e.g. sarif=svc.sarif (repeatable)').argParser(reportFile),
    )
    .addOption(
      new Option('-m, --mode <mode>', 'fast: the rules; deep: also cross-file dataflow, registry metadata and the judge panel')
        .choices(['fast', 'deep'])
        .default('fast'),
    )
    .addOption(
      new Option('--fail-on <severity>', 'exit with 1 when a finding has this severity or higher')
        .choices(FAIL_ON_LEVELS)
        .default('high'),
    )
    .option('--fail-on-partial', 'exit with 2 when a target was only partly scanned (files not parsed or over limits, no tools found)')
    .addOption(new Option('--exclude-rule <ids>', 'do not report these rules (comma-separated, repeatable)').argParser(ruleIds))
    .addOption(new Option('--exclude-path <glob>', 'do not report findings in files matching this glob (repeatable)').argParser(collect))
    .option('--baseline <file>', 'suppress the findings listed in this baseline (written by `svc baseline`) until they expire')
    .option('--discover', 'also scan every MCP client config found on this machine')
    .option('--lockfile <file>', `report what changed since the servers were pinned in this lock (default: ./${LOCKFILE_NAME} when it exists)`)
    .option('--no-lockfile', `do not compare with ./${LOCKFILE_NAME}`)
    .addOption(registryOption())
    .addOption(indexUrlOption())
    .addOption(new Option('-j, --jobs <n>', 'targets scanned at once, each on its own thread (default: one per CPU core; 1: one at a time)').argParser(jobCount))
    .addOption(
      new Option('-H, --header <"Name: value">', 'request header for the remote endpoints named on the command line, as curl takes it (repeatable)').argParser(collect),
    )
    .option('--bearer-token-env <name>', 'send `Authorization: Bearer <value of this environment variable>` to the remote endpoints named on the command line')
    .option('--oauth', 'sign in (OAuth, in the browser) to remote endpoints on the command line that ask for it, even without a terminal')
    .option('--no-oauth', 'never sign in nor use stored OAuth tokens (default: sign in when run in a terminal)')
    .option('--no-color', 'no colours in the progress view and the text report (also NO_COLOR=1)')
    .option('-q, --quiet', 'no progress and no summary line: only the report and failures')
    .addOption(remoteScanOptions()[0]!)
    .addOption(remoteScanOptions()[1]!.argParser(httpUrl))
    .addHelpText('after', SCAN_EXAMPLES)
    .action(async (targets: string[], options: ScanCommandOptions & { remote?: boolean; server?: string }, command: Command) => {
      options.failOnExplicit = command.getOptionValueSource('failOn') !== 'default';
      if (options.remote || options.server !== undefined) {
        if (options.excludeRule || options.excludePath || options.baseline !== undefined) {
          command.error('error: --exclude-rule, --exclude-path and --baseline apply to local scans; they cannot be combined with --remote', { exitCode: EXIT.error });
        }
        if (options.discover) command.error('error: --discover finds configs on this machine; it cannot be combined with --remote', { exitCode: EXIT.error });
        if (options.header || options.bearerTokenEnv !== undefined || options.oauth !== undefined) {
          command.error('error: --header, --bearer-token-env and --oauth apply to local scans of remote endpoints; they cannot be combined with --remote', { exitCode: EXIT.error });
        }
        if (typeof options.lockfile === 'string') command.error('error: --lockfile applies to local scans; it cannot be combined with --remote', { exitCode: EXIT.error });
        if (options.lockfile === undefined && existsSync(LOCKFILE_NAME)) io.stderr.write(`svc: note: ./${LOCKFILE_NAME} is not compared on --remote scans\n`);
        if (targets.length === 0) command.error('error: nothing to scan: give at least one target', { exitCode: EXIT.error });
        setExitCode(await runCommand(io, () => remoteScan(targets, options, io)));
        return;
      }
      if (targets.length === 0 && !options.discover) {
        command.error('error: nothing to scan: give at least one target, or --discover', { exitCode: EXIT.error });
      }
      setExitCode(await scanCommand(targets, options, io));
    });

  program
    .command('pin')
    .description(`record what each MCP server shows the model in ${LOCKFILE_NAME}, so \`svc scan\` reports later changes (rug pulls)`)
    .argument('[targets...]', 'what to pin, as for `svc scan` (default: the servers of the MCP client configs found on this machine)')
    .option('--lockfile <file>', 'the lock file to write (atomically); servers pinned now replace their entries, the others stay', `./${LOCKFILE_NAME}`)
    .option('--discover', 'with targets: also pin every MCP client config found on this machine')
    .addOption(registryOption())
    .addOption(indexUrlOption())
    .option('-q, --quiet', 'only the summary line and failures')
    .addHelpText(
      'after',
      `\nExit codes: 0 every server pinned; 2 a target could not be scanned (the others are still written), or the lock does not read.\n\nExamples:\n  $ svc pin                      # the servers of this machine's MCP client configs\n  $ svc pin ./my-server npm:@modelcontextprotocol/server-filesystem@2025.8.21\n  $ svc scan --discover          # reports tool-drift findings against ./${LOCKFILE_NAME}\n\nFormat and what counts as drift: docs/pinning.md\n`,
    )
    .action(async (targets: string[], options: PinCommandOptions) => {
      setExitCode(await pinCommand(targets, options, io));
    });

  program
    .command('baseline')
    .description('record the current findings as accepted, so `svc scan --baseline <file>` reports only new ones')
    .argument('<targets...>', 'what to scan, as for `svc scan`')
    .requiredOption('--reason <text>', 'why these findings are accepted (kept with each entry, shown when one is suppressed)')
    .addOption(new Option('--expires <date>', 'YYYY-MM-DD after which the entries stop silencing their findings').argParser(isoDate))
    .option('-o, --output <file>', 'the baseline file to write (atomically)', '.svc-baseline.json')
    .addOption(new Option('-m, --mode <mode>', 'scan mode').choices(['fast', 'deep']).default('fast'))
    .addHelpText('after', '\nExamples:\n  $ svc baseline . --reason "reviewed in the 1.4 security review" --expires 2027-06-30\n  $ svc scan . --baseline .svc-baseline.json\n')
    .action(async (targets: string[], options: BaselineCommandOptions) => {
      setExitCode(await baselineCommand(targets, options, io));
    });

  program
    .command('rules')
    .description('list the rule catalog (id, category, severity, title), or explain one rule')
    .argument('[id]', 'a rule id: print its description, what it looks for, remediation, CWE and OWASP MCP ids')
    .addOption(new Option('-f, --format <format>', 'output format').choices(RULES_FORMATS).default('text'))
    .addHelpText('after', '\nExamples:\n  $ svc rules\n  $ svc rules --format json | jq \'.[] | select(.severity == "critical") | .id\'\n')
    .action((id: string | undefined, options: { format: RulesFormat }) => {
      setExitCode(rulesCommand(id, options, io));
    });

  registerAccountCommands(program, io, setExitCode);
  registerBillingCommands(program, io, setExitCode);
  registerTeamCommands(program, io, setExitCode);
  registerMeCommands(program, io, setExitCode);

  program.addHelpText(
    'after',
    `
Examples:
  $ svc scan ./my-mcp-server
  $ svc scan --discover
  $ svc rules --format markdown
  $ svc login --email you@example.com && svc keys create --label laptop --save
  $ svc scan --remote ./my-mcp-server

Run \`svc <command> --help\` for the options of a command. Docs: docs/cli.md
`,
  );
  return program;
}

/** Parses `argv` (process.argv shape) and runs the command; resolves to the exit code. */
export async function main(argv: string[], io: CommandIo): Promise<number> {
  let exitCode: number = EXIT.clean;
  const program = createProgram(io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv);
  } catch (error) {
    // --help and --version end in a CommanderError with exit code 0; every other one is a usage error.
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.clean : EXIT.error;
    throw error;
  }
  return exitCode;
}
