import ipaddr from 'ipaddr.js';

/**
 * Public unicast only: loopback, private, link-local (cloud metadata included), unique-local, shared and multicast
 * addresses are not. Services that connect where their callers say (the daemon's git clones and remote scans) refuse
 * the others unless the operator allows them.
 */
export function isPublicAddress(address: string): boolean {
  try {
    return ipaddr.process(address).range() === 'unicast';
  } catch {
    return false;
  }
}

/** Whether a URL's host is this machine: `localhost` names and loopback addresses. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  try {
    return ipaddr.process(host).range() === 'loopback';
  } catch {
    return false;
  }
}
