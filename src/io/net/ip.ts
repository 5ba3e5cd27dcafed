/**
 * IP addresses as bytes, and which of them a tool may not reach: loopback, private, link-local
 * (cloud metadata), unspecified, shared (CGNAT), multicast, broadcast and reserved ranges, and
 * IPv6 forms that embed an IPv4 address (mapped, compatible, NAT64, 6to4), judged by the IPv4
 * address inside. Pure: no DNS, no sockets.
 */
import { isIP } from 'node:net';

export interface ParsedIp {
  family: 4 | 6;
  /** 4 bytes (IPv4) or 16 (IPv6). */
  bytes: number[];
}

/** A dotted or colon IP literal (brackets and an IPv6 zone `%eth0` tolerated), or null. */
export function parseIp(text: string): ParsedIp | null {
  const t = text
    .trim()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/%.*$/, '');
  const family = isIP(t);
  if (family === 4) return { family: 4, bytes: t.split('.').map(Number) };
  if (family !== 6) return null;
  // Expand `::`, and turn a trailing dotted IPv4 (`::ffff:1.2.3.4`) into two groups.
  let s = t.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4) {
    const b = v4[1]!.split('.').map(Number);
    s = s.slice(0, -v4[1]!.length) + `${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`;
  }
  const [head, tail] = s.includes('::') ? s.split('::') : [s, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  const groups = [...headGroups, ...fill, ...tailGroups].map((g) => parseInt(g, 16));
  return { family: 6, bytes: groups.flatMap((g) => [g >> 8, g & 0xff]) };
}

/** The textual form (IPv6 compressed as Node's URL parser writes it). */
export function formatIp(ip: ParsedIp): string {
  if (ip.family === 4) return ip.bytes.join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((ip.bytes[i]! << 8) | ip.bytes[i + 1]!).toString(16));
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1);
}

/** Whether `ip` lies in `net`/`prefix` (same family). */
export function inCidr(ip: ParsedIp, net: ParsedIp, prefix: number): boolean {
  if (ip.family !== net.family) return false;
  for (let bit = 0; bit < prefix; bit += 8) {
    const take = Math.min(8, prefix - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((ip.bytes[bit / 8]! & mask) !== (net.bytes[bit / 8]! & mask)) return false;
  }
  return true;
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), or null. */
export function embeddedIpv4(ip: ParsedIp): { v4: ParsedIp; form: string } | null {
  if (ip.family !== 6) return null;
  const b = ip.bytes;
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const last4 = { family: 4 as const, bytes: b.slice(12, 16) };
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return { v4: last4, form: 'an IPv4-mapped form' };
  // ::a.b.c.d (deprecated "compatible"); `::` and `::1` are IPv6's own and judged as such.
  if (zeros(0, 12) && !(zeros(12, 15) && b[15]! <= 1)) return { v4: last4, form: 'an IPv4-compatible form' };
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return { v4: last4, form: 'a NAT64 form' };
  if (b[0] === 0x20 && b[1] === 0x02) return { v4: { family: 4, bytes: b.slice(2, 6) }, form: 'a 6to4 form' };
  return null;
}

type Range = [cidr: string, reason: string];

const V4_RANGES: Range[] = [
  ['169.254.169.254/32', 'the cloud metadata address'],
  ['0.0.0.0/8', 'an unspecified ("this network") address'],
  ['10.0.0.0/8', 'a private address'],
  ['100.64.0.0/10', 'a shared (carrier-grade NAT) address'],
  ['127.0.0.0/8', 'a loopback address'],
  ['169.254.0.0/16', 'a link-local address'],
  ['172.16.0.0/12', 'a private address'],
  ['192.0.0.0/24', 'a reserved (IETF protocol) address'],
  ['192.0.2.0/24', 'a reserved (documentation) address'],
  ['192.88.99.0/24', 'a reserved (6to4 relay) address'],
  ['192.168.0.0/16', 'a private address'],
  ['198.18.0.0/15', 'a reserved (benchmarking) address'],
  ['198.51.100.0/24', 'a reserved (documentation) address'],
  ['203.0.113.0/24', 'a reserved (documentation) address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['255.255.255.255/32', 'the broadcast address'],
  ['240.0.0.0/4', 'a reserved address'],
];

const V6_RANGES: Range[] = [
  ['::/128', 'an unspecified address'],
  ['::1/128', 'a loopback address'],
  ['fd00:ec2::254/128', 'the cloud metadata address'],
  ['fc00::/7', 'a private (unique local) address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a private (site-local) address'],
  ['ff00::/8', 'a multicast address'],
  ['100::/64', 'a reserved (discard) address'],
  ['2001::/32', 'a reserved (Teredo) address'],
  ['2001:db8::/32', 'a reserved (documentation) address'],
  ['64:ff9b:1::/48', 'a private (local NAT64) address'],
];

/** Parses `addr/len`; throws on a malformed one (only our own tables and the allow-list use it). */
export function parseCidr(text: string): { net: ParsedIp; prefix: number } | null {
  const [addr, len, extra] = text.split('/');
  const net = addr ? parseIp(addr) : null;
  if (!net || extra !== undefined) return null;
  const max = net.family === 4 ? 32 : 128;
  const prefix = len === undefined ? max : /^\d+$/.test(len) ? Number(len) : NaN;
  return Number.isInteger(prefix) && prefix >= 0 && prefix <= max ? { net, prefix } : null;
}

const compile = (ranges: Range[]) => ranges.map(([cidr, reason]) => ({ ...parseCidr(cidr)!, reason }));
const BLOCKED = { 4: compile(V4_RANGES), 6: compile(V6_RANGES) };

/**
 * Why a tool may not connect to `ip` ("a loopback address", "an IPv4-mapped form of 127.0.0.1,
 * a loopback address"), or null when it is a public address.
 */
export function blockedReason(ip: ParsedIp): string | null {
  const embedded = embeddedIpv4(ip);
  if (embedded) {
    const inner = blockedReason(embedded.v4);
    return inner ? `${embedded.form} of ${formatIp(embedded.v4)}, ${inner}` : null;
  }
  const hit = BLOCKED[ip.family].find((r) => inCidr(ip, r.net, r.prefix));
  return hit ? hit.reason : null;
}
