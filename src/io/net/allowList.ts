/**
 * NETWORK_ALLOW_HOSTS: the operator's list of internal hosts tools may reach although their
 * addresses are private, loopback... Comma-separated entries:
 *
 * - a host name (`db.internal`), or every subdomain of one (`*.corp.example` or `.corp.example`);
 * - an IP (`10.1.2.3`, `::1`, `[fd00::5]`) or a CIDR range (`10.0.0.0/8`, `fd00::/8`);
 * - any of the above but a range with `:port` (`127.0.0.1:5432`, `db.internal:3306`,
 *   `[::1]:8080`) to allow that port only.
 *
 * A host allowed by name is trusted whatever it resolves to; otherwise each address the host
 * resolves to must be public or inside an allowed IP/range.
 */
import { AppError } from '../../errors';
import { embeddedIpv4, inCidr, parseCidr, parseIp, type ParsedIp } from './ip';

export type AllowEntry =
  | { kind: 'name'; name: string; port: number | null }
  | { kind: 'suffix'; suffix: string; port: number | null }
  | { kind: 'cidr'; net: ParsedIp; prefix: number; port: number | null };

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*$/;

/** Lower case, no trailing dot, no IPv6 brackets: how host names are compared. */
export function normalizeHostName(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[(.*)\]$/, '$1');
}

function parsePort(text: string, entry: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 1 && port <= 65535)) throw bad(entry, `"${text}" is not a port`);
  return port;
}

function bad(entry: string, why: string): AppError {
  return new AppError(
    'TOOL_BAD_REQUEST',
    `NETWORK_ALLOW_HOSTS: entry "${entry}" is not usable: ${why} (expected a host name, IP or CIDR, optionally with :port)`,
  );
}

function parseEntry(raw: string): AllowEntry {
  let text = raw.trim().toLowerCase();
  let port: number | null = null;
  const bracketed = /^\[([^\]]+)\](?::(.+))?$/.exec(text);
  if (bracketed) {
    text = bracketed[1]!;
    if (bracketed[2] !== undefined) port = parsePort(bracketed[2], raw);
  } else if (!text.includes('/') && (text.match(/:/g) ?? []).length === 1) {
    const at = text.lastIndexOf(':');
    port = parsePort(text.slice(at + 1), raw);
    text = text.slice(0, at);
  }
  if (text.includes('/') || parseIp(text)) {
    const cidr = parseCidr(text);
    if (!cidr) throw bad(raw, 'not a valid IP range');
    return { kind: 'cidr', ...cidr, port };
  }
  const wildcard = /^(\*\.|\.)(.+)$/.exec(text);
  const name = normalizeHostName(wildcard ? wildcard[2]! : text);
  if (!HOST_NAME.test(name)) throw bad(raw, 'not a host name');
  return wildcard ? { kind: 'suffix', suffix: name, port } : { kind: 'name', name, port };
}

const cache = new Map<string, AllowEntry[]>();

/** The parsed list (cached per text); throws TOOL_BAD_REQUEST naming a malformed entry. */
export function parseAllowList(text: string | undefined): AllowEntry[] {
  const key = text ?? '';
  const hit = cache.get(key);
  if (hit) return hit;
  const entries = key
    .split(',')
    .filter((e) => e.trim() !== '')
    .map(parseEntry);
  if (cache.size > 50) cache.clear();
  cache.set(key, entries);
  return entries;
}

const portMatches = (entry: AllowEntry, port: number) => entry.port === null || entry.port === port;

/** Whether a host name (not an IP literal) is allowed by name on `port`. */
export function allowsName(entries: AllowEntry[], host: string, port: number): boolean {
  const name = normalizeHostName(host);
  return entries.some(
    (e) => portMatches(e, port) && ((e.kind === 'name' && e.name === name) || (e.kind === 'suffix' && (name === e.suffix || name.endsWith(`.${e.suffix}`)))),
  );
}

/** Whether an address is allowed on `port` (an IPv4-mapped IPv6 address also by its IPv4 form). */
export function allowsAddress(entries: AllowEntry[], ip: ParsedIp, port: number): boolean {
  const embedded = embeddedIpv4(ip);
  const forms = embedded ? [ip, embedded.v4] : [ip];
  return entries.some((e) => e.kind === 'cidr' && portMatches(e, port) && forms.some((f) => inCidr(f, e.net, e.prefix)));
}
