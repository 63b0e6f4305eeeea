import { createHmac, timingSafeEqual } from 'crypto';

/*
 * D34 cursors: opaque, URL-safe (base64url without padding) and signed with
 * HMAC-SHA256 under a server secret, so that any changed character answers
 * 400 `Invalid cursor`. The signature covers the binding (workspace, caller,
 * filters, sort: see cursorBinding) as well as the payload, so a cursor sent
 * with other filters fails the same check, and the binding need not travel.
 *
 * Layout before encoding: one version byte, 32 bytes of MAC, then the payload
 * (JSON array: the last row's sort values, then its id).
 */

/** The last row's sort values and id, as a cursor carries them. */
export type CursorValues = ReadonlyArray<string | number | null>;

const VERSION = 1;
const MAC_BYTES = 32;

let secret: string | null = null;

/**
 * Sets the signing secret: once at start-up (tasks/cursor-secret.ts: `CURSOR_SECRET`, else the
 * random secret the migrations created in the database, so that every process on it agrees).
 */
export function useCursorSecret(value: string): void {
  secret = value;
}

/** The signing secret set by useCursorSecret; there is no built-in one. @throws Error when none was set */
export function cursorSecret(): string {
  if (secret === null) throw new Error('The cursor secret is not loaded');
  return secret;
}

function mac(binding: string, payload: Buffer): Buffer {
  return createHmac('sha256', cursorSecret()).update(binding).update('\n').update(payload).digest();
}

/** Signs `values` for requests with `binding`: the text of `next_cursor`. */
export function sealCursor(binding: string, values: CursorValues): string {
  const payload = Buffer.from(JSON.stringify(values), 'utf8');
  return Buffer.concat([Buffer.from([VERSION]), mac(binding, payload), payload]).toString('base64url');
}

/**
 * The values of a cursor made by sealCursor for the same `binding` and secret,
 * or null when the text is not exactly such a cursor (other characters, a
 * non-canonical encoding, a wrong signature, a payload that is not an array of
 * strings, numbers and nulls).
 */
export function openCursor(text: string, binding: string): CursorValues | null {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return null;
  const bytes = Buffer.from(text, 'base64url');
  // base64url has several spellings of the same bytes (unused low bits of the last character): only ours is accepted.
  if (bytes.toString('base64url') !== text) return null;
  if (bytes.length <= 1 + MAC_BYTES || bytes[0] !== VERSION) return null;
  const payload = bytes.subarray(1 + MAC_BYTES);
  if (!timingSafeEqual(bytes.subarray(1, 1 + MAC_BYTES), mac(binding, payload))) return null;
  let values: unknown;
  try {
    values = JSON.parse(payload.toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(values) || !values.every((v) => v === null || typeof v === 'string' || typeof v === 'number')) return null;
  return values;
}
