import { randomBytes } from 'crypto';
import { createWriteStream, type WriteStream } from 'fs';
import { unlink } from 'fs/promises';
import { join } from 'path';
import type { Readable, Writable } from 'stream';

import { type BodyReader, MULTIPART_BODY_OVERHEAD_BYTES, type StagingArea } from '../common/http/streamed-body';
import { FILE_NAME_MESSAGE, normalizeFileName, partMimeType, tooLargeMessage } from './attachment-fields';
import { EarlyFlush } from './early-flush';
import { FairReader, STAGING_BUFFER_BYTES } from './fair-reader';

/** D47's limits of a multipart upload: the file at most `maxBytes`, the whole body 1 MiB more. */
export function uploadLimits(maxBytes: number): { maxBodyBytes: number; maxFileBytes: number } {
  return { maxBodyBytes: maxBytes + MULTIPART_BODY_OVERHEAD_BYTES, maxFileBytes: maxBytes };
}

/**
 * The upload route's reader (streamedBodyRoute), for D35's read-ahead of a keyed upload: the form
 * received as an unkeyed one is, its file staged once (that staging file becomes the stored object).
 */
export const UPLOAD_READER: BodyReader<MultipartResult> = {
  read: (source, contentType, staging, maxBytes) => receiveMultipart(source, contentType, staging, uploadLimits(maxBytes)),
  discard: async (received) => {
    if (received.ok) await unlink(received.stagedPath).catch(() => undefined);
  },
};

/** D47's multipart messages. */
export const MULTIPART_MESSAGES = {
  invalid: 'Invalid multipart body',
  fileRequired: 'file is required',
  oneFile: 'Send one file per request',
} as const;

/** A received multipart upload: its file staged whole in a file of its own, or the answer that refuses it. */
export type MultipartResult =
  | { ok: true; fileName: string; mimeType: string; size: number; stagedPath: string }
  /** `unread`: the body was not read to its end (the connection must close). */
  | { ok: false; status: 400 | 413; message: string; unread?: boolean };

interface PartStream extends Readable {
  on(event: 'header', listener: (header: Record<string, string[]>) => void): this;
  on(event: string, listener: (...args: never[]) => void): this;
}
interface DicerStream extends Writable {
  on(event: 'part', listener: (part: PartStream) => void): this;
  on(event: string, listener: (...args: never[]) => void): this;
}
// The multipart framing parser of @fastify/busboy (busboy's own engine): parts with their raw
// headers, as streams, so that the part rules of D47 (filename* over filename, the part's own
// Content-Type) are ours to read. Its headers are latin1 text of the raw bytes.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Dicer = require('@fastify/busboy/deps/dicer/lib/Dicer') as new (config: {
  boundary: string;
  maxHeaderPairs?: number;
  maxHeaderSize?: number;
}) => DicerStream;

/** The `boundary` parameter of a multipart Content-Type (quoted or not), or null. RFC 2046: 1-70 characters. */
export function multipartBoundary(contentType: string): string | null {
  const match = /;\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType);
  return match ? (match[1] ?? match[2]) : null;
}

/** Splits a header value into `;`-separated parameters, honouring quoted strings (with `\` escapes). */
function parameters(value: string): Map<string, string> {
  const params = new Map<string, string>();
  let i = value.indexOf(';');
  if (i < 0) return params;
  while (i < value.length) {
    i++;
    while (value[i] === ' ' || value[i] === '\t') i++;
    let name = '';
    while (i < value.length && value[i] !== '=' && value[i] !== ';') name += value[i++];
    name = name.trim().toLowerCase();
    if (value[i] !== '=') continue;
    i++;
    while (value[i] === ' ' || value[i] === '\t') i++;
    let text = '';
    if (value[i] === '"') {
      i++;
      while (i < value.length && value[i] !== '"') {
        if (value[i] === '\\' && i + 1 < value.length) i++;
        text += value[i++];
      }
      i++;
      while (i < value.length && value[i] !== ';') i++;
    } else {
      while (i < value.length && value[i] !== ';') text += value[i++];
      text = text.trim();
    }
    if (name && !params.has(name)) params.set(name, text);
  }
  return params;
}

/** latin1 text of raw header bytes, read as UTF-8 (D47: quoted `filename` is UTF-8). */
const utf8 = (latin1: string): string => Buffer.from(latin1, 'latin1').toString('utf8');

