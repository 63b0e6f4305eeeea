import { mkdirSync } from 'fs';
import { open, rename, stat, unlink } from 'fs/promises';
import { dirname, join } from 'path';

import { stagingDirOf } from '../../common/http/streamed-body';
import type { LinkSigner } from './signed-links';
import { LinkTarget, ObjectStorage, requireObjectKey, UploadLink } from './storage';

/**
 * D47's `local` driver: objects are files under STORAGE_DIR (`objects/<2 hex>/<key>`), staged
 * in `tmp/` beside them (one file system, so storing is a rename). Its links point at this
 * service's `/files/` routes (files.routes.ts), signed by `links`, under `publicUrl`.
 */
export class LocalStorage implements ObjectStorage {
  readonly stagingDir: string;
  private readonly objectsDir: string;

  constructor(
    dir: string,
    private readonly publicUrl: string,
    private readonly links: LinkSigner,
  ) {
    this.stagingDir = stagingDirOf(dir);
    this.objectsDir = join(dir, 'objects');
    mkdirSync(this.stagingDir, { recursive: true });
    // The 256 directories of the keys' first two hex digits, made once: storing is one rename.
    for (let i = 0; i < 256; i++) mkdirSync(join(this.objectsDir, i.toString(16).padStart(2, '0')), { recursive: true });
  }

  /** The file of object `key` (a checked key: no client text ever reaches this path). */
  pathOf(key: string): string {
    requireObjectKey(key);
    return join(this.objectsDir, key.slice(0, 2), key);
  }

  /**
   * Moves the staged file into place, durably: its bytes are flushed to disk before the rename, and the
   * directory entry after it, so that the row the caller then commits never names a file an operating
   * system crash could leave empty or missing (about 0.5 ms per MiB on an SSD; an upload's
   * staging file was mostly flushed while it was written, EarlyFlush).
   */
  async store(key: string, stagedPath: string): Promise<void> {
    const path = this.pathOf(key);
    await syncFile(stagedPath, 'r+');
    try {
      await rename(stagedPath, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      mkdirSync(join(this.objectsDir, key.slice(0, 2)), { recursive: true });
      await rename(stagedPath, path);
    }
    await syncFile(dirname(path), 'r');
  }

  async size(key: string): Promise<number | null> {
    try {
      return (await stat(this.pathOf(key))).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  /** The local links go through the row: an upload link is refused once it is confirmed, so the bytes stay where they are. */
  readonly sealsByCopy = false;

  async seal(key: string): Promise<{ key: string; size: number } | null> {
    const size = await this.size(key);
    return size === null ? null : { key, size };
  }

  async remove(key: string): Promise<void> {
    await unlink(this.pathOf(key)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }

  async uploadLink(target: LinkTarget, expiresAt: Date): Promise<UploadLink> {
    return { method: 'PUT', url: this.publicUrl + this.links.path(target.attachmentId, 'upload', expiresAt), headers: {} };
  }

  async downloadUrl(target: LinkTarget, expiresAt: Date): Promise<string> {
    return this.publicUrl + this.links.path(target.attachmentId, 'download', expiresAt);
  }
}

/** Flushes `path` (a file, or with flags `r` a directory) to disk. */
export async function syncFile(path: string, flags: 'r' | 'r+'): Promise<void> {
  const handle = await open(path, flags);
  try {
    await (flags === 'r' ? handle.sync() : handle.datasync());
  } finally {
    await handle.close();
  }
}
