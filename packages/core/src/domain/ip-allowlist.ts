// Per-key IP allowlists (spec 5.3), the /24 "new location" prefix (spec 5.1 rule 8) and which address a
// request came from behind trusted proxies.
//
// Decisions (repeated in docs/domain.md):
// - Entries must be written in the plain forms: dotted-quad IPv4 or RFC 4291 IPv6, with an optional /prefix.
//   Shorthands that ipaddr.js would also read (`127.1`, `0x7f.0.0.1`, `010.0.0.1`, which is 8.0.0.1) are
//   refused: a security setting must mean what it looks like. Zone ids (`fe80::1%eth0`) are refused.
// - An entry with host bits set (`1.2.3.4/24`) is refused, not widened to 1.2.3.0/24: it is as likely a typo
//   of `1.2.3.4/32` as a wish for 256 addresses, and silently granting more than asked is the wrong failure.
// - An IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) is the IPv4 address, in entries and in sources. A
//   dual-stack listener (Node on `::`) reports every IPv4 client that way; treating those as IPv6 would
//   reject all IPv4 traffic. Spec 5.3 rule 4 is about native IPv6 clients. The deprecated IPv4-compatible form
//   (`::1.2.3.4`, RFC 4291 2.5.5.1) is not mapped: it is an IPv6 address, so it never passes an IPv4 entry.
// - IPv6 entries are accepted (spec 5.3 rule 1: "validated as an IP network") but never match, because a
//   key with an allowlist rejects every native IPv6 source (spec 5.3 rule 4).

import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
import { invalidField } from './errors.js';

export const MAX_ALLOWLIST_ENTRIES = 20;

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Network = [Address, number];

export type CidrResult = { ok: true; cidr: string } | { ok: false; reason: string };

/**
 * An address or CIDR in canonical form: `a.b.c.d/n` or RFC 5952 IPv6 `x::y/n`; a single address gets /32 or
 * /128; an IPv4-mapped network of /96 or longer becomes the IPv4 network.
 */
export function normalizeCidr(entry: string): CidrResult {
  const text = entry.trim();
  const slash = text.indexOf('/');
  const addressText = slash === -1 ? text : text.slice(0, slash);
  const prefixText = slash === -1 ? undefined : text.slice(slash + 1);
  const parsed = parseLiteral(addressText);
  if (parsed === undefined) return { ok: false, reason: `"${entry}" is not an IPv4 or IPv6 address or CIDR` };

  const bits = parsed.kind() === 'ipv4' ? 32 : 128;
  let prefix = bits;
  if (prefixText !== undefined) {
    if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits) {
      return { ok: false, reason: `"${entry}" has a prefix length outside 0-${bits}` };
    }
    prefix = Number(prefixText);
  }
  let address: Address = parsed;
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() && prefix >= 96) {
    address = (parsed as ipaddr.IPv6).toIPv4Address();
    prefix -= 96;
  }
  const network = networkAddress(address, prefix);
  if (network.toString() !== address.toString()) {
    return {
      ok: false,
      reason: `"${entry}" has host bits set; did you mean ${formatAddress(network)}/${prefix} or a single address?`,
    };
  }
  return { ok: true, cidr: `${formatAddress(address)}/${prefix}` };
}

/**
 * A key's allowlist from a request body: at most 20 entries, each an address or CIDR (see the decisions
 * above). Throws INVALID_FIELD naming the first bad entry. Duplicates after normalisation are dropped.
 * `undefined` means no restriction.
 */
export function parseAllowlist(entries: unknown): string[] {
  if (entries === undefined) return [];
  if (!Array.isArray(entries)) throw invalidField('ip_allowlist', 'ip_allowlist must be an array of CIDR strings.');
  if (entries.length > MAX_ALLOWLIST_ENTRIES) {
    throw invalidField('ip_allowlist', `ip_allowlist may hold at most ${MAX_ALLOWLIST_ENTRIES} entries.`, {
      max: MAX_ALLOWLIST_ENTRIES,
    });
  }
  const normalised = new Set<string>();
  entries.forEach((entry: unknown, index) => {
    const result: CidrResult =
      typeof entry === 'string' ? normalizeCidr(entry) : { ok: false, reason: 'entries must be strings' };
    if (!result.ok) {
      throw invalidField('ip_allowlist', `ip_allowlist entry ${index}: ${result.reason}.`, { index, entry });
    }
    normalised.add(result.cidr);
  });
  return [...normalised];
}

/**
 * Whether a request from `sourceIp` may use a key with this allowlist (entries as parseAllowlist returns
 * them). Empty list: anyone. Otherwise only IPv4 sources inside an entry; native IPv6 sources and
 * unparsable addresses never pass.
 */
export function isAllowed(allowlist: readonly string[], sourceIp: string): boolean {
  if (allowlist.length === 0) return true;
  const source = parseAddress(sourceIp);
  if (source === undefined || source.kind() === 'ipv6') return false;
  return inAnyNetwork(source, parseNetworks(allowlist));
}

