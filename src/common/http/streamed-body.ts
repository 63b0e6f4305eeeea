import { PayloadTooLargeException, UnsupportedMediaTypeException } from '@nestjs/common';
import { createHash } from 'crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { join } from 'path';
import type { Readable } from 'stream';

import type { AttachmentSettings } from '../../config/env';
import { BODY_TOO_LARGE_MESSAGE, NOT_JSON_MESSAGE } from '../errors/to-http-error';
import { deferBodyError } from '../validation/body-error';
import { BODY_LIMIT_BYTES } from './adapter';
import { closeAfterAnswer } from './close-connection';

/** Where the files of a streamed body are staged, and whether they are flushed to disk as they are written. */
export interface StagingArea {
  dir: string;
  /** True when storing a staged file flushes it to disk (the `local` driver): flushing it while it is written shortens that wait (EarlyFlush). */
  flushEarly: boolean;
}

/** The staging directory of attachment uploads under STORAGE_DIR `storageDir` (on the objects' file system: storing is a rename). */
export const stagingDirOf = (storageDir: string): string => join(storageDir, 'tmp');

/** The staging area of attachment uploads (stagingDirOf); flushed early with the `local` driver, whose objects are the staged files themselves. */
export function attachmentStaging(attachments: Pick<AttachmentSettings, 'dir' | 'driver'>): StagingArea {
  return { dir: stagingDirOf(attachments.dir), flushEarly: attachments.driver === 'local' };
}

/**
 * How a route that streams its body reads it (D47's upload: its multipart form), for D35's read-ahead
 * of a keyed request (readBodyAhead): reads `source` to its end, stopping at once past `maxBytes` plus
 * MULTIPART_BODY_OVERHEAD_BYTES (the 413 that comes first), staging files in `staging`, and returns
 * what the route will use instead of the body; `discard` drops what the value kept (its staging file)
 * when the route did not take it.
 */
export interface BodyReader<T = unknown> {
  read(source: Readable, contentType: string, staging: StagingArea, maxBytes: number): Promise<T>;
  discard(value: T): Promise<void>;
}

/**
 * Route config (`@RouteConfig(streamedBodyRoute(reader))`) of a route that reads its multipart
 * body itself, as a stream, after its access checks (D47's upload), with `reader`. The parser
 * leaves such a body unread; on every other route a multipart body is refused as any non-JSON
 * body is (D7: 415, or 413 over 1 MiB).
 */
export function streamedBodyRoute(reader: BodyReader): { streamedBody: BodyReader } {
  return { streamedBody: reader };
}

/** D47: how much a multipart body may exceed ATTACHMENT_MAX_BYTES (1 MiB of headers and other parts). */
export const MULTIPART_BODY_OVERHEAD_BYTES = 1024 * 1024;

/** Request property: the body of a keyed request read ahead (D35), with its digest. */
const AHEAD = Symbol('bodyReadAhead');
interface ReadAhead {
  value: unknown;
  reader: BodyReader;
  digest: Buffer;
  /** The route took the value (streamedBody): it is the route's to keep or drop. */
  taken: boolean;
}
type Ahead = { [AHEAD]?: ReadAhead };

/** The reader of `request`'s route when it streams its body, else undefined. */
function readerOf(request: FastifyRequest): BodyReader | undefined {
  return (request.routeOptions.config as { streamedBody?: BodyReader } | undefined)?.streamedBody;
}

/** True when `request`'s route reads its multipart body itself. */
export function streamsBody(request: FastifyRequest): boolean {
  return readerOf(request) !== undefined;
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
 * D35 for a route that streams its body: a keyed request's body is read first, by its route's
 * reader (the multipart form received and its file staged, once: the staged file becomes the
 * stored object), so that its fingerprint is known before the request runs; streamedBody then
 * answers what the reader returned, and releaseReadAhead drops it unless the route took it.
 * The digest covers the bytes read; a body over `maxBytes` plus MULTIPART_BODY_OVERHEAD_BYTES is
 * cut there as an unkeyed one is (D47's 413: the reader reads no more), and its digest covers what
 * was read plus a mark that it was cut (such a request answers 413 or an earlier check's answer,
 * and its connection closes).
 */
export async function readBodyAhead(request: FastifyRequest, staging: StagingArea, maxBytes: number): Promise<void> {
  const reader = readerOf(request)!;
  const limit = maxBytes + MULTIPART_BODY_OVERHEAD_BYTES;
  const hash = createHash('sha256');
  const source = request.raw;
  let kept = 0;
  const onData = (chunk: Buffer) => {
    if (kept + chunk.length > limit) {
      hash.update(chunk.subarray(0, limit - kept)).update('\0cut');
      return void source.removeListener('data', onData);
    }
    hash.update(chunk);
    kept += chunk.length;
  };
  // Heard first: every chunk the reader reads has been hashed.
  source.on('data', onData);
  const value = await reader.read(source, request.headers['content-type'] ?? '', staging, maxBytes).finally(() => source.removeListener('data', onData));
  (request as unknown as Ahead)[AHEAD] = { value, reader, digest: hash.digest(), taken: false };
}

/** The digest of a body read ahead (for requestFingerprint), if the body was read ahead. */
export function readAheadDigest(request: object): Buffer | undefined {
  return (request as Ahead)[AHEAD]?.digest;
}

/**
 * The body of a streamed-body route: what its reader returned for a keyed request (read
 * ahead), else the request itself as a stream (readable once). The value is the route's
 * from then on (releaseReadAhead leaves it).
 */
export function streamedBody<T>(request: FastifyRequest): { ahead: T } | { source: Readable } {
  const ahead = (request as unknown as Ahead)[AHEAD];
  if (!ahead) return { source: request.raw };
  ahead.taken = true;
  return { ahead: ahead.value as T };
}

/** Drops what a request's body read ahead kept, unless its route took it (when the request is done). */
export async function releaseReadAhead(request: object): Promise<void> {
  const ahead = (request as Ahead)[AHEAD];
  if (ahead && !ahead.taken) await ahead.reader.discard(ahead.value).catch(() => undefined);
}
