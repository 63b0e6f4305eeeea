import { BadRequestException } from '@nestjs/common';
import { createHash } from 'crypto';

import { readAheadDigest } from '../http/streamed-body';

/** D35: the request header. */
const IDEMPOTENCY_HEADER = 'idempotency-key';
/** D35: the replay marker header. */
export const REPLAYED_HEADER = 'idempotent-replayed';

/** D35's messages. */
export const IDEMPOTENCY_MESSAGES = {
  format: 'Idempotency-Key must be 1 to 255 visible ASCII characters',
  otherRequest: 'Idempotency-Key was already used with a different request',
  inProgress: 'A request with this Idempotency-Key is in progress',
} as const;

/** D35: 1 to 255 characters, each visible ASCII (`!` to `~`). */
const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

/** Request properties: the checked key, and the raw body bytes a keyed request was sent with. */
const RAW_BODY = Symbol('rawBody');
type Keyed = { [RAW_BODY]?: Buffer };

interface RawRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  raw: { rawHeaders: string[]; url?: string };
}

/**
 * D35 on a POST (any other method: undefined, the header is ignored): the
 * Idempotency-Key value as received (Node trims the surrounding whitespace), or
 * undefined without the header. Sent twice, empty, too long or with other than
 * visible ASCII: 400. Called by the guard right after the scope (D3 step 3),
 * which hands the key to the write request (WriteRequests).
 */
export function checkIdempotencyKey(request: RawRequest): string | undefined {
  if (request.method !== 'POST') return undefined;
  const header = request.headers[IDEMPOTENCY_HEADER];
  if (header === undefined) return undefined;
  // HTTP's own trimming of the field value (Node's parser does it; an injected request may not have).
  const value = typeof header === 'string' ? header.replace(/^[ \t]+|[ \t]+$/g, '') : header;
  let lines = 0;
  const raw = request.raw.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === IDEMPOTENCY_HEADER.length && raw[i].toLowerCase() === IDEMPOTENCY_HEADER) lines++;
  if (lines !== 1 || typeof value !== 'string' || !KEY_FORMAT.test(value)) throw new BadRequestException(IDEMPOTENCY_MESSAGES.format);
  return value;
}

/** Keeps the raw body bytes of a request that carries an Idempotency-Key (called by the body parser); others keep nothing. */
export function keepRawBody(request: { method: string; headers: Record<string, unknown> }, body: Buffer): void {
  if (request.method === 'POST' && request.headers[IDEMPOTENCY_HEADER] !== undefined) (request as unknown as Keyed)[RAW_BODY] = body;
}

/**
 * D35's "same request": SHA-256 over the method, the request-target exactly as
 * sent (path and query, not normalized) and the raw body bytes.
 */
export function requestFingerprint(request: RawRequest): Buffer {
  const hash = createHash('sha256')
    .update(request.method)
    .update('\n')
    .update(request.raw.url ?? '')
    .update('\n');
  const body = (request as unknown as Keyed)[RAW_BODY] ?? readAheadDigest(request);
  if (body) hash.update(body);
  return hash.digest();
}

/** OpenAPI extension of an operation that ignores the Idempotency-Key header (D46: create API key); the document's post-processing removes it. */
export const NO_IDEMPOTENCY_EXTENSION = 'x-ignores-idempotency-key';
