import { PassThrough } from 'stream';

import { FairReader, SLICE_BYTES } from './fair-reader';

/** A body whose `count` chunks of `size` bytes are all buffered already (a fast client). */
function buffered(count: number, size: number): PassThrough {
  const source = new PassThrough({ highWaterMark: count * size + 1 });
  for (let i = 0; i < count; i++) source.write(Buffer.alloc(size, i));
  source.end();
  return source;
}

/** Turns of the event loop (setImmediate) while `run` goes on: `turn()` tells which turn it is. */
function loopTurns(): { turn: () => number; stop: () => void } {
  let turns = 0;
  let running = true;
  const tick = () => {
    turns++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return { turn: () => turns, stop: () => (running = false) };
}

const ended = (source: PassThrough) => new Promise((done) => source.once('end', done));

describe('FairReader (issue 36)', () => {
  it('reads at most one slice per turn of the event loop, however much is buffered', async () => {
    const source = buffered(8, SLICE_BYTES);
    const loop = loopTurns();
    const turns: number[] = [];
    new FairReader(source, () => turns.push(loop.turn()));
    await ended(source);
    loop.stop();
    expect(turns).toHaveLength(8);
    // Each slice in a turn of its own: other requests' callbacks run between them.
    expect(new Set(turns).size).toBe(8);
  });

  it('small chunks go together up to a slice', async () => {
    const source = buffered(16, SLICE_BYTES / 4);
    const loop = loopTurns();
    const turns: number[] = [];
    new FairReader(source, () => turns.push(loop.turn()));
    await ended(source);
    loop.stop();
    expect(new Set(turns).size).toBe(4);
  });

  it('a hold pauses the body until it is released, with the slice wait too', async () => {
    const source = buffered(4, 1024);
    const chunks: Buffer[] = [];
    let release: (() => void) | undefined;
    const reader = new FairReader(source, (chunk) => {
      chunks.push(chunk);
      if (chunks.length === 1) release = reader.hold();
    });
    await new Promise((done) => setTimeout(done, 20));
    expect(chunks).toHaveLength(1);
    release!();
    release!(); // once only
    await ended(source);
    expect(chunks).toHaveLength(4);
  });

  it('after stop, no chunk is read', async () => {
    const source = buffered(4, 1024);
    const chunks: Buffer[] = [];
    const reader = new FairReader(source, (chunk) => {
      chunks.push(chunk);
      reader.stop();
    });
    await new Promise((done) => setTimeout(done, 20));
    expect(chunks).toHaveLength(1);
    expect(source.isPaused()).toBe(true);
  });
});
