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
 * `pass` answers at once while the queue has work, and while it is idle (a look came back empty
 * and no job started since) lets one look through per `intervalMs` and holds the others until the
 * queue is told of work: a job starts (`busy`), a new job is announced (`busy`), or the runner is
 * taken out of service (`close`). A job this process puts off or schedules (a retry) is announced
 * by `dueIn`: the held workers look when it falls due. Other jobs that fall due later (another
 * process's retries) are found by the one look per interval, at most an interval late.
 */
export class IdlePollGate {
  /** A look came back empty and no job started since. */
  private idle = false;
  /** When a worker last passed while the queue was idle (ms, `now()`). */
  private lastLook = -Infinity;
  /** Workers held back, each resumed with its flags as they are when it goes on. */
  private held: Array<() => void> = [];
  private closed = false;
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
    return new Promise<T>((resolve) => this.held.push(() => resolve(flags())));
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

  /** How many workers are held now. */
  get holding(): number {
    return this.held.length;
  }

  private release(): void {
    const held = this.held;
    this.held = [];
    for (const go of held) go();
  }
}
