import type { ArchiveLimits } from '../archive.js';
import type { RemoteLimits } from '../remote/fetch.js';

/** How sources fetch: which registries, where temp dirs go, limits. Every field is optional. */
export interface SourceOptions {
  /** npm registry base URL; default: the user's npm config (`npm_config_registry`, `.npmrc`), then registry.npmjs.org. */
  npmRegistry?: string;
  /** PyPI base URL serving `/pypi/<name>/json`; default: `SVC_PYPI_INDEX`, one derived from `PIP_INDEX_URL`, then pypi.org. */
  pypiIndex?: string;
  /** Parent of the `svc-scan-*` temp dirs; default os.tmpdir(). */
  tempRoot?: string;
  signal?: AbortSignal;
  limits?: Partial<ArchiveLimits>;
  /** Keeps downloaded package archives here, keyed by their integrity, so repeated scans do not download again. */
  cacheDir?: string;
  /** Where `.npmrc` lookup starts (the project config); default process.cwd(). */
  cwd?: string;
  /** What git may connect to; the CLI leaves it open (the user's own machine), the daemon restricts it. */
  git?: GitNetworkPolicy;
  /** How live scans of remote MCP endpoints connect (scan/remote/). */
  remote?: RemoteOptions;
}

/** Plain data, so it crosses into the scan worker threads. */
export interface RemoteOptions {
  /** Headers for endpoints named on the command line (`--header`, `--bearer-token-env`); never sent to a config's servers. */
  headers?: Record<string, string>;
  /**
   * Headers for one endpoint, keyed by its URL's href: the CLI's OAuth tokens, each sent only to the endpoint it was
   * issued for, whether named on the command line (added to `headers`) or as a config's url server that sends no
   * credentials of its own. Plain data like the rest, so it crosses to the workers.
   */
  endpointHeaders?: Record<string, Record<string, string>>;
  /**
   * The user's environment: where a config's `${env:VAR}` / `${VAR}` header references are read, and its
   * `HTTP(S)_PROXY` / `NO_PROXY` when private addresses are allowed. Without it (the daemon) references are refused
   * and endpoints are reached directly.
   */
  env?: Record<string, string | undefined>;
  /** false (the daemon, unless SVC_REMOTE_ALLOW_PRIVATE=1): loopback, private and link-local addresses are refused. */
  allowPrivate?: boolean;
  limits?: Partial<RemoteLimits>;
}

/**
 * Limits on a clone's network use, for a service that clones URLs other people give it: the transports git may use
 * (`GIT_ALLOW_PROTOCOL`, submodules and redirects included) and the one address the repository's host may resolve to
 * (`http.curloptResolve`), checked by the caller before the clone, so DNS cannot answer differently at clone time.
 */
export interface GitNetworkPolicy {
  protocols: readonly string[];
  pin?: { host: string; port: number; address: string };
}
