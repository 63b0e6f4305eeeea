import { BadRequestException, ForbiddenException, HttpException, Inject, Injectable } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomBytes } from 'crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { close, createReadStream, createWriteStream, open } from 'fs';
import { unlink } from 'fs/promises';
import { join } from 'path';
import { promisify } from 'util';

import { sendError } from '../common/errors/error.filter';
import { closeAfterAnswer } from '../common/http/close-connection';
import { ATTACHMENT_MESSAGES } from './attachment-fields';
import { AttachmentsRepository } from './attachments.repository';
import { EarlyFlush } from './early-flush';
import { FairReader, STAGING_BUFFER_BYTES } from './fair-reader';
import { contentDisposition, servedContentType } from './storage/content-headers';
import { LocalStorage } from './storage/local-storage';
import { FILES_PREFIX } from './storage/signed-links';
import { OBJECT_STORAGE, type ObjectStorage } from './storage/storage';
import { FilesSecret } from './storage/storage.provider';

/** Opens a file for reading: its descriptor. */
const openFile = promisify((path: string, done: (error: NodeJS.ErrnoException | null, fd: number) => void) => open(path, 'r', done));

/** D47: every refusal of a link. */
const DENIED = () => new ForbiddenException(ATTACHMENT_MESSAGES.link);

/** A single byte range of a body of `size` bytes (inclusive bounds). */
export type RangeAnswer = { kind: 'whole' } | { kind: 'part'; start: number; end: number } | { kind: 'unsatisfiable' };

/**
 * D47's `Range`: one range (`bytes=a-b`, `bytes=a-`, `bytes=-n`) gives that part (206), clipped to
 * the body; a multi-range or syntactically invalid header (`bytes=5-2`) is ignored (the whole
 * body); a range that starts past the end, a zero suffix, or any range of an empty body is unsatisfiable (416).
 */
export function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return { kind: 'whole' };
  const match = /^\s*bytes\s*=\s*(?:([0-9]{1,15})\s*-\s*([0-9]{0,15})|-\s*([0-9]{1,15}))\s*$/i.exec(header);
  if (!match) return { kind: 'whole' };
  if (match[3] !== undefined) {
    const suffix = Number(match[3]);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'part', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? Infinity : Number(match[2]);
  if (end < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'part', start, end: Math.min(end, size - 1) };
}

/**
 * D47's `/files/` routes of the local driver, outside /api/v1 and without a key:
 * `PUT` on an upload link stores exactly the declared bytes (204; 400
 * `Upload must be exactly <n> bytes`), `GET`/`HEAD` on a download link answers the
 * bytes (single `Range`, `nosniff`, D47's Content-Type and Content-Disposition). Every
 * other method, path, a tampered or expired link, an upload link of a confirmed or gone
 * attachment, a download link of a deleted one: 403 `Link is invalid or has expired`.
 * A link names an attachment id only: the file is found through its row, so no client
 * text ever reaches the file system.
 */
@Injectable()
export class FilesRoutes {
  constructor(
    private readonly secret: FilesSecret,
    private readonly repo: AttachmentsRepository,
    @Inject(OBJECT_STORAGE) private readonly storage: ObjectStorage,
  ) {}

  /** Answers one request under /files/. */
  async handle(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    try {
      const link = this.storage instanceof LocalStorage ? this.secret.links.verify(request.url) : null;
      if (link?.operation === 'download' && (request.method === 'GET' || request.method === 'HEAD'))
        return await this.download(link.attachmentId, request, reply);
      if (link?.operation === 'upload' && request.method === 'PUT') return await this.upload(link.attachmentId, request, reply);
      throw DENIED();
    } catch (error) {
      sendError(reply, error, request);
    }
  }

