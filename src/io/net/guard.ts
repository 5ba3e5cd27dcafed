/**
 * The network guard every outbound connection of a tool goes through (SSRF protection): the
 * host is resolved once, every address it resolves to is checked, and the caller connects to
 * exactly those addresses (see `pinnedLookup`), so a DNS answer that changes between the check
 * and the connection (DNS rebinding) cannot move the connection to an internal address.
 */
import { promises as dns } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { AppError } from '../../errors';
import { allowsAddress, allowsName, normalizeHostName, parseAllowList } from './allowList';
import { blockedReason, formatIp, parseIp } from './ip';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses (injectable so tests can fake DNS). */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export interface GuardContext {
  /** Reads NETWORK_ALLOW_HOSTS. */
  env: Record<string, string | undefined>;
  /** The tool named in error messages ("Invoke", "ExeSQL"). */
  service: string;
  resolver?: Resolver;
}

/** A host checked by the guard, with the addresses a connection may use. */
export interface PinnedHost {
  /** The host as connections should name it (TLS server name, Host header); no brackets. */
  host: string;
  port: number;
  addresses: ResolvedAddress[];
}

const HINT = 'blocked (allow it with NETWORK_ALLOW_HOSTS)';

export const systemResolver: Resolver = async (host) => {
  const found = await dns.lookup(host, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/**
 * The canonical form of a host: IPv4 literals in odd notations (`2130706433`, `0177.0.0.1`,
 * `0x7f.1`) become dotted decimal, as the WHATWG URL parser (and getaddrinfo) read them.
 */
export function canonicalHost(host: string, service: string): string {
  const h = normalizeHostName(host);
  const literal = parseIp(h);
  if (literal) return formatIp(literal);
  // Anything that would make the URL parser read a path, a port or credentials is no host name.
  const invalid = () => new AppError('TOOL_BAD_REQUEST', `${service}: "${host}" is not a valid host name`);
  if (h === '' || /[\s/\\?#@:%[\]]/.test(h)) throw invalid();
  try {
    return normalizeHostName(new URL(`http://${h}/`).hostname);
  } catch {
    throw invalid();
  }
}

async function resolve(host: string, ctx: GuardContext): Promise<ResolvedAddress[]> {
  try {
    const found = await (ctx.resolver ?? systemResolver)(host);
    if (found.length === 0) throw Object.assign(new Error('no addresses'), { code: 'ENOTFOUND' });
    return found;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA')
      throw new AppError('TOOL_BAD_REQUEST', `${ctx.service}: ${host} does not resolve (${String(code)})`, { host });
    throw new AppError('TOOL_UNAVAILABLE', `${ctx.service}: could not resolve ${host}: ${err instanceof Error ? err.message : String(err)}`, { host });
  }
}

/**
 * The refusal of a host name whose addresses are not allowed. It never says what the name
 * resolves to or which kind of address that is: the caller (a canvas author, a model steered by
 * page text) would otherwise learn the internal network's addresses one name at a time.
 */
function hostNotAllowed(host: string, ctx: GuardContext): AppError {
  return new AppError('TOOL_BAD_REQUEST', `${ctx.service}: host ${host} is not allowed; ${HINT}`, { host });
}

/**
 * Checks that a tool may connect to `host`:`port` and returns the addresses to connect to.
 * Throws TOOL_BAD_REQUEST (not retried) naming the host (an IP literal also says why: the
 * caller wrote it, so nothing is disclosed).
 */
export async function assertHostAllowed(host: string, port: number, ctx: GuardContext): Promise<PinnedHost> {
  if (!host.trim()) throw new AppError('TOOL_BAD_REQUEST', `${ctx.service}: no host given`);
  const canonical = canonicalHost(host, ctx.service);
  const entries = parseAllowList(ctx.env.NETWORK_ALLOW_HOSTS);
  const literal = parseIp(canonical);
  if (literal) {
    const reason = blockedReason(literal);
    if (reason && !allowsAddress(entries, literal, port))
      throw new AppError('TOOL_BAD_REQUEST', `${ctx.service}: ${canonical} is ${reason}; ${HINT}`, { host: canonical });
    return { host: canonical, port, addresses: [{ address: canonical, family: literal.family }] };
  }
  const addresses = await resolve(canonical, ctx);
  if (allowsName(entries, canonical, port)) return { host: canonical, port, addresses };
  for (const a of addresses) {
    const ip = parseIp(a.address);
    if (!ip || (blockedReason(ip) && !allowsAddress(entries, ip, port))) throw hostNotAllowed(canonical, ctx);
  }
  return { host: canonical, port, addresses };
}

/** A checked URL: only http and https, host checked and pinned. */
export async function assertUrlAllowed(raw: string, ctx: GuardContext): Promise<{ url: URL; pinned: PinnedHost }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('TOOL_BAD_REQUEST', `${ctx.service}: "${raw}" is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppError('TOOL_BAD_REQUEST', `${ctx.service}: ${raw} uses the ${url.protocol} scheme; only http and https are allowed`);
  }
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const pinned = await assertHostAllowed(url.hostname, port, ctx);
  return { url, pinned };
}

/**
 * A `lookup` for node:net/http that answers only with the checked addresses: the socket
 * connects where the guard looked, whatever DNS says by then.
 */
export function pinnedLookup(pinned: PinnedHost): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted = options?.family === 4 || options?.family === 6 ? pinned.addresses.filter((a) => a.family === options.family) : pinned.addresses;
    const list = wanted.length > 0 ? wanted : pinned.addresses;
    if (options?.all) callback(null, list);
    else callback(null, list[0]!.address, list[0]!.family);
  };
}
