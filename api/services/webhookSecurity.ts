/**
 * The security gate of RAGFlow's webhook trigger, checked before the body is read: body size, IP
 * allow-list, authentication (none with an explicit `allow_anonymous`, header token, Basic, or
 * HMAC JWT), then the rate limit — RAGFlow checks the rate before authenticating, which lets
 * failed calls spend the legitimate caller's budget; here only authenticated calls count. Every refusal is a BAD_REQUEST whose
 * message is RAGFlow's. Where RAGFlow lets a half-configured check pass (a token check with no
 * token configured), this one refuses.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import { AppError } from '../../src/errors';
import { verifyWebhookJwt } from './webhookJwt';

/** RAGFlow's ceiling for `max_body_size`. */
export const WEBHOOK_MAX_BODY = 10 * 1024 * 1024;

export interface WebhookCaller {
  agentId: string;
  ip: string;
  /** Content-Length as sent (0 when absent: the body's real size is checked again once read). */
  contentLength: number;
  headers: Record<string, string | string[] | undefined>;
}

const bad = (message: string) => new AppError('BAD_REQUEST', message);
type Config = Record<string, unknown>;
const objectOf = (v: unknown): Config => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Config) : {});

/** `"10MB"`, `"512kb"` → bytes; at most 10 MB. */
export function maxBodyBytes(security: Config): number {
  const raw = security.max_body_size || '10MB';
  const m = typeof raw === 'string' ? /^\s*(\d+)\s*(kb|mb)\s*$/i.exec(raw) : null;
  if (!m) throw bad('Invalid max_body_size format');
  const limit = Number(m[1]) * (m[2]!.toLowerCase() === 'kb' ? 1024 : 1024 * 1024);
  if (limit > WEBHOOK_MAX_BODY) throw bad('max_body_size exceeds maximum allowed size (10MB)');
  return limit;
}

export function checkBodySize(security: Config, size: number): void {
  const limit = maxBodyBytes(security);
  if (size > limit) throw bad(`Request body too large: ${size} > ${limit}`);
}

/** `::ffff:10.0.0.1` (an IPv4 client on a dual-stack socket) is `10.0.0.1`. */
function plainIp(ip: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m ? m[1]! : ip;
}

function checkIpWhitelist(security: Config, clientIp: string): void {
  const rules = Array.isArray(security.ip_whitelist) ? security.ip_whitelist : [];
  if (rules.length === 0) return;
  const ip = plainIp(clientIp);
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  for (const rule of rules) {
    const text = String(rule).trim();
    if (!text.includes('/')) {
      if (plainIp(text) === ip) return;
      continue;
    }
    const [network = '', prefix = ''] = text.split('/');
    const netFamily = isIP(network);
    const bits = Number(prefix);
    if (netFamily === 0 || !/^\d+$/.test(prefix) || bits > (netFamily === 4 ? 32 : 128)) throw bad(`Invalid ip_whitelist entry: ${text}`);
    const list = new BlockList();
    list.addSubnet(network, bits, netFamily === 4 ? 'ipv4' : 'ipv6');
    if (isIP(ip) !== 0 && list.check(ip, family)) return;
  }
  throw bad(`IP ${ip} is not allowed by whitelist`);
}

const WINDOWS: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86400 };

/**
 * Token buckets per agent, in this process's memory (RAGFlow keeps them in Redis): `limit`
 * requests at once, refilled at `limit` per window. Buckets that are full again are forgotten.
 */
export class WebhookRateLimiter {
  private buckets = new Map<string, { tokens: number; at: number; capacity: number; rate: number }>();

  take(key: string, limit: number, windowS: number, nowMs = Date.now()): boolean {
    const rate = limit / windowS;
    const b = this.buckets.get(key) ?? { tokens: limit, at: nowMs, capacity: limit, rate };
    b.tokens = Math.min(limit, b.tokens + ((nowMs - b.at) / 1000) * rate);
    Object.assign(b, { at: nowMs, capacity: limit, rate });
    const allowed = b.tokens >= 1;
    if (allowed) b.tokens -= 1;
    this.buckets.set(key, b);
    if (this.buckets.size > 10_000) this.prune(nowMs);
    return allowed;
  }