  private async download(id: number, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const row = await this.repo.downloadable(id);
    if (!row) throw DENIED();
    // The row's size is the file's (confirmed bytes never change): opening the file is its only check.
    const fd = await openFile((this.storage as LocalStorage).pathOf(row.storage_key)).catch(() => null);
    if (fd === null) throw DENIED();
    let streamed = false;
    try {
      const size = row.file_size;
      void reply.headers({
        'content-type': servedContentType(row.mime_type),
        'content-disposition': contentDisposition(row.file_name),
        'x-content-type-options': 'nosniff',
        'accept-ranges': 'bytes',
        'cache-control': 'private, no-store',
      });
      const range = parseRange(request.headers.range, size);
      if (range.kind === 'unsatisfiable') {
        void reply.header('content-range', `bytes */${size}`);
        reply.removeHeader('content-disposition');
        reply.removeHeader('accept-ranges');
        throw new HttpException(ATTACHMENT_MESSAGES.range, 416);
      }
      const [start, end] = range.kind === 'part' ? [range.start, range.end] : [0, size - 1];
      const length = size === 0 ? 0 : end - start + 1;
      void reply.code(range.kind === 'part' ? 206 : 200).header('content-length', String(length));
      if (range.kind === 'part') void reply.header('content-range', `bytes ${start}-${end}/${size}`);
      if (request.method === 'HEAD' || length === 0) return void reply.send();
      // Answered meanwhile (the request's deadline): no stream would read `fd`, so it is closed below.
      if (reply.sent) return;
      streamed = true;
      // 1 MiB reads: a file leaves in a few large writes (64 KiB ones cost a third of the throughput). The stream closes `fd`.
      await reply.send(createReadStream('', { fd, start, end, highWaterMark: 1024 * 1024 }));
    } finally {
      if (!streamed) close(fd, () => undefined);
    }
  }

  private async upload(id: number, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const declared = await this.repo.pendingSize(id);
    if (declared === null) throw DENIED();
    const wrongSize = () => {
      // The rest of the body is not read: the connection closes after the answer.
      closeAfterAnswer(request.raw, reply.raw);
      return new BadRequestException(ATTACHMENT_MESSAGES.uploadSize(declared));
    };
    const length = request.headers['content-length'];
    if (length !== undefined && Number(length) !== declared) throw wrongSize();
    const staged = join(this.storage.stagingDir, `put-${randomBytes(12).toString('hex')}`);
    try {
      const received = await receive(request, staged, declared);
      if (received !== declared) throw wrongSize();
      const stored = await this.repo.withPendingUpload(id, async (key, size) => {
        if (size !== received) return false;
        await this.storage.store(key, staged, received);
        return true;
      });
      if (!stored?.value) throw DENIED();
      await reply.code(204).send();
    } finally {
      await unlink(staged).catch(() => undefined);
    }
  }
}

/** Reads the request body into `path` (FairReader: yielding as the multipart form does), stopping once more than `limit` bytes came; the bytes read (limit + 1 when over). */
function receive(request: FastifyRequest, path: string, limit: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const source = request.raw;
    // Gone while the link was checked: its events have been emitted already.
    if (source.destroyed || source.readableAborted) return reject(new Error('request closed'));
    // Large buffers: while one write is on the disk, the chunks that arrive go out together in one writev.
    const out = createWriteStream(path, { highWaterMark: STAGING_BUFFER_BYTES });
    const early = new EarlyFlush(path);
    let bytes = 0;
    let done = false;
    const finish = (error: Error | null, value = bytes) => {
      if (done) return;
      done = true;
      if (error) {
        // Rejected once the file is closed (its open included) and no early flush of it runs, so that its
        // removal cannot be overtaken by either.
        const rejectSettled = () => void early.settled().then(() => reject(error));
        if (out.closed) return rejectSettled();
        out.once('close', rejectSettled);
        out.destroy();
      } else out.end(() => void early.settled().then(() => resolve(value)));
    };
    out.on('error', (error) => finish(error));
    const reader = new FairReader(source, (chunk) => {
      bytes += chunk.length;
      if (bytes > limit) {
        reader.stop();
        return finish(null, limit + 1);
      }
      const more = out.write(chunk);
      early.wrote(chunk.length);
      if (!more) out.once('drain', reader.hold());
    });
    source.on('end', () => finish(null));
    source.on('error', (error: Error) => finish(error));
    source.on('aborted', () => finish(new Error('request aborted')));
    // A client gone before the end of its body (some Node versions emit neither of the above).
    source.on('close', () => {
      if (!source.readableEnded) finish(new Error('request closed'));
    });
  });
}

/** Registers FILES_PREFIX on the app's Fastify instance (configureApp): bodies there are read by the routes themselves. */
export function mountFiles(app: NestFastifyApplication, options: { cors: boolean }): void {
  const routes = app.get(FilesRoutes, { strict: false });
  const fastify = app.getHttpAdapter().getInstance();
  const methods = ['GET', 'HEAD', 'PUT', 'POST', 'PATCH', 'DELETE', ...(options.cors ? [] : ['OPTIONS'])];
  void fastify.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    for (const url of [FILES_PREFIX.slice(0, -1), `${FILES_PREFIX}*`]) {
      scope.route({ method: methods as never, url, exposeHeadRoute: false, handler: (request, reply) => routes.handle(request, reply) });
    }
  });
}
