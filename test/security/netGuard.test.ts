/**
 * The network guard's pure parts: address classification (including IPv6 forms that embed an
 * IPv4 address and odd IPv4 notations), the NETWORK_ALLOW_HOSTS list, and host checks with a
 * fake resolver (no DNS, no sockets).
 */
import { describe, expect, it } from 'vitest';
import { allowsAddress, allowsName, parseAllowList } from '../../src/io/net/allowList';
import { assertHostAllowed, assertUrlAllowed, canonicalHost, pinnedLookup, type Resolver } from '../../src/io/net/guard';
import { blockedReason, parseIp } from '../../src/io/net/ip';
import { AppError } from '../../src/errors';

const reason = (ip: string) => blockedReason(parseIp(ip)!);

describe('address classification', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.0.9', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['10.0.0.1', 'a private address'],
    ['172.16.5.4', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['fc00::1', 'a private (unique local) address'],
    ['fd12:3456::1', 'a private (unique local) address'],
    ['169.254.169.254', 'the cloud metadata address'],
    ['fd00:ec2::254', 'the cloud metadata address'],
    ['169.254.1.1', 'a link-local address'],
    ['fe80::1', 'a link-local address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['0.0.0.0', 'an unspecified ("this network") address'],
    ['::', 'an unspecified address'],
    ['100.64.0.1', 'a shared (carrier-grade NAT) address'],
    ['100.127.255.254', 'a shared (carrier-grade NAT) address'],
    ['224.0.0.1', 'a multicast address'],
    ['ff02::1', 'a multicast address'],
    ['255.255.255.255', 'the broadcast address'],
    ['::ffff:127.0.0.1', 'an IPv4-mapped form of 127.0.0.1, a loopback address'],
    ['::ffff:7f00:1', 'an IPv4-mapped form of 127.0.0.1, a loopback address'],
    ['::ffff:169.254.169.254', 'an IPv4-mapped form of 169.254.169.254, the cloud metadata address'],
    ['::127.0.0.1', 'an IPv4-compatible form of 127.0.0.1, a loopback address'],
    ['64:ff9b::10.0.0.1', 'a NAT64 form of 10.0.0.1, a private address'],
    ['2002:c0a8:101::', 'a 6to4 form of 192.168.1.1, a private address'],
  ])('%s is %s', (ip, why) => {
    expect(reason(ip)).toBe(why);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '169.253.255.255', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])(
    '%s is public',
    (ip) => {
      expect(reason(ip)).toBeNull();
    },
  );

  it('reads odd IPv4 notations the way URL parsers and getaddrinfo do', () => {
    for (const odd of ['2130706433', '0177.0.0.1', '0x7f.1', '0x7f000001', '127.1', '017700000001']) expect(canonicalHost(odd, 'T')).toBe('127.0.0.1');
    expect(canonicalHost('[::FFFF:127.0.0.1]', 'T')).toBe('::ffff:7f00:1');
    expect(canonicalHost('Example.COM.', 'T')).toBe('example.com');
    for (const bad of ['a/b', 'user@host', 'a b', 'host:5432', '']) expect(() => canonicalHost(bad, 'T')).toThrow(/not a valid host name/);
  });
});

describe('NETWORK_ALLOW_HOSTS', () => {
  const entries = parseAllowList('db.internal, *.corp.example, 10.0.0.0/8, 127.0.0.1:5432, [::1]:8080, fd00::/8, cache.local:6379');

  it('allows names, subdomains, ranges and single ports', () => {
    expect(allowsName(entries, 'DB.internal.', 1)).toBe(true);
    expect(allowsName(entries, 'a.b.corp.example', 443)).toBe(true);
    expect(allowsName(entries, 'corp.example', 443)).toBe(true);
    expect(allowsName(entries, 'evilcorp.example', 443)).toBe(false);
    expect(allowsName(entries, 'cache.local', 6379)).toBe(true);
    expect(allowsName(entries, 'cache.local', 6380)).toBe(false);
    expect(allowsAddress(entries, parseIp('10.9.8.7')!, 1)).toBe(true);
    expect(allowsAddress(entries, parseIp('::ffff:10.9.8.7')!, 1)).toBe(true);
    expect(allowsAddress(entries, parseIp('127.0.0.1')!, 5432)).toBe(true);
    expect(allowsAddress(entries, parseIp('127.0.0.1')!, 5433)).toBe(false);
    expect(allowsAddress(entries, parseIp('::1')!, 8080)).toBe(true);
    expect(allowsAddress(entries, parseIp('::1')!, 80)).toBe(false);
    expect(allowsAddress(entries, parseIp('fd00::7')!, 80)).toBe(true);
    expect(allowsAddress(entries, parseIp('192.168.0.1')!, 80)).toBe(false);
  });

  it('names a malformed entry', () => {
    expect(() => parseAllowList('10.0.0.0/33')).toThrow(/entry "10.0.0.0\/33" is not usable/);
    expect(() => parseAllowList('db.internal:99999')).toThrow(/"99999" is not a port/);
    expect(() => parseAllowList('bad host')).toThrow(/not a host name/);
    expect(parseAllowList('')).toEqual([]);
  });
});