  private prune(nowMs: number): void {
    for (const [key, b] of this.buckets) if (b.tokens + ((nowMs - b.at) / 1000) * b.rate >= b.capacity) this.buckets.delete(key);
  }
}

function checkRateLimit(security: Config, agentId: string, limiter: WebhookRateLimiter): void {
  const rl = Object.keys(objectOf(security.rate_limit)).length > 0 ? objectOf(security.rate_limit) : { limit: 60, per: 'minute' };
  const limit = Math.trunc(Number(rl.limit ?? 60));
  if (!Number.isFinite(limit) || limit <= 0) throw bad('rate_limit.limit must be > 0');
  const per = String(rl.per ?? 'minute');
  const windowS = WINDOWS[per];
  if (!windowS) throw bad(`Invalid rate_limit.per: ${per}`);
  if (!limiter.take(agentId, limit, windowS)) throw bad('Too many requests (rate limit exceeded)');
}

/** Compares secrets in constant time (digests, so lengths do not leak either). */
function sameSecret(given: string | undefined, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return given !== undefined && timingSafeEqual(digest(given), digest(expected));
}

function firstHeader(headers: WebhookCaller['headers'], name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

function checkToken(security: Config, headers: WebhookCaller['headers']): void {
  const cfg = objectOf(security.token);
  const header = typeof cfg.token_header === 'string' ? cfg.token_header.trim() : '';
  const value = cfg.token_value === undefined || cfg.token_value === null ? '' : String(cfg.token_value);
  if (!header || !value || !sameSecret(firstHeader(headers, header), value)) throw bad('Invalid token authentication');
}

function checkBasic(security: Config, headers: WebhookCaller['headers']): void {
  const cfg = objectOf(security.basic_auth);
  const m = /^basic\s+(.+)$/i.exec(firstHeader(headers, 'authorization')?.trim() ?? '');
  const decoded = m ? Buffer.from(m[1]!, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  const ok =
    m !== null &&
    colon >= 0 &&
    typeof cfg.username === 'string' &&
    typeof cfg.password === 'string' &&
    sameSecret(decoded.slice(0, colon), cfg.username) &&
    sameSecret(decoded.slice(colon + 1), cfg.password);
  if (!ok) throw bad('Invalid Basic Auth credentials');
}

/** RAGFlow's `_is_truthy`. */
function truthy(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  return typeof v === 'string' && ['1', 'true', 'yes', 'on'].includes(v.trim().toLowerCase());
}

/** Runs every check of the Begin's `security` block; throws the first refusal. */
export function checkWebhookSecurity(securityCfg: unknown, caller: WebhookCaller, limiter: WebhookRateLimiter): void {
  const security = objectOf(securityCfg);
  if (Object.keys(security).length === 0) throw bad('Webhook security is required. Set allow_anonymous to true to permit unauthenticated webhooks.');
  checkBodySize(security, caller.contentLength);
  checkIpWhitelist(security, caller.ip);
  const authType = security.auth_type ?? 'none';
  if (authType === 'none') {
    if (!truthy(security.allow_anonymous)) throw bad('Anonymous webhook access requires allow_anonymous to be true');
  } else if (authType === 'token') checkToken(security, caller.headers);
  else if (authType === 'basic') checkBasic(security, caller.headers);
  else if (authType === 'jwt') verifyWebhookJwt(firstHeader(caller.headers, 'authorization'), security.jwt);
  else throw bad(`Unsupported auth_type: ${String(authType)}`);
  // Only authenticated calls spend the agent's budget: counted before authentication, a stranger
  // with a wrong token could use it up and lock the legitimate caller out.
  checkRateLimit(security, caller.agentId, limiter);
}
