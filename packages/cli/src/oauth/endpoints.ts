import { hasCredentials, requiresOAuthSignIn, visibleLine } from '@svc/core';
import type { ScanRun } from '@svc/core';
import { openCredentialStore, type CredentialStore } from '../credentials/store.js';
import type { CommandIo } from '../terminal.js';
import { isFresh, loadTokens, refreshTokens, signIn, type OAuthContext } from './flow.js';
import { SignInError } from './loopback.js';

// OAuth for the remote endpoints named on `svc scan`'s command line, around the scan rather than inside it.
//
// Why around: several targets are scanned on worker threads (core's target-pool.ts), and what crosses to a worker is
// plain data, never an object with functions such as an OAuth provider; a browser and a keychain have no place in
// core either. So the CLI, on the main thread, (1) before the scan turns stored tokens into a bearer header for their
// own endpoint only (core's `endpointHeaders`), refreshing expired ones; (2) after the scan, for each endpoint whose
// report says it requires OAuth sign-in (none stored, or the stored one refused), signs in in the browser when the
// session is interactive, and scans that endpoint once more with the new token.
//
// Endpoints in a client config are not signed in to: a config's server carries its own headers (remote/scan.ts).

export type ScanAgain = (input: string, endpointHeaders: Record<string, Record<string, string>>) => Promise<ScanRun>;

export class EndpointOAuth {
  private constructor(
    private readonly endpoints: Map<string, URL>,
    private readonly context: OAuthContext & { store: CredentialStore },
    /** Whether a browser may be opened: `--oauth`, or a terminal on stdin and stderr unless `--no-oauth`. */
    readonly interactive: boolean,
  ) {}

  /**
   * Undefined when OAuth does not apply: `--no-oauth`, credentials given on the command line (they win), or no
   * http(s) endpoint among the inputs. Opens the credential store otherwise.
   */
  static async open(inputs: readonly string[], headers: Record<string, string>, oauth: boolean | undefined, io: CommandIo): Promise<EndpointOAuth | undefined> {
    if (oauth === true && hasCredentials(headers)) throw new Error('--oauth cannot be combined with credentials given by --header or --bearer-token-env');
    if (oauth === false || hasCredentials(headers)) return undefined;
    const endpoints = new Map(inputs.filter((input) => /^https?:\/\//i.test(input) && URL.canParse(input)).map((input) => [input, new URL(input)]));
    if (endpoints.size === 0) return undefined;
    const store = await openCredentialStore(io);
    const interactive = oauth === true || (io.stdin?.isTTY === true && io.stderr.isTTY === true);
    return new EndpointOAuth(endpoints, { io, store, ...(io.openBrowser ? { openBrowser: io.openBrowser } : {}) }, interactive);
  }

  /** `Authorization` headers from the stored tokens, per endpoint href; expired tokens are refreshed first. */
  async storedHeaders(): Promise<Record<string, Record<string, string>>> {
    const out: Record<string, Record<string, string>> = {};
    for (const endpoint of this.endpoints.values()) {
      let stored = await loadTokens(this.context.store, endpoint);
      if (stored && !isFresh(stored, this.context.io.clock())) stored = await refreshTokens(endpoint, stored, this.context);
      if (stored) out[endpoint.href] = bearer(stored.tokens.access_token);
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
    for (const [input, endpoint] of this.endpoints) {
      const index = reports.findIndex((report) => report.target.input === input && !report.target.origin && requiresOAuthSignIn(report));
      if (index < 0) continue;
      let token: string;
      try {
        token = (await signIn(endpoint, this.context)).tokens.access_token;
      } catch (error) {
        if (this.context.io.signal.aborted) break;
        const reason = error instanceof SignInError ? error.message : String(error);
        this.context.io.stderr.write(`svc: OAuth sign-in to ${endpoint.href} failed: ${visibleLine(reason)}; nothing was stored\n`);
        continue;
      }
      this.context.io.stderr.write(`svc: signed in to ${endpoint.href} (tokens kept in ${this.context.store.kind === 'keychain' ? 'the OS keychain' : 'the credentials file'}); scanning it again\n`);
      const again = await scanAgain(input, { [endpoint.href]: bearer(token) });
      if (again.reports[0]) reports[index] = again.reports[0];
      else {
        reports.splice(index, 1);
        errors.push(...again.errors);
      }
    }
    return { ...run, reports, errors };
  }
}

function bearer(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}
