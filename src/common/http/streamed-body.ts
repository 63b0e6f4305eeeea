import { PayloadTooLargeException, UnsupportedMediaTypeException } from '@nestjs/common';
import { createHash, randomBytes } from 'crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createReadStream, createWriteStream } from 'fs';
import { unlink } from 'fs/promises';
import { join } from 'path';
import type { Readable } from 'stream';

import { BODY_TOO_LARGE_MESSAGE, NOT_JSON_MESSAGE } from '../errors/to-http-error';
import { deferBodyError } from '../validation/body-error';
import { BODY_LIMIT_BYTES } from './adapter';

/**
 * Routes that read a multipart body themselves, as a stream, after their
 * access checks (D47's upload): `@RouteConfig(STREAMED_BODY)`. The parser leaves
 * such a body unread; on every other route a multipart body is refused as any
 * non-JSON body is (D7: 415, or 413 over 1 MiB).
 */
export const STREAMED_BODY = { streamedBody: true } as const;

/** D47: how much a multipart body may exceed ATTACHMENT_MAX_BYTES (1 MiB of headers and other parts). */
export const MULTIPART_BODY_OVERHEAD_BYTES = 1024 * 1024;

/** Request properties: the body spooled for a keyed request (D35), its digest and size. */
const SPOOL = Symbol('spooledBody');
interface Spool {
  path: string;
  digest: Buffer;
  /** More bytes came than the spool kept (the route answers 413 for such a body). */
  truncated: boolean;
}
type Spooled = { [SPOOL]?: Spool };

/** True when `request`'s route reads its multipart body itself. */
export function streamsBody(request: FastifyRequest): boolean {
  return (request.routeOptions.config as { streamedBody?: boolean } | undefined)?.streamedBody === true;
}

/** Registers the `multipart/form-data` parser (called by configureApp, beside the JSON one). */
export function registerStreamedBodyParser(fastify: FastifyInstance): void {
  fastify.addContentTypeParser('multipart/form-data', (request, payload, done) => {
    if (streamsBody(request)) return done(null, undefined);
    // Elsewhere: read and dropped within the body limit, answered after authentication (D3, D7).
    const declared = Number(request.headers['content-length']);
    if (declared > BODY_LIMIT_BYTES) return done(new PayloadTooLargeException(BODY_TOO_LARGE_MESSAGE), undefined);
    let bytes = 0;
    let finished = false;
    const finish = (error: Error | null) => {
      if (finished) return;
      finished = true;
      done(error, undefined);
    };
    payload.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > BODY_LIMIT_BYTES) {
        payload.removeAllListeners('data');
        payload.pause();
        finish(new PayloadTooLargeException(BODY_TOO_LARGE_MESSAGE));
      }
    });
    payload.on('end', () => {
      deferBodyError(request, new UnsupportedMediaTypeException(NOT_JSON_MESSAGE));
      finish(null);
    });
    payload.on('error', (error: Error) => finish(error));
  });
}

/**
 * D35 for a route that streams its body: a keyed request's body is read first, into a file
 * under `dir` (at most `maxBytes` kept; the digest covers every byte), so that its fingerprint
 * is known before the request runs. streamedBody then reads that file. `release` removes it.
 */
export async function spoolStreamedBody(request: FastifyRequest, dir: string, maxBytes: number): Promise<void> {
  const path = join(dir, `spool-${randomBytes(12).toString('hex')}`);
  const hash = createHash('sha256');
  const out = createWriteStream(path);
  let kept = 0;
  let truncated = false;
  const source = request.raw;
  try {
    await new Promise<void>((resolve, reject) => {
      source.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        if (truncated) return;
        if (kept + chunk.length > maxBytes) {
          truncated = true;
          return;
        }
        kept += chunk.length;
        if (!out.write(chunk)) {
          source.pause();
          out.once('drain', () => source.resume());
        }
      });
      source.on('end', () => resolve());
      source.on('error', reject);
      source.on('aborted', () => reject(new Error('request aborted')));
    });
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  } catch (error) {
    out.destroy();
    await unlink(path).catch(() => undefined);
    throw error;
  }
  (request as unknown as Spooled)[SPOOL] = { path, digest: hash.digest(), truncated };
}

/** The digest of a spooled body (for requestFingerprint), if the body was spooled. */
export function spooledDigest(request: object): Buffer | undefined {
  return (request as Spooled)[SPOOL]?.digest;
}

/**
 * The body of a streamed-body route as a stream: the spooled copy of a keyed request,
 * else the request itself (readable once). `truncated`: the spool kept only part of it.
 */
export function streamedBody(request: FastifyRequest): { source: Readable; truncated: boolean } {
  const spool = (request as unknown as Spooled)[SPOOL];
  if (spool) return { source: createReadStream(spool.path), truncated: spool.truncated };
  return { source: request.raw, truncated: false };
}

/** Removes the spooled copy of a request's body, if any (when the request is done). */
export async function releaseSpooledBody(request: object): Promise<void> {
  const spool = (request as Spooled)[SPOOL];
  if (spool) await unlink(spool.path).catch(() => undefined);
}
