import { hash, randomBytes } from 'crypto';

/** The fixed service prefix every API key starts with (Authentication 2, D20). */
export const API_KEY_PREFIX = 'svc_';

/** SHA-256 of the whole key, hex: the only form in which keys are stored (D20). */
export function hashApiKey(key: string): string {
  // The one-shot hash: no Hash object per request (about 2 us less per request).
  return hash('sha256', key, 'hex');
}

/** A new key: `svc_` + 32 random bytes as 64 hex characters. Shown once, never stored in clear. */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('hex');
}

/**
 * The key a request carries, per D20: `Authorization: Bearer <key>` (scheme
 * case-insensitive), else `X-API-Key`. Returns null when there is none, the
 * scheme is another one, or the key lacks the `svc_` prefix (all 401 `API key required`).
 */
export function readApiKey(headers: Record<string, string | string[] | undefined>): string | null {
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const authorization = first(headers['authorization']);
  let key: string | undefined;
  const bearer = authorization ? /^\s*bearer\s+(\S+)\s*$/i.exec(authorization) : null;
  if (bearer) key = bearer[1];
  else key = first(headers['x-api-key'])?.trim();
  if (!key || !key.startsWith(API_KEY_PREFIX) || key.length === API_KEY_PREFIX.length) return null;
  return key;
}
