import { IdlePollGate } from './idle-poll-gate';

describe('IdlePollGate', () => {
  let clock = 0;
  const gate = () => new IdlePollGate(1_000, () => clock);
  const settled = async (value: unknown) => {
    let done = false;
    void Promise.resolve(value).then(() => (done = true));
    await new Promise((resolve) => setImmediate(resolve));
    return done;
  };

  beforeEach(() => (clock = 0));

  it('answers at once while the queue has work', () => {
    const g = gate();
    expect([g.pass(() => ['a']), g.pass(() => null), g.holding]).toEqual([['a'], null, 0]);
  });

  it('idle: one look per interval goes through, the others are held until work arrives, each with its flags then', async () => {
    const g = gate();
    g.empty();
    let flags: string[] | null = null;
    expect(g.pass(() => flags)).toBeNull();
    clock = 500;
    const held = [g.pass(() => flags), g.pass(() => flags)];
    expect([g.holding, await settled(held[0])]).toEqual([2, false]);
    clock = 1_000;
    expect(g.pass(() => flags)).toBeNull();
    flags = ['webhook:1'];
    g.busy();
    expect([await Promise.all(held), g.holding]).toEqual([[['webhook:1'], ['webhook:1']], 0]);
    // Busy again: everyone looks until a look comes back empty.
    expect(g.pass(() => flags)).toEqual(['webhook:1']);
  });

  describe('on its timers (fake: the clock moves only when a test moves it)', () => {
    // settled() waits for setImmediate: only the timers and the clock are faked. The clock starts on a
    // multiple of the gate's 10 ms grain, so that a wake-up due in 30 ms is due at +30, not rounded up past it.
    beforeEach(() => jest.useFakeTimers({ now: 0, doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] }));
    afterEach(() => jest.useRealTimers());

    it('a job announced by dueIn lets the held workers look when it falls due, not at the next interval', async () => {
      const g = new IdlePollGate(60_000);
      g.empty();
      g.pass(() => null);
      const held = g.pass(() => ['webhook:2']);
      g.dueIn(30);
      await jest.advanceTimersByTimeAsync(29);
      expect([await settled(held), g.holding]).toEqual([false, 1]);
      await jest.advanceTimersByTimeAsync(1);
      expect([await settled(held), g.holding]).toEqual([true, 0]);
    });

    it('while workers are held, the gate itself lets the longest held look one interval after the last look, even when no worker comes back to look', async () => {
      const g = new IdlePollGate(30);
      g.empty();
      expect(g.pass(() => 'first')).toBe('first');
      // Every worker is held now (the first one's own timer is not needed for anyone to look again).
      const held = [g.pass(() => 'a'), g.pass(() => 'b')];
      await jest.advanceTimersByTimeAsync(29);
      expect([await settled(held[0]), g.holding]).toEqual([false, 2]);
      await jest.advanceTimersByTimeAsync(1);
      expect([await settled(held[0]), await settled(held[1]), g.holding]).toEqual([true, false, 1]);
      await jest.advanceTimersByTimeAsync(29);
      expect([await settled(held[1]), g.holding]).toEqual([false, 1]);
      await jest.advanceTimersByTimeAsync(1);
      expect([await Promise.all(held), g.holding]).toEqual([['a', 'b'], 0]);
    });
  });

  it('dueIn sets a wake-up only within ten intervals (the look per interval finds a later job), one per instant; close clears them', () => {
    const g = new IdlePollGate(1_000, () => clock);
    g.dueIn(10_000);
    expect(g.wakeUps).toBe(0);
    g.dueIn(9_999);
    g.dueIn(9_995);
    g.dueIn(20);
    expect(g.wakeUps).toBe(2);
    g.close();
    expect(g.wakeUps).toBe(0);
  });

  it('close lets every held worker go, and holds nothing after', async () => {
    const g = gate();
    g.empty();
    g.pass(() => null);
    const held = g.pass(() => null);
    g.close();
    expect([await held, g.pass(() => null), g.holding]).toEqual([null, null, 0]);
  });
});
