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
import { closeAfterAnswer } from './close-connection';

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

/**
 * Registers the `multipart/form-data` parser (called by configureApp, beside the JSON one), and
 * makes every answer of a route that streams its body close the connection when the body was not
 * read to its end (a 413 at the limit, or a 401, 403 or 404 before any read): the rest is never
 * read, whatever its size (closeAfterAnswer discards a bounded amount).
 */
export function registerStreamedBodyParser(fastify: FastifyInstance): void {
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (streamsBody(request) && !request.raw.complete) closeAfterAnswer(request.raw, reply.raw);
    done(null, payload);
  });
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
 * under `dir`, so that its fingerprint is known before the request runs. streamedBody then
 * reads that file. `release` removes it. A body over `maxBytes` is cut there like an unkeyed
 * one (D47's 413): reading stops at once, the bytes kept are dropped, and the digest covers
 * what was read plus a mark that it was cut (such a request answers 413 or an earlier check's
 * answer, and its connection closes).
 */
export async function spoolStreamedBody(request: FastifyRequest, dir: string, maxBytes: number): Promise<void> {
  const path = join(dir, `spool-${randomBytes(12).toString('hex')}`);
  const hash = createHash('sha256');
  const out = createWriteStream(path);
  let kept = 0;
  let truncated = false;
  const source = request.raw;
  const onData = (chunk: Buffer, stop: () => void) => {
    if (kept + chunk.length > maxBytes) {
      // Cut: the rest is never read (the answer closes the connection, registerStreamedBodyParser).
      truncated = true;
      hash.update(chunk.subarray(0, maxBytes - kept)).update('\0cut');
      source.pause();
      return stop();
    }
    hash.update(chunk);
    kept += chunk.length;
    if (!out.write(chunk)) {
      source.pause();
      out.once('drain', () => source.resume());
    }
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const listeners = {
        data: (chunk: Buffer) => onData(chunk, stop),
        end: () => stop(),
        error: (error: Error) => stop(error),
        aborted: () => stop(new Error('request aborted')),
      };
      function stop(error?: Error) {
        for (const [event, listener] of Object.entries(listeners)) source.removeListener(event, listener);
        if (error) reject(error);
        else resolve();
      }
      for (const [event, listener] of Object.entries(listeners)) source.on(event, listener);
    });
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
    if (truncated) await unlink(path);
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
  if (spool) return { source: spool.truncated ? request.raw : createReadStream(spool.path), truncated: spool.truncated };
  return { source: request.raw, truncated: false };
}

/** Removes the spooled copy of a request's body, if any (when the request is done). */
export async function releaseSpooledBody(request: object): Promise<void> {
  const spool = (request as Spooled)[SPOOL];
  if (spool && !spool.truncated) await unlink(spool.path).catch(() => undefined);
}
