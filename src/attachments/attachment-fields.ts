import { BadRequestException, PayloadTooLargeException } from '@nestjs/common';

/** D47: the 413 of a file (or a multipart body) over ATTACHMENT_MAX_BYTES. */
export const tooLargeMessage = (maxBytes: number | string): string => `Attachment is too large (at most ${maxBytes} bytes)`;

/** D47's body messages. */
export const FILE_NAME_MESSAGE = 'file_name must be 1 to 255 characters';
export const ATTACHMENT_MESSAGES = {
  fileNameRequired: 'file_name is required',
  fileName: FILE_NAME_MESSAGE,
  fileSize: 'file_size must be a non-negative integer',
  mimeType: 'mime_type must be a MIME type such as application/pdf',
  contentType: 'Content-Type must be application/json or multipart/form-data',
  quota: 'Workspace storage quota exceeded',
  incomplete: 'Upload is missing or incomplete',
  uploadSize: (size: number | string) => `Upload must be exactly ${size} bytes`,
  link: 'Link is invalid or has expired',
  range: 'Range not satisfiable',
} as const;

/** D47: a MIME type `type/subtype`, lower-cased, without parameters. */
const MIME_PATTERN = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;

/** D47: the type a part's (or a declaration's) text names: lower-cased, parameters dropped; null when it is not one. */
export function mimeTypeOf(text: string): string | null {
  const type = text.split(';')[0].trim().toLowerCase();
  return MIME_PATTERN.test(type) ? type : null;
}

/** D47: a multipart file part's type: its Content-Type when it names one, else `application/octet-stream`. */
export function partMimeType(header: string | undefined): string {
  return (header !== undefined && mimeTypeOf(header)) || 'application/octet-stream';
}

/** Unicode Cc (control) characters, removed from file names. */
const CONTROL = /\p{Cc}/gu;

/**
 * D47 `file_name`: the text after the last `/` or `\`, Unicode Cc characters removed,
 * trimmed; null unless 1 to 255 characters (code points) remain.
 */
export function normalizeFileName(raw: string): string | null {
  const base = raw.slice(Math.max(raw.lastIndexOf('/'), raw.lastIndexOf('\\')) + 1);
  const name = base.replace(CONTROL, '').trim();
  const length = [...name].length;
  return length >= 1 && length <= 255 ? name : null;
}

/** A checked JSON declaration (D47). */
export interface Declaration {
  fileName: string;
  fileSize: number;
  mimeType: string;
}

/**
 * D47: the JSON form `{ file_name, file_size, mime_type }`, checked in that order
 * (400s), then the size against `maxBytes` (413).
 */
export function parseDeclaration(body: Record<string, unknown>, maxBytes: number): Declaration {
  const rawName = body.file_name;
  if (typeof rawName !== 'string') throw new BadRequestException(ATTACHMENT_MESSAGES.fileNameRequired);
  const fileName = normalizeFileName(rawName);
  if (fileName === null) throw new BadRequestException(ATTACHMENT_MESSAGES.fileName);
  const fileSize = body.file_size;
  if (typeof fileSize !== 'number' || !Number.isInteger(fileSize) || fileSize < 0) throw new BadRequestException(ATTACHMENT_MESSAGES.fileSize);
  const rawType = body.mime_type;
  const mimeType = typeof rawType === 'string' && [...rawType].length <= 255 ? mimeTypeOf(rawType) : null;
  if (mimeType === null) throw new BadRequestException(ATTACHMENT_MESSAGES.mimeType);
  if (fileSize > maxBytes) throw new PayloadTooLargeException(tooLargeMessage(maxBytes));
  return { fileName, fileSize, mimeType };
}
