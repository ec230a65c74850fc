import { expandTarget, hasCredentials, parseTarget, requiresOAuthSignIn, visibleLine } from '@svc/core';
import type { ScanReport, ScanRun, ScanTarget, TargetFailure } from '@svc/core';
import { openCredentialStore, type CredentialStore } from '../credentials/store.js';
import type { CommandIo } from '../terminal.js';
import { isFresh, loadTokens, refreshTokens, signIn, type OAuthContext } from './flow.js';
import { SignInError } from './loopback.js';

// OAuth for remote endpoints, around the scan rather than inside it: those named on `svc scan`'s command line, and
// the url servers of the client configs it scans that send no credentials of their own.
//
// Why around: several targets are scanned on worker threads (core's target-pool.ts), and what crosses to a worker is
// plain data, never an object with functions such as an OAuth provider; a browser and a keychain have no place in
// core either. So the CLI, on the main thread, (1) before the scan turns stored tokens into a bearer header for their
// own endpoint URL only (core's `endpointHeaders`), refreshing expired ones; (2) after the scan, for each endpoint whose
// report says it requires OAuth sign-in (none stored, or the stored one refused), signs in in the browser when the
// session is interactive, and scans that endpoint once more with the new token.

/** Scans one endpoint again with the sign-in headers added: its report, or why it failed. */
export type ScanAgain = (target: ScanTarget, endpointHeaders: Record<string, Record<string, string>>) => Promise<{ report: ScanReport } | { failure: TargetFailure }>;

/** An endpoint OAuth may sign in to: its URL and the target that scans it (a command-line input or a config's server). */
interface Endpoint {
  url: URL;
  target: Extract<ScanTarget, { kind: 'remote' }>;
}

export class EndpointOAuth {
  private constructor(
    private readonly endpoints: readonly Endpoint[],
    private readonly context: OAuthContext & { store: CredentialStore },
    /** Whether a browser may be opened: `--oauth`, or a terminal on stdin and stderr unless `--no-oauth`. */
    readonly interactive: boolean,
  ) {}

  /**
   * Undefined when OAuth does not apply: `--no-oauth`, credentials given on the command line (they win), or no
   * http(s) endpoint among the inputs and their configs' servers. Opens the credential store otherwise.
   */
  static async open(inputs: readonly string[], headers: Record<string, string>, oauth: boolean | undefined, io: CommandIo): Promise<EndpointOAuth | undefined> {
    if (oauth === true && hasCredentials(headers)) throw new Error('--oauth cannot be combined with credentials given by --header or --bearer-token-env');
    if (oauth === false || hasCredentials(headers)) return undefined;
    const endpoints = await endpointsOf(inputs);
    if (endpoints.length === 0) return undefined;
    const store = await openCredentialStore(io);
    const interactive = oauth === true || (io.stdin?.isTTY === true && io.stderr.isTTY === true);
    return new EndpointOAuth(endpoints, { io, store, ...(io.openBrowser ? { openBrowser: io.openBrowser } : {}) }, interactive);
  }

  /** `Authorization` headers from the stored tokens, per endpoint href; expired tokens are refreshed first. */
  async storedHeaders(): Promise<Record<string, Record<string, string>>> {
    const out: Record<string, Record<string, string>> = {};
    for (const { url } of this.endpoints) {
      if (out[url.href]) continue;
      let stored = await loadTokens(this.context.store, url);
      if (stored && !isFresh(stored, this.context.io.clock())) stored = await refreshTokens(url, stored, this.context);
      if (stored) out[url.href] = bearer(stored.tokens.access_token);
    }
    return out;
  }

  /**
   * The run with every endpoint that asked for sign-in signed in to and scanned again; a failed sign-in leaves its
   * honest not-scanned report and says why on stderr, nothing stored.
   */
  async signInWhereAsked(run: ScanRun, scanAgain: ScanAgain): Promise<ScanRun> {
    if (!this.interactive) return run;
    const reports = [...run.reports];
    const errors = [...run.errors];
    // One sign-in per URL, however many times it is named (on the command line and in configs); one that failed is not
    // tried again for the next server at the same URL.
    const tokens = new Map<string, string>();
    const failed = new Set<string>();
    for (const { url, target } of this.endpoints) {
      const index = reports.findIndex((report) => sameTarget(report.target, target) && requiresOAuthSignIn(report));
      if (index < 0 || failed.has(url.href)) continue;
      let token = tokens.get(url.href);
      if (token === undefined) {
        try {
          token = (await signIn(url, this.context)).tokens.access_token;
        } catch (error) {
          if (this.context.io.signal.aborted) break;
          const reason = error instanceof SignInError ? error.message : String(error);
          this.context.io.stderr.write(`svc: OAuth sign-in to ${url.href} failed: ${visibleLine(reason)}; nothing was stored\n`);
          failed.add(url.href);
          continue;
        }
        tokens.set(url.href, token);
        this.context.io.stderr.write(`svc: signed in to ${url.href} (tokens kept in ${this.context.store.kind === 'keychain' ? 'the OS keychain' : 'the credentials file'}); scanning it again\n`);
      }
      const again = await scanAgain(target, { [url.href]: bearer(token) });
      if ('report' in again) reports[index] = again.report;
      else {
        reports.splice(index, 1);
        errors.push(again.failure);
      }
    }
    return { ...run, reports, errors };
  }
}

function bearer(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}

/**
 * The http(s) endpoints among the inputs, then the url servers of the configs among them that send no credentials of
 * their own (those sign in their own way). An input that does not parse is left to the scan, which reports it.
 */
async function endpointsOf(inputs: readonly string[]): Promise<Endpoint[]> {
  const endpoints: Endpoint[] = [];
  for (const input of inputs) {
    let targets: ScanTarget[];
    try {
      targets = await expandTarget(parseTarget(input));
    } catch {
      continue;
    }
    for (const target of targets) {
      if (target.kind !== 'remote' || !/^https?:\/\//i.test(target.url) || !URL.canParse(target.url)) continue;
      if (target.origin && hasCredentials(target.headers ?? {})) continue;
      endpoints.push({ url: new URL(target.url), target });
    }
  }
  return endpoints;
}

/** Whether a report is the one of this target: a command-line endpoint by its input, a config's server by its entry. */
function sameTarget(reported: ScanReport['target'], target: Endpoint['target']): boolean {
  if (!target.origin) return reported.input === target.input && !reported.origin;
  return reported.origin?.configPath === target.origin.configPath && reported.origin.serverName === target.origin.serverName;
}