/**
 * The "location" of an address for the new-location email (spec 5.1 rule 8): IPv4 (and IPv4-mapped) →
 * `a.b.c.0/24`. IPv6 → its /64, the smallest block a site is normally given, so one client's rotating
 * privacy addresses do not each count as a new location. Undefined for anything unparsable.
 */
export function slash24(ip: string): string | undefined {
  const address = parseAddress(ip);
  if (address === undefined) return undefined;
  const prefix = address.kind() === 'ipv4' ? 24 : 64;
  return `${formatAddress(networkAddress(address, prefix))}/${prefix}`;
}

/**
 * SVC_TRUSTED_PROXIES: CIDRs or addresses separated by commas or whitespace. Throws on a bad entry, so a
 * typo stops the daemon at start instead of silently trusting nobody (or everybody).
 */
export function parseTrustedProxies(value: string | undefined): string[] {
  const entries = (value ?? '').split(/[\s,]+/).filter((entry) => entry !== '');
  return entries.map((entry) => {
    const result = normalizeCidr(entry);
    if (!result.ok) throw new Error(`SVC_TRUSTED_PROXIES: ${result.reason}`);
    return result.cidr;
  });
}

/**
 * The address a request came from. X-Forwarded-For is believed only when the socket peer is a trusted
 * proxy; the chain is then walked right to left (each proxy appends the address it saw), skipping trusted
 * proxies, and the first untrusted address is the client. Entries left of it are whatever the client sent
 * and are ignored. If an entry cannot be parsed, the walk stops at the last hop a trusted proxy vouched for.
 * The result is normalised (IPv4-mapped → IPv4, IPv6 in RFC 5952 form).
 */
export function clientIp(
  socketAddress: string,
  xForwardedFor: string | readonly string[] | undefined,
  trustedProxies: readonly string[],
): string {
  const peer = parseAddress(socketAddress);
  if (peer === undefined) return socketAddress;
  const header = typeof xForwardedFor === 'string' ? xForwardedFor : xForwardedFor?.join(',');
  // Most requests carry no header: the proxy list is parsed only when there is one to judge.
  if (header === undefined || header.trim() === '') return formatAddress(peer);
  const trusted = parseNetworks(trustedProxies);
  if (!inAnyNetwork(peer, trusted)) return formatAddress(peer);

  const hops = header.split(',');
  let current: Address = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parseForwardedHop(hops[i] ?? '');
    if (hop === undefined) break;
    current = hop;
    if (!inAnyNetwork(hop, trusted)) break;
  }
  return formatAddress(current);
}

/** Proxies differ in what they append: `1.2.3.4`, `1.2.3.4:5678`, `[2001:db8::1]` or `[2001:db8::1]:443`. */
function parseForwardedHop(text: string): Address | undefined {
  const hop = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(hop);
  if (bracketed) return parseAddress(bracketed[1] ?? '');
  const ipv4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(hop);
  if (ipv4WithPort) return parseAddress(ipv4WithPort[1] ?? '');
  return parseAddress(hop);
}

/** A strictly written address literal, not unmapped. */
function parseLiteral(text: string): Address | undefined {
  const kind = isIP(text);
  if (text.includes('%') || kind === 0) return undefined;
  try {
    return ipaddr.parse(kind === 6 ? hexTail(text) : text);
  } catch {
    return undefined;
  }
}

/**
 * An IPv6 literal whose last 32 bits are written as a dotted quad, with those bits in hex. ipaddr.js reads every such
 * literal as IPv4-mapped (`::10.1.2.3` would become `::ffff:10.1.2.3`, the IPv4 address 10.1.2.3); only the
 * `::ffff:` form is mapped, and a deprecated IPv4-compatible address (`::10.1.2.3`) is an IPv6 address.
 */
function hexTail(text: string): string {
  const match = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!match) return text;
  const [a, b, c, d] = match.slice(2).map(Number) as [number, number, number, number];
  return `${match[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/** A source address, IPv4-mapped IPv6 turned into IPv4. */
function parseAddress(text: string): Address | undefined {
  const address = parseLiteral(text.trim());
  if (address?.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (address as ipaddr.IPv6).toIPv4Address();
  }
  return address;
}

/** Canonical entries back into networks; anything unparsable is dropped, so a corrupt row matches nothing. */
function parseNetworks(cidrs: readonly string[]): Network[] {
  const networks: Network[] = [];
  for (const cidr of cidrs) {
    const normalised = normalizeCidr(cidr);
    if (normalised.ok) networks.push(ipaddr.parseCIDR(normalised.cidr));
  }
  return networks;
}

function inAnyNetwork(address: Address, networks: readonly Network[]): boolean {
  return networks.some(([network, prefix]) => network.kind() === address.kind() && address.match(network, prefix));
}

function networkAddress(address: Address, prefix: number): Address {
  const bytes = address.toByteArray().map((byte, index) => {
    const keep = Math.min(8, Math.max(0, prefix - index * 8));
    return byte & (0xff << (8 - keep)) & 0xff;
  });
  return ipaddr.fromByteArray(bytes);
}

function formatAddress(address: Address): string {
  return address.kind() === 'ipv6' ? (address as ipaddr.IPv6).toRFC5952String() : address.toString();
}
