/**
 * Lets one idle worker of the job queue look for a job per interval, instead of each of them.
 *
 * graphile-worker's workers look for a job on their own: a worker whose look came back empty looks
 * again `pollInterval` later, so an idle process with 20 workers ran 20 statements a second (about
 * half of its idle CPU). The queue asks for each worker's forbidden flags right before it looks;
 * `pass` answers at once while the queue has work, and while it is idle (a look came back empty
 * and no job started since) lets one look through per `intervalMs` and holds the others until the
 * queue is told of work: a job starts (`busy`), a new job is announced (`busy`), or the runner is
 * taken out of service (`close`). Jobs that fall due later (retries, put-off jobs) are found by the
 * one look per interval, as before by the first of the twenty.
 */
export class IdlePollGate {
  /** A look came back empty and no job started since. */
  private idle = false;
  /** When a worker last passed while the queue was idle (ms, `now()`). */
  private lastLook = -Infinity;
  /** Workers held back, each resumed with its flags as they are when it goes on. */
  private held: Array<() => void> = [];
  private closed = false;

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

  /** The runner stops: nothing is held any more. */
  close(): void {
    this.closed = true;
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
