import { randomBytes } from 'crypto';

/** What a link is made for: one attachment's object, with the headers its download answers with. */
export interface LinkTarget {
  attachmentId: number;
  key: string;
  fileName: string;
  mimeType: string;
  fileSize: number;
}

/** D47: where and how a client sends a declared attachment's bytes. */
export interface UploadLink {
  method: 'PUT';
  url: string;
  headers: Record<string, string>;
}

/**
 * Where attachment bytes live (D47: `STORAGE_DRIVER`). Objects are named by
 * random keys (newObjectKey), never by anything a client sent. Bytes are first
 * written whole to a staging file of the process (stagingDir), then stored
 * under their key in one step: no partial object is ever visible.
 */
export interface ObjectStorage {
  /** A directory for staging files, on the same file system as the objects when the driver keeps them on disk. */
  readonly stagingDir: string;
  /** Makes the staging file `stagedPath` (of `size` bytes) the object `key`, replacing any; the staging file is gone afterwards. */
  store(key: string, stagedPath: string, size: number): Promise<void>;
  /** The stored size of object `key`, or null when there is none. */
  size(key: string): Promise<number | null>;
  /**
   * D47 confirm: makes the bytes a declared upload stored under `key` final (confirmed bytes
   * never change) and tells their size; null when nothing is stored under `key`. Drivers whose
   * upload links outlive the confirm (`sealsByCopy`: a presigned PUT stays valid until it
   * expires) copy the bytes to `finalKey`, which no link names, and answer it; the others
   * answer `key` (their links are refused once the row is confirmed).
   */
  seal(key: string, finalKey: string): Promise<{ key: string; size: number } | null>;
  /** True when seal writes a new object under `finalKey` (its caller queues an intent for it first). */
  readonly sealsByCopy: boolean;
  /** Removes object `key`; no error when there is none. */
  remove(key: string): Promise<void>;
  /** The link a client PUTs the bytes of `target` to, until `expiresAt`. */
  uploadLink(target: LinkTarget, expiresAt: Date): Promise<UploadLink>;
  /** The link that answers the bytes of `target` until `expiresAt`, with D47's headers. */
  downloadUrl(target: LinkTarget, expiresAt: Date): Promise<string>;
}

/** Nest injection token of the ObjectStorage of the configured driver. */
export const OBJECT_STORAGE = Symbol('ObjectStorage');

/** A new object key: 128 random bits as 32 lower-case hex digits. */
export function newObjectKey(): string {
  return randomBytes(16).toString('hex');
}

/** True when `key` has the form newObjectKey gives: the only keys any driver accepts, so no other text reaches a path or a bucket. */
export function isObjectKey(key: unknown): key is string {
  return typeof key === 'string' && /^[0-9a-f]{32}$/.test(key);
}

/** Thrown by a driver given a key that isNotObjectKey: a bug, never a client's doing. */
export function requireObjectKey(key: string): string {
  if (!isObjectKey(key)) throw new Error('not an object key');
  return key;
}