/** RFC 8187 `charset'lang'pct-encoded` (UTF-8 or ISO-8859-1); anything else decodes to '' (an invalid name). */
function extValue(value: string): string {
  const match = /^([A-Za-z0-9!#$%&+^_`{}~-]*)'[^']*'(.*)$/.exec(value);
  if (!match) return '';
  const charset = match[1].toLowerCase();
  if (charset !== 'utf-8' && charset !== 'iso-8859-1') return '';
  if (!/^(?:[^%]|%[0-9A-Fa-f]{2})*$/.test(match[2])) return '';
  const bytes = Buffer.from(
    match[2].replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  );
  return charset === 'utf-8' ? bytes.toString('utf8') : bytes.toString('latin1');
}

/** What the part headers say: whether it is a file part named `file`, its name and type. */
interface PartInfo {
  isFile: boolean;
  name: string | undefined;
  fileName: string;
  mimeType: string;
}

function readPart(header: Record<string, string[]>): PartInfo {
  const disposition = header['content-disposition']?.[0] ?? '';
  const params = parameters(disposition);
  const star = params.get('filename*');
  const plain = params.get('filename');
  const name = params.get('name');
  return {
    isFile: star !== undefined || plain !== undefined,
    name: name === undefined ? undefined : utf8(name),
    // D47: filename* wins.
    fileName: star !== undefined ? extValue(star) : utf8(plain ?? ''),
    mimeType: partMimeType(header['content-type']?.[0]),
  };
}

/**
 * D47's multipart form, from `source` (the request body, read once, as a stream):
 * the one file part named `file` is written to a staging file in `staging` as it
 * arrives (never buffered whole); everything else is read and dropped. The whole body is
 * read (so that D47's step-7 order holds: a later second file part is a 400 even after a
 * bad name), except that reading stops at `maxBodyBytes` (the 413 that comes first). A
 * file over `maxFileBytes` stops being written at once. On any refusal the staging file
 * is removed: no partial object. Rejects only when the source itself fails (the client
 * went away), also leaving nothing.
 */
export async function receiveMultipart(
  source: Readable,
  contentType: string,
  staging: StagingArea,
  limits: { maxBodyBytes: number; maxFileBytes: number },
): Promise<MultipartResult> {
  const boundary = multipartBoundary(contentType);
  const stagedPath = join(staging.dir, `upload-${randomBytes(12).toString('hex')}`);
  let file: WriteStream | undefined;
  const early = staging.flushEarly ? new EarlyFlush(stagedPath) : undefined;
  let fileBytes = 0;
  let fileTooLarge = false;
  let files = 0;
  let first: PartInfo | undefined;
  let malformed = boundary === null;
  let bodyBytes = 0;
  let bodyTooLarge = false;

  const dropFile = () => {
    if (!file) return;
    file.destroy();
    file = undefined;
  };

  // Settles once the staging file is closed (its open included): only then can its removal not be overtaken.
  let fileDone: Promise<void> = Promise.resolve();
  const outcome = await new Promise<'done' | Error>((resolve) => {
    let settled = false;
    const settle = (value: 'done' | Error) => {
      if (settled) return;
      settled = true;
      resolve(value);
    };
    const dicer = boundary === null ? undefined : new Dicer({ boundary, maxHeaderPairs: 100, maxHeaderSize: 16 * 1024 });
    if (dicer) {
      dicer.on('part', (part) => {
        part.on('error', () => undefined);
        part.on('header', (header) => {
          const info = readPart(header);
          if (!info.isFile || info.name !== 'file') return void part.resume();
          files++;
          if (files > 1) {
            dropFile();
            return void part.resume();
          }
          first = info;
          // Large buffers: while one write is on the disk, the parts that arrive go out together in one writev.
          const out = createWriteStream(stagedPath, { highWaterMark: STAGING_BUFFER_BYTES });
          file = out;
          // Settles once the staging file is closed and no early flush of it runs.
          fileDone = new Promise((done) => {
            const closed = () => void (early?.settled() ?? Promise.resolve()).then(done);
            out.on('close', closed);
            out.on('error', () => {
              dropFile();
              closed();
            });
          });
          part.on('data', (chunk: Buffer) => {
            fileBytes += chunk.length;
            if (fileBytes > limits.maxFileBytes && !fileTooLarge) {
              fileTooLarge = true;
              dropFile();
            }
            if (!file) return;
            const more = file.write(chunk);
            early?.wrote(chunk.length);
            if (!more) {
              part.pause();
              file.once('drain', () => part.resume());
            }
          });
          part.on('end', () => file?.end());
        });
      });
      dicer.on('error', () => {
        malformed = true;
        // A cut part never ends: its staging file is closed here (400 follows), or the outcome would wait for it forever.
        dropFile();
      });
      dicer.on('finish', () => void fileDone.then(() => settle('done')));
    }
    const reader = new FairReader(source, (chunk) => {
      bodyBytes += chunk.length;
      if (bodyBytes > limits.maxBodyBytes) {
        bodyTooLarge = true;
        reader.stop();
        dropFile();
        settle('done');
        return;
      }
      if (dicer && !malformed && !dicer.write(chunk)) dicer.once('drain', reader.hold());
    });
    source.on('end', () => {
      if (bodyTooLarge) return;
      if (!dicer || malformed) return void settle('done');
      dicer.end();
      // A body that ends before its closing boundary: Dicer reports it (error, then finish).
    });
    // Gone while the access was checked: its events have been emitted already.
    if (source.destroyed || source.readableAborted) settle(new Error('request closed'));
    source.on('error', (error: Error) => settle(error));
    source.on('aborted', () => settle(new Error('request aborted')));
    source.on('close', () => {
      if (!source.readableEnded && !bodyTooLarge) settle(new Error('request closed'));
    });
  });

  const refuse = async (status: 400 | 413, message: string, unread = false): Promise<MultipartResult> => {
    dropFile();
    await fileDone;
    await unlink(stagedPath).catch(() => undefined);
    return unread ? { ok: false, status, message, unread } : { ok: false, status, message };
  };
  if (outcome instanceof Error) {
    await refuse(400, MULTIPART_MESSAGES.invalid);
    throw outcome;
  }
  // D47 step 7, in order.
  if (bodyTooLarge) return refuse(413, tooLargeMessage(limits.maxFileBytes), true);
  if (malformed) return refuse(400, MULTIPART_MESSAGES.invalid);
  if (files === 0) return refuse(400, MULTIPART_MESSAGES.fileRequired);
  if (files > 1) return refuse(400, MULTIPART_MESSAGES.oneFile);
  const fileName = normalizeFileName(first!.fileName);
  if (fileName === null) return refuse(400, FILE_NAME_MESSAGE);
  if (fileTooLarge) return refuse(413, tooLargeMessage(limits.maxFileBytes));
  return { ok: true, fileName, mimeType: first!.mimeType, size: fileBytes, stagedPath };
}
