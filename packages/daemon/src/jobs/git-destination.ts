// Where the daemon's git may connect (issue: SSRF through git URLs). A caller of the service names a repository URL;
// without a check, `git+http://127.0.0.1:8080/admin/delete?x#` makes the daemon send a GET of the caller's choosing to
// its own network, and git's error text tells open ports apart. The daemon therefore clones only over allowed
// transports (https by default), only from hosts whose every address is public (unless the operator allows private
// ones or names the host), and pins the clone to the address it checked, so DNS cannot answer differently at clone time.

import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPublicAddress, type GitNetworkPolicy } from '@svc/core';

export interface GitPolicy {
  /** SVC_GIT_PROTOCOLS: the transports a clone may use; default `https` only (`ssh`, `git`, `http` when configured). */
  protocols: readonly string[];
  /** SVC_GIT_ALLOW_PRIVATE=1: loopback, private, link-local, unique-local and shared addresses are allowed too. */
  allowPrivate: boolean;
  /** SVC_GIT_HOSTS: host names allowed whatever they resolve to (an internal Git server). */
  hosts: readonly string[];
}

export const DEFAULT_GIT_POLICY: GitPolicy = { protocols: ['https'], allowPrivate: false, hosts: [] };
export const GIT_PROTOCOLS = ['https', 'ssh', 'git', 'http'] as const;

/** What the caller is told when a clone fails: git's own message would map the daemon's network. Details go to the log. */
export const GIT_FETCH_FAILED = 'could not fetch the git repository (the operator log has the details)';

type Lookup = (host: string) => Promise<Array<{ address: string }>>;
const systemLookup: Lookup = (host) => dnsLookup(host, { all: true, verbatim: true });

interface Destination {
  protocol: string;
  host: string;
  port: number;
}

const DEFAULT_PORTS: Record<string, number> = { https: 443, http: 80, ssh: 22, git: 9418 };

/**
 * The host as the system resolver will read it. The URL parser normalises numeric IPv4 spellings (`2130706433`,
 * `0x7f000001`, `0177.0.0.1`) only for http(s); in `ssh://`, `git://` and scp-like URLs it leaves them as written, yet
 * ssh and git resolve them to 127.0.0.1 all the same. Reading the host as an http URL's gives the address they reach.
 */
function asResolverReads(host: string): string {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(bare)) return bare;
  try {
    return new URL(`http://${host}/`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return bare;
  }
}

/** The transport, host and port of a git URL (URL form or scp-like `user@host:path`); undefined for anything else. */
function destinationOf(url: string): Destination | { problem: string } | undefined {
  const scp = /^([^@/:]+)@([^/:]+):(?!\/\/)/.exec(url);
  if (scp) return { protocol: 'ssh', host: asResolverReads(scp[2]!), port: 22 };
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  const protocol = parsed.protocol.replace(/:$/, '').replace(/^git\+/, '');
  if (protocol === 'file') return undefined;
  // A credential in a scan input would be stored with the scan and sent to whatever host it names (ssh's `git@` is a
  // login name, not a secret).
  if (parsed.password || (parsed.username && protocol !== 'ssh')) return { problem: 'git URLs with a user name or password are not accepted; configure credentials on the daemon' };
  const host = asResolverReads(parsed.hostname);
  return { protocol, host, port: parsed.port ? Number(parsed.port) : (DEFAULT_PORTS[protocol] ?? 0) };
}

// Public unicast only; core's live scans of remote endpoints use the same check (scan/sources/addresses.ts).
const isPublic = isPublicAddress;

/**
 * The checks that need no network, for the submit route: the transport, a credential in the URL, a literal address
 * (`127.0.0.1`, `[::1]`, `2130706433` once the URL parser has read it). Undefined when the URL may go on to the worker.
 */
export function gitUrlProblem(url: string, policy: GitPolicy): string | undefined {
  const destination = destinationOf(url);
  if (destination === undefined) return undefined;
  if ('problem' in destination) return destination.problem;
  if (!policy.protocols.includes(destination.protocol)) {
    return `git over ${destination.protocol} is not allowed by this daemon (allowed: ${policy.protocols.join(', ')}; the operator sets SVC_GIT_PROTOCOLS)`;
  }
  if (isIP(destination.host) && !policy.allowPrivate && !policy.hosts.includes(destination.host) && !isPublic(destination.host)) return NOT_PUBLIC;
  return undefined;
}

const NOT_PUBLIC = 'git repositories must be on a public address (the operator allows others with SVC_GIT_ALLOW_PRIVATE or SVC_GIT_HOSTS)';

export type GitDestinationCheck = { ok: true; git: GitNetworkPolicy } | { ok: false; message: string };

/**
 * Resolves the repository's host once, refuses it unless every address is allowed, and returns the policy core's git
 * source applies: the allowed transports and the address the clone is pinned to. `file://` URLs (checked against the
 * scan roots elsewhere) get the `file` transport only.
 */
export async function checkGitDestination(url: string, policy: GitPolicy, lookup: Lookup = systemLookup): Promise<GitDestinationCheck> {
  const destination = destinationOf(url);
  if (destination === undefined) return { ok: true, git: { protocols: ['file'] } };
  const problem = gitUrlProblem(url, policy);
  if (problem !== undefined || 'problem' in destination) return { ok: false, message: problem ?? 'not a git URL the daemon takes' };
  const protocols = [destination.protocol];
  // ssh and git:// do not go through curl, so they cannot be pinned: only an operator who enabled them takes that on.
  if (destination.protocol !== 'https' && destination.protocol !== 'http') return { ok: true, git: { protocols } };
  let addresses: string[];
  try {
    addresses = isIP(destination.host) ? [destination.host] : (await lookup(destination.host)).map((entry) => entry.address);
  } catch {
    return { ok: false, message: GIT_FETCH_FAILED };
  }
  const trusted = policy.allowPrivate || policy.hosts.includes(destination.host);
  if (addresses.length === 0 || (!trusted && !addresses.every(isPublic))) return { ok: false, message: NOT_PUBLIC };
  return { ok: true, git: { protocols, pin: { host: destination.host, port: destination.port, address: addresses[0]! } } };
}

/** SVC_GIT_PROTOCOLS, SVC_GIT_ALLOW_PRIVATE and SVC_GIT_HOSTS; a wrong value is the operator's to fix, named in the error. */
export function parseGitPolicy(env: Record<string, string | undefined>): GitPolicy | { error: string } {
  const list = (value: string | undefined) => (value ?? '').split(',').map((item) => item.trim().toLowerCase()).filter(Boolean);
  const protocols = env['SVC_GIT_PROTOCOLS'] === undefined ? [...DEFAULT_GIT_POLICY.protocols] : list(env['SVC_GIT_PROTOCOLS']);
  const unknown = protocols.filter((protocol) => !(GIT_PROTOCOLS as readonly string[]).includes(protocol));
  if (unknown.length > 0 || protocols.length === 0) {
    return { error: `SVC_GIT_PROTOCOLS must list some of ${GIT_PROTOCOLS.join(', ')}, got "${env['SVC_GIT_PROTOCOLS'] ?? ''}"` };
  }
  const allow = (env['SVC_GIT_ALLOW_PRIVATE'] ?? '').trim();
  if (allow !== '' && allow !== '0' && allow !== '1') return { error: `SVC_GIT_ALLOW_PRIVATE must be 0 or 1, got "${allow}"` };
  return { protocols, allowPrivate: allow === '1', hosts: list(env['SVC_GIT_HOSTS']) };
}
