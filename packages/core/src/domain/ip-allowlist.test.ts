import { describe, expect, it } from 'vitest';
import { ServiceError } from './errors.js';
import { clientIp, isAllowed, normalizeCidr, parseAllowlist, parseTrustedProxies, slash24 } from './ip-allowlist.js';

describe('normalizeCidr', () => {
  it.each([
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['1.2.3.4', '1.2.3.4/32'],
    [' 192.168.1.0/24 ', '192.168.1.0/24'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['1.2.3.4/32', '1.2.3.4/32'],
    ['::/0', '::/0'],
    ['2001:0DB8:0000::/32', '2001:db8::/32'],
    ['2001:db8::1', '2001:db8::1/128'],
    ['::ffff:1.2.3.4', '1.2.3.4/32'],
    ['::1.2.3.4', '::102:304/128'],
    ['::ffff:10.0.0.0/104', '10.0.0.0/8'],
  ])('%j becomes %s', (entry, cidr) => {
    expect(normalizeCidr(entry)).toEqual({ ok: true, cidr });
  });

  it.each([
    ['10.0.0.0/33', 'prefix'],
    ['2001:db8::/129', 'prefix'],
    ['10.0.0.0/-1', 'prefix'],
    ['10.0.0.0/', 'prefix'],
    ['10.0.0.0/8/8', 'prefix'],
    ['10.0.0.0/08a', 'prefix'],
    ['1.2.3.4/24', 'did you mean 1.2.3.0/24'],
    ['2001:db8::1/32', 'did you mean 2001:db8::/32'],
    ['127.1', 'not an IPv4'],
    ['0x7f.0.0.1', 'not an IPv4'],
    ['010.0.0.1', 'not an IPv4'],
    ['256.1.1.1', 'not an IPv4'],
    ['fe80::1%eth0', 'not an IPv4'],
    ['example.com', 'not an IPv4'],
    ['', 'not an IPv4'],
  ])('refuses %j (%s)', (entry, reason) => {
    const result = normalizeCidr(entry);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(reason);
  });
});

describe('parseAllowlist', () => {
  it('normalises and de-duplicates entries', () => {
    expect(parseAllowlist(['10.0.0.0/8', '1.2.3.4', '1.2.3.4/32', '::ffff:1.2.3.4'])).toEqual(['10.0.0.0/8', '1.2.3.4/32']);
    expect(parseAllowlist(undefined)).toEqual([]);
    expect(parseAllowlist([])).toEqual([]);
  });

  it('accepts 20 entries and refuses 21', () => {
    const twenty = Array.from({ length: 20 }, (_, i) => `10.0.${i}.0/24`);
    expect(parseAllowlist(twenty)).toHaveLength(20);
    expect(() => parseAllowlist([...twenty, '10.1.0.0/16'])).toThrow(/at most 20/);
  });

  it.each([
    [['10.0.0.0/8', '10.0.0.0/33'], 1, '10.0.0.0/33'],
    [['1.2.3.4/24'], 0, '1.2.3.4/24'],
    [[42], 0, 42],
  ])('names the bad entry of %j', (entries, index, entry) => {
    let thrown: unknown;
    try {
      parseAllowlist(entries);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ServiceError);
    expect((thrown as ServiceError).code).toBe('INVALID_FIELD');
    expect((thrown as ServiceError).details).toEqual({ field: 'ip_allowlist', index, entry });
  });

  it('refuses a list that is not an array', () => {
    expect(() => parseAllowlist('10.0.0.0/8')).toThrow(ServiceError);
  });
});

describe('isAllowed', () => {
  const list = parseAllowlist(['10.0.0.0/8', '203.0.113.7', '2001:db8::/32', '::/0']);

  it.each([
    [[], '198.51.100.1', true],
    [[], '2001:db8::1', true],
    [list, '10.1.2.3', true],
    [list, '203.0.113.7', true],
    [list, '203.0.113.8', false],
    [list, '11.0.0.1', false],
    [list, '::ffff:10.9.9.9', true],
    [list, '::ffff:11.0.0.1', false],
    // IPv4-compatible (deprecated), not IPv4-mapped: an IPv6 address, which an IPv4 entry never lets in.
    [list, '::10.1.2.3', false],
    [['127.0.0.1/32'], '::127.0.0.1', false],
    [['127.0.0.1/32'], '0:0:0:0:0:ffff:127.0.0.1', true],
    [list, '2001:db8::1', false],
    [list, '::1', false],
    [list, 'not-an-ip', false],
    [list, '', false],
    [list, '127.1', false],
    [['0.0.0.0/0'], '8.8.8.8', true],
    [['0.0.0.0/0'], '2606:4700::1111', false],
    [['garbage', '10.0.0.0/8'], '10.0.0.1', true],
    [['garbage'], '10.0.0.1', false],
  ])('%j lets %j in: %s', (allowlist, source, allowed) => {
    expect(isAllowed(allowlist, source)).toBe(allowed);
  });
});

describe('slash24', () => {
  it.each([
    ['203.0.113.77', '203.0.113.0/24'],
    ['::ffff:203.0.113.77', '203.0.113.0/24'],
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['nope', undefined],
  ])('%s is in %s', (ip, prefix) => {
    expect(slash24(ip)).toBe(prefix);
  });

  it('puts neighbours in one location and others in another', () => {
    expect(slash24('198.51.100.1')).toBe(slash24('198.51.100.254'));
    expect(slash24('198.51.100.1')).not.toBe(slash24('198.51.101.1'));
  });
});

describe('clientIp', () => {
  const proxies = parseTrustedProxies('10.0.0.0/8, 127.0.0.1 ::1');

  it.each([
    // socket peer, X-Forwarded-For, trusted proxies, client
    ['198.51.100.9', '1.2.3.4', proxies, '198.51.100.9'],
    ['198.51.100.9', undefined, proxies, '198.51.100.9'],
    ['::ffff:198.51.100.9', undefined, [], '198.51.100.9'],
    ['10.0.0.5', '1.2.3.4', [], '10.0.0.5'],
    ['10.0.0.5', undefined, proxies, '10.0.0.5'],
    ['10.0.0.5', '   ', proxies, '10.0.0.5'],
    ['10.0.0.5', '203.0.113.50', proxies, '203.0.113.50'],
    ['::ffff:10.0.0.5', '203.0.113.50', proxies, '203.0.113.50'],
    ['::1', '203.0.113.50', proxies, '203.0.113.50'],
    // a client-forged left part is ignored: the rightmost untrusted hop is the client
    ['10.0.0.5', '6.6.6.6, 203.0.113.50', proxies, '203.0.113.50'],
    ['10.0.0.5', '6.6.6.6, 203.0.113.50, 10.0.0.7', proxies, '203.0.113.50'],
    ['10.0.0.5', ['6.6.6.6', '203.0.113.50, 10.0.0.7'], proxies, '203.0.113.50'],
    ['10.0.0.5', '10.0.0.9, 10.0.0.7', proxies, '10.0.0.9'],
    ['10.0.0.5', '203.0.113.50:51234', proxies, '203.0.113.50'],
    ['10.0.0.5', '[2001:db8::5]:443', proxies, '2001:db8::5'],
    ['10.0.0.5', '2001:DB8:0::5', proxies, '2001:db8::5'],
    ['10.0.0.5', '::ffff:203.0.113.50', proxies, '203.0.113.50'],
    ['10.0.0.5', '::10.1.2.3', proxies, '::a01:203'],
    // garbage stops the walk at the last hop a trusted proxy vouched for
    ['10.0.0.5', 'garbage', proxies, '10.0.0.5'],
    ['10.0.0.5', '203.0.113.50, unknown, 10.0.0.7', proxies, '10.0.0.7'],
  ] as const)('peer %s, XFF %j, trusted %j: %s', (peer, xff, trusted, client) => {
    expect(clientIp(peer, xff, trusted)).toBe(client);
  });

  it('reads SVC_TRUSTED_PROXIES and refuses a bad entry', () => {
    expect(parseTrustedProxies(undefined)).toEqual([]);
    expect(parseTrustedProxies('')).toEqual([]);
    expect(proxies).toEqual(['10.0.0.0/8', '127.0.0.1/32', '::1/128']);
    expect(() => parseTrustedProxies('10.0.0.0/8,10.0.0.0/40')).toThrow(/SVC_TRUSTED_PROXIES/);
  });
});
