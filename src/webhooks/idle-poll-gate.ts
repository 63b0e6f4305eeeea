/** Due instants of `dueIn` are rounded up to this (ms): jobs falling due together share one wake-up. */
const WAKE_GRAIN_MS = 10;
/** `dueIn` sets a wake-up only for jobs due within this many poll intervals (at most this times intervalMs / WAKE_GRAIN_MS timers). */
const WAKE_HORIZON = 10;

/**
 * Lets one idle worker of the job queue look for a job per interval, instead of each of them.
 *
 * graphile-worker's workers look for a job on their own: a worker whose look came back empty looks
 * again `pollInterval` later, so an idle process with 20 workers ran 20 statements a second (about
 * half of its idle CPU). The queue asks for each worker's forbidden flags right before it looks;
 * `pass` answers at once while the queue has work. While it is idle (a look came back empty and no
 * job started since), a worker passes when no worker looked for an interval; the others are held,
 * and the gate lets the longest held go on one interval after the last look, so that one look per
 * interval is made whatever the workers' own timers do. All held workers go on when the queue is
 * told of work: a job starts (`busy`), a new job is announced (`busy`), a job this process put off
 * or scheduled (a retry) falls due (`dueIn`), or the runner is taken out of service (`close`).
 * Other jobs that fall due later (another process's retries, jobs freed from a dead process) are
 * found by the one look per interval, at most an interval late.
 */
export class IdlePollGate {
  /** A look came back empty and no job started since. */
  private idle = false;
  /** When a worker last passed while the queue was idle (ms, `now()`). */
  private lastLook = -Infinity;
  /** Workers held back, each resumed with its flags as they are when it goes on. */
  private held: Array<() => void> = [];
  private closed = false;
  /** Lets the longest held worker go on one interval after the last look, while any is held. */
  private turn?: NodeJS.Timeout;
  /** Wake-ups for jobs announced by `dueIn`: timer per due instant (ms, rounded up to WAKE_GRAIN_MS). */
  private readonly wakes = new Map<number, NodeJS.Timeout>();

  /** `intervalMs`: the queue's poll interval; `now`: the clock (ms). */
  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The forbidden flags of a worker about to look (`flags()`), at once or once it may look. */
  pass<T>(flags: () => T): T | Promise<T> {
    if (this.closed || !this.idle) return flags();
    const now = this.now();
    if (now - this.lastLook >= this.intervalMs) {
      this.lastLook = now;
      return flags();
    }
    return new Promise<T>((resolve) => {
      this.held.push(() => resolve(flags()));
      this.nextTurn();
    });
  }

  /** A look found no job. */
  empty(): void {
    this.idle = true;
  }

  /** A job started, or new jobs were announced: every held worker looks now. */
  busy(): void {
    this.idle = false;
    this.release();
  }

  /**
   * A job falls due in `ms` (a retry, a job put off): the workers look then, not at the next
   * interval. One due within WAKE_HORIZON intervals only; a later one is found by the look per
   * interval, at most an interval late.
   */
  dueIn(ms: number): void {
    if (this.closed || ms >= this.intervalMs * WAKE_HORIZON) return;
    const now = this.now();
    const at = Math.ceil((now + Math.max(0, ms)) / WAKE_GRAIN_MS) * WAKE_GRAIN_MS;
    if (this.wakes.has(at)) return;
    const timer = setTimeout(() => {
      this.wakes.delete(at);
      this.busy();
    }, at - now);
    timer.unref();
    this.wakes.set(at, timer);
  }

  /** The runner stops: nothing is held any more, and no wake-up is left. */
  close(): void {
    this.closed = true;
    for (const timer of this.wakes.values()) clearTimeout(timer);
    this.wakes.clear();
    this.release();
  }

  /** How many wake-ups `dueIn` has set and not yet fired. */
  get wakeUps(): number {
    return this.wakes.size;
  }

  /** How many workers are held now. */
  get holding(): number {
    return this.held.length;
  }

  /** Sets the timer of the next held worker's turn (one interval after the last look), unless set or none is held. */
  private nextTurn(): void {
    if (this.turn || this.held.length === 0) return;
    this.turn = setTimeout(
      () => {
        this.turn = undefined;
        // A worker back on its own timer may have looked since: the turn waits a whole interval after that look.
        if (this.now() - this.lastLook < this.intervalMs) return this.nextTurn();
        const go = this.held.shift();
        if (!go) return;
        this.lastLook = this.now();
        go();
        this.nextTurn();
      },
      Math.max(0, this.lastLook + this.intervalMs - this.now()),
    );
    this.turn.unref();
  }

  private release(): void {
    clearTimeout(this.turn);
    this.turn = undefined;
    const held = this.held;
    this.held = [];
    for (const go of held) go();
  }
}
