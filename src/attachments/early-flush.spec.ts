import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'fs';
import { unlink } from 'fs/promises';
import { tmpdir } from 'os';
import { join } from 'path';

import { attachmentStaging } from '../common/http/streamed-body';
import { EARLY_FLUSH_BYTES, EarlyFlush } from './early-flush';

const KiB = 1024;

describe('EarlyFlush (issue 36)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'early-flush-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('flushes every EARLY_FLUSH_BYTES handed to the file, never below', async () => {
    const early = new EarlyFlush(join(dir, 'none'));
    early.wrote(EARLY_FLUSH_BYTES - 1);
    expect(early.flushes).toBe(0);
    early.wrote(1);
    expect(early.flushes).toBe(1);
    await early.settled();
    early.wrote(EARLY_FLUSH_BYTES - 1);
    expect(early.flushes).toBe(1);
    early.wrote(1);
    expect(early.flushes).toBe(2);
    await early.settled();
  });

  it('runs one flush at a time: bytes handed meanwhile wait for the next one', async () => {
    const path = join(dir, 'file');
    const out = createWriteStream(path);
    const early = new EarlyFlush(path, 64 * KiB);
    out.write(Buffer.alloc(64 * KiB));
    early.wrote(64 * KiB);
    early.wrote(64 * KiB);
    early.wrote(64 * KiB);
    expect(early.flushes).toBe(1);
    await early.settled();
    early.wrote(1);
    // Everything handed since the first flush began counts towards the second.
    expect(early.flushes).toBe(2);
    await early.settled();
    await new Promise<void>((done) => out.end(done));
  });

  it('a file written through a stream while it is flushed keeps every byte, in order', async () => {
    const path = join(dir, 'file');
    const out = createWriteStream(path, { highWaterMark: 256 * KiB });
    const early = new EarlyFlush(path, 256 * KiB);
    const chunks = Array.from({ length: 40 }, (_, i) => Buffer.alloc(64 * KiB, i));
    for (const [i, chunk] of chunks.entries()) {
      if (!out.write(chunk)) await new Promise<void>((done) => out.once('drain', () => done()));
      early.wrote(chunk.length);
      // Halfway, the first flush is let finish (on a loaded machine it may outlast every write), so
      // that a second one starts while the second half is written, whatever the disk's speed.
      if (i === chunks.length / 2) await early.settled();
    }
    await new Promise<void>((done) => out.end(done));
    await early.settled();
    expect(early.flushes).toBeGreaterThanOrEqual(2);
    expect(readFileSync(path).equals(Buffer.concat(chunks))).toBe(true);
  });

  it('a flush that fails (the file not there yet, or removed meanwhile) changes nothing and settles', async () => {
    const missing = new EarlyFlush(join(dir, 'never-made'), 1);
    missing.wrote(1);
    await expect(missing.settled()).resolves.toBeUndefined();

    const path = join(dir, 'removed');
    const out = createWriteStream(path);
    await new Promise<void>((done) => out.end(Buffer.alloc(KiB), done));
    const early = new EarlyFlush(path, 1);
    early.wrote(KiB);
    await unlink(path);
    await expect(early.settled()).resolves.toBeUndefined();
  });

  it('only the local driver, whose objects are the staged files, flushes them early', () => {
    expect(attachmentStaging({ dir: '/data', driver: 'local' })).toEqual({ dir: join('/data', 'tmp'), flushEarly: true });
    expect(attachmentStaging({ dir: '/data', driver: 's3' })).toEqual({ dir: join('/data', 'tmp'), flushEarly: false });
  });
});