describe('host checks', () => {
  const dns: Record<string, string[]> = {
    'evil.example': ['127.0.0.1'],
    'mixed.example': ['93.184.216.34', '10.0.0.8'],
    'public.example': ['93.184.216.34', '2606:2800:220:1::1'],
    'db.internal': ['10.1.2.3'],
  };
  const resolver: Resolver = async (host) => {
    const found = dns[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const ctx = (allow = '') => ({ env: { NETWORK_ALLOW_HOSTS: allow }, service: 'Invoke', resolver });

  it('refuses a name that resolves to a private address without saying what it resolves to', async () => {
    const refusal = await assertHostAllowed('evil.example', 80, ctx()).catch((err: unknown) => err as Error);
    expect(refusal).toBeInstanceOf(Error);
    expect((refusal as Error).message).toBe('Invoke: host evil.example is not allowed; blocked (allow it with NETWORK_ALLOW_HOSTS)');
    expect((refusal as Error).message).not.toMatch(/127\.0\.0\.1|loopback/);
    // One bad address among good ones is enough: the connection could use any of them.
    const mixed = await assertHostAllowed('mixed.example', 443, ctx()).catch((err: unknown) => err as Error);
    expect((mixed as Error).message).toBe('Invoke: host mixed.example is not allowed; blocked (allow it with NETWORK_ALLOW_HOSTS)');
    expect((mixed as Error).message).not.toMatch(/10\.0\.0\.8|private/);
  });

  it('pins the checked addresses for the connection', async () => {
    const pinned = await assertHostAllowed('public.example', 443, ctx());
    expect(pinned.addresses.map((a) => a.address)).toEqual(['93.184.216.34', '2606:2800:220:1::1']);
    const lookup = pinnedLookup(pinned);
    const one = await new Promise((resolve) => lookup('public.example', { family: 6 }, (_e, address, family) => resolve({ address, family })));
    expect(one).toEqual({ address: '2606:2800:220:1::1', family: 6 });
    const all = await new Promise((resolve) => lookup('rebound.example', { all: true }, (_e, list) => resolve(list)));
    expect(all).toEqual(pinned.addresses);
  });

  it('lets NETWORK_ALLOW_HOSTS through, by name or address', async () => {
    await expect(assertHostAllowed('db.internal', 5432, ctx())).rejects.toThrow('Invoke: host db.internal is not allowed');
    await expect(assertHostAllowed('db.internal', 5432, ctx('db.internal'))).resolves.toMatchObject({ host: 'db.internal' });
    await expect(assertHostAllowed('db.internal', 5432, ctx('10.1.0.0/16'))).resolves.toMatchObject({ port: 5432 });
    await expect(assertHostAllowed('127.0.0.1', 5432, ctx('127.0.0.1:5432'))).resolves.toBeTruthy();
    await expect(assertHostAllowed('127.0.0.1', 5433, ctx('127.0.0.1:5432'))).rejects.toThrow(/127\.0\.0\.1 is a loopback address/);
  });

  it('reports unknown hosts and bad URLs as bad requests', async () => {
    const err = await assertHostAllowed('nowhere.example', 80, ctx()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('TOOL_BAD_REQUEST');
    expect((err as AppError).message).toMatch(/nowhere\.example does not resolve/);
    await expect(assertUrlAllowed('gopher://example.com/', ctx())).rejects.toThrow(/uses the gopher: scheme; only http and https are allowed/);
    await expect(assertUrlAllowed('http://', ctx())).rejects.toThrow(/is not a valid URL/);
    await expect(assertUrlAllowed('http://[::ffff:127.0.0.1]:8080/', ctx())).rejects.toThrow(
      'Invoke: ::ffff:7f00:1 is an IPv4-mapped form of 127.0.0.1, a loopback address; blocked',
    );
  });
});
