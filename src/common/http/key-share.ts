/**
 * A per-API-key share of the database pool (issue 31): at most `limit` write
 * requests of one API key do database work at once; the others wait on their
 * key's own queue (first come, first served), not on the pool, so one key's
 * flood leaves the rest of the pool to every other key.
 */
export class KeyShare {
  private readonly keys = new Map<number, { active: number; waiting: Array<() => void> }>();

  /** `limit`: how many requests of one key run at once (at least 1). */
  constructor(readonly limit: number) {}

  /** Share of a pool of `poolSize` connections one key may use: half of it, at least 1. */
  static ofPool(poolSize: number): KeyShare {
    return new KeyShare(Math.max(1, Math.floor(poolSize / 2)));
  }

  /** Resolves when a request of `key` may start; the function it gives ends that request's turn (calling it again does nothing). */
  async enter(key: number): Promise<() => void> {
    let entry = this.keys.get(key);
    if (!entry) this.keys.set(key, (entry = { active: 0, waiting: [] }));
    const turns = entry;
    // A turn that ends hands its place to the next waiter (active stays as it is).
    if (turns.active >= this.limit) await new Promise<void>((go) => turns.waiting.push(go));
    else turns.active++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = turns.waiting.shift();
      if (next) next();
      else if (--turns.active === 0) this.keys.delete(key);
    };
  }

  /** How many requests of `key` run now and how many wait (for tests and metrics). */
  load(key: number): { active: number; waiting: number } {
    const entry = this.keys.get(key);
    return { active: entry?.active ?? 0, waiting: entry?.waiting.length ?? 0 };
  }
}
