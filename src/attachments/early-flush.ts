import { syncFile } from './storage/local-storage';

/** Bytes handed to a staging file between two early flushes (EarlyFlush). */
export const EARLY_FLUSH_BYTES = 4 * 1024 * 1024;

/**
 * Starts writing a staging file's bytes to disk while the rest of the upload is still arriving:
 * after every EARLY_FLUSH_BYTES handed to the file, one `fdatasync` of it, at most one at a
 * time, on a descriptor of its own (the writer's stays the writer's). The flush that makes an
 * upload durable before its row commits (LocalStorage.store) then finds at most the last few MiB
 * still to write, instead of the whole file. A failed early flush changes nothing: that last flush
 * is the one that counts, and reports the failure.
 */
export class EarlyFlush {
  private handed = 0;
  private flushedAt = 0;
  private running: Promise<void> | null = null;
  private started = 0;

  /** `step`: bytes between two flushes (EARLY_FLUSH_BYTES; smaller in tests). */
  constructor(
    private readonly path: string,
    private readonly step = EARLY_FLUSH_BYTES,
  ) {}

  /** Early flushes started so far. */
  get flushes(): number {
    return this.started;
  }

  /** `bytes` more were handed to the file's writer. */
  wrote(bytes: number): void {
    this.handed += bytes;
    if (this.running || this.handed - this.flushedAt < this.step) return;
    this.flushedAt = this.handed;
    this.started++;
    this.running = syncFile(this.path, 'r+')
      .catch(() => undefined)
      .finally(() => {
        this.running = null;
      });
  }

  /** Settles once no early flush runs (call before answering, so that none outlives its request). */
  async settled(): Promise<void> {
    await this.running;
  }
}
