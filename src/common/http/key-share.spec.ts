import { KeyShare } from './key-share';

describe('KeyShare', () => {
  it('is half the pool, at least 1', () => {
    expect([KeyShare.ofPool(10).limit, KeyShare.ofPool(4).limit, KeyShare.ofPool(1).limit]).toEqual([5, 2, 1]);
  });

  it('runs at most `limit` turns of one key at once, hands ended turns on in arrival order, and leaves other keys alone', async () => {
    const share = new KeyShare(2);
    const started: number[] = [];
    const leaves: Array<() => void> = [];
    const turns = [1, 2, 3, 4].map((n) => share.enter(7).then((leave) => (started.push(n), (leaves[n] = leave))));
    await new Promise((done) => setImmediate(done));
    expect(started).toEqual([1, 2]);
    expect(share.load(7)).toEqual({ active: 2, waiting: 2 });
    // Another key is not held by key 7's queue.
    (await share.enter(8))();
    leaves[2]();
    leaves[2](); // a second call does nothing
    await new Promise((done) => setImmediate(done));
    expect(started).toEqual([1, 2, 3]);
    expect(share.load(7)).toEqual({ active: 2, waiting: 1 });
    leaves[1]();
    await Promise.all(turns);
    expect(started).toEqual([1, 2, 3, 4]);
    leaves[3]();
    leaves[4]();
    expect([share.load(7), share.load(8)]).toEqual([
      { active: 0, waiting: 0 },
      { active: 0, waiting: 0 },
    ]);
  });
});
