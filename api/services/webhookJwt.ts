/**
 * JWT check of a webhook (RAGFlow's `auth_type: jwt`): HMAC tokens (HS256/384/512) verified with
 * node:crypto, with the registered claims checked as PyJWT does by default (exp, nbf; aud and iss
 * when configured) and the configured `required_claims`. Messages follow RAGFlow's and PyJWT's.
 *
 * Stricter than RAGFlow in two ways: each of the three parts must be canonical base64url (only
 * `A-Z a-z 0-9 - _`, no padding, no stray bits: Node's decoder skips junk characters, so a
 * signature with junk in it would otherwise verify), and `exp` is required (a token without an
 * expiry is good forever once leaked) unless the webhook's `security.jwt.require_exp` is false.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../src/errors';

const HMAC: Record<string, string> = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' };
const RESERVED_CLAIMS = new Set(['exp', 'sub', 'aud', 'iss', 'nbf', 'iat']);

const bad = (message: string) => new AppError('BAD_REQUEST', message);
const invalid = (message: string) => bad(`Invalid JWT: ${message}`);

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The bytes of a canonical base64url part; anything else is refused, naming the part. */
function strictBase64url(segment: string, part: 'header' | 'payload' | 'signature'): Buffer {
  const bytes = BASE64URL.test(segment) && segment.length % 4 !== 1 ? Buffer.from(segment, 'base64url') : null;
  if (!bytes || bytes.toString('base64url') !== segment) throw invalid(`The ${part} is not valid base64url`);
  return bytes;
}

function decodeSegment(segment: string, part: 'header' | 'payload'): Record<string, unknown> {
  const bytes = strictBase64url(segment, part);
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw invalid('Invalid header padding');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalid('Invalid payload string: must be a json object');
  return value as Record<string, unknown>;
}

/** `require_exp: false` (or "false", 0) turns the expiry requirement off; anything else keeps it. */
function expRequired(cfg: Record<string, unknown>): boolean {
  const v = cfg.require_exp;
  return !(v === false || v === 0 || (typeof v === 'string' && ['false', '0', 'no', 'off'].includes(v.trim().toLowerCase())));
}

function checkClaims(claims: Record<string, unknown>, cfg: Record<string, unknown>, nowS: number): void {
  if (claims.exp === undefined && expRequired(cfg)) throw invalid('Token is missing the "exp" claim');
  if (claims.exp !== undefined) {
    if (typeof claims.exp !== 'number') throw invalid('Expiration Time claim (exp) must be an integer.');
    if (claims.exp <= nowS) throw invalid('Signature has expired');
  }
  if (claims.nbf !== undefined) {
    if (typeof claims.nbf !== 'number') throw invalid('Not Before claim (nbf) must be an integer.');
    if (claims.nbf > nowS) throw invalid('The token is not yet valid (nbf)');
  }
  const audience = cfg.audience;
  if (audience) {
    if (claims.aud === undefined) throw invalid('Token is missing the "aud" claim');
    const given = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    const wanted = Array.isArray(audience) ? audience : [audience];
    if (!given.some((a) => wanted.includes(a))) throw invalid("Audience doesn't match");
  }
  if (cfg.issuer) {
    if (claims.iss === undefined) throw invalid('Token is missing the "iss" claim');
    if (claims.iss !== cfg.issuer) throw invalid('Invalid issuer');
  }
}

/** Verifies `Authorization: Bearer <jwt>` against the webhook's `security.jwt`; returns the claims. */
export function verifyWebhookJwt(authorization: string | undefined, jwtCfg: unknown, nowS = Date.now() / 1000): Record<string, unknown> {
  const cfg = (jwtCfg && typeof jwtCfg === 'object' ? jwtCfg : {}) as Record<string, unknown>;
  const secret = typeof cfg.secret === 'string' ? cfg.secret : '';
  if (!secret) throw bad('JWT secret not configured');
  const header = authorization ?? '';
  if (!header.startsWith('Bearer ')) throw bad('Missing Bearer token');
  const token = header.slice('Bearer '.length).trim();
  if (!token) throw bad('Empty Bearer token');

  const alg = (typeof cfg.algorithm === 'string' && cfg.algorithm ? cfg.algorithm : 'HS256').toUpperCase();
  const hash = HMAC[alg];
  if (!hash) throw bad(`Unsupported JWT algorithm: ${alg} (HS256, HS384 and HS512 are supported)`);
  const parts = token.split('.');
  if (parts.length !== 3) throw invalid('Not enough segments');
  const [head, payload, signature] = parts as [string, string, string];
  // All three parts are checked before anything is verified, so each refusal names its part.
  strictBase64url(head, 'header');
  strictBase64url(payload, 'payload');
  // The configured algorithm decides, never the token's own header (no alg=none, no confusion).
  if (decodeSegment(head, 'header').alg !== alg) throw invalid('The specified alg value is not allowed');
  const expected = createHmac(hash, secret).update(`${head}.${payload}`).digest();
  const given = strictBase64url(signature, 'signature');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid('Signature verification failed');
  const claims = decodeSegment(payload, 'payload');
  checkClaims(claims, cfg, nowS);

  const raw = cfg.required_claims;
  const required = (typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw : []).filter((c): c is string => typeof c === 'string' && c.trim() !== '');
  for (const claim of required) if (RESERVED_CLAIMS.has(claim)) throw bad(`Reserved JWT claim cannot be required: ${claim}`);
  for (const claim of required) if (!(claim in claims)) throw bad(`Missing JWT claim: ${claim}`);
  return claims;
}
