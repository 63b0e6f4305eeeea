import type { Readable } from 'stream';

/** Bytes of one body read in one turn of the event loop before it yields (FairReader). */
export const SLICE_BYTES = 64 * 1024;
/** Bytes a staging file buffers before its writer pauses the body (per upload: bounded memory, few write calls). */
export const STAGING_BUFFER_BYTES = 512 * 1024;

/**
 * Reads a request body chunk by chunk into `onChunk`, a fair share of the event loop at a
 * time: after SLICE_BYTES the body waits for the loop's next turn, so that other requests'
 * callbacks run between the slices of concurrent uploads. `hold` pauses the body for a
 * consumer that is behind (a staging file's drain); the body flows again once every hold
 * and the slice's wait are over. `stop` reads no more of it (the rest stays unread).
 */
export class FairReader {
  private holds = 0;
  private sliced = 0;
  private stopped = false;
  private readonly onData: (chunk: Buffer) => void;

  constructor(
    private readonly source: Readable,
    onChunk: (chunk: Buffer) => void,
  ) {
    this.onData = (chunk) => {
      if (this.stopped) return;
      onChunk(chunk);
      this.sliced += chunk.length;
      if (this.sliced >= SLICE_BYTES && !this.stopped) {
        this.sliced = 0;
        setImmediate(this.hold());
      }
    };
    source.on('data', this.onData);
  }

  /** Pauses the body until the returned function is called (calling it again does nothing). */
  hold(): () => void {
    this.holds++;
    this.source.pause();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.holds === 0 && !this.stopped) this.source.resume();
    };
  }

  /** Reads no more of the body. */
  stop(): void {
    this.stopped = true;
    this.source.pause();
    this.source.removeListener('data', this.onData);
  }
}
