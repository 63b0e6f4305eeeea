import { Client } from 'pg';
import { BACKGROUND_STATEMENT } from '../../src/common/background/periodic';

/** The SQL statements sent while a block ran, in order. */
export interface Recorded<T> {
  result: T;
  statements: string[];
}

/**
 * Counts SQL round trips: every `query` call on a `pg` Client (the driver under
 * TypeORM's pool) is one statement sent and answered. It wraps
 * `Client.prototype.query` of the `pg` module instance this file imports; in a
 * Jest test file that is the very instance the app under test uses (one module
 * registry per file), so the app's statements are seen. A pass-through spy, not
 * a mock: the statements still run.
 *
 * Install once per file (beforeAll), `record()` around the requests to measure
 * (nothing else may hit the database meanwhile), `uninstall()` in afterAll.
 */
export class QueryCounter {
  private original: typeof Client.prototype.query | null = null;
  private recording: string[] | null = null;

  /** Starts watching every Client of the `pg` module. */
  install(): this {
    if (this.original) return this;
    const original = Client.prototype.query;
    this.original = original;
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const counter = this;
    Client.prototype.query = function (this: Client, ...args: unknown[]) {
      if (counter.recording) {
        const first = args[0] as string | { text?: string } | undefined;
        const text = typeof first === 'string' ? first : (first?.text ?? String(first));
        // A background job's statement (LastUsedRecorder's flush, say) is no request's round trip.
        if (!text.startsWith(BACKGROUND_STATEMENT)) counter.recording.push(text);
      }
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof Client.prototype.query;
    return this;
  }

  /** Puts the original `query` back. */
  uninstall(): void {
    if (this.original) Client.prototype.query = this.original;
    this.original = null;
  }

  /** Runs `fn` and returns its result with the statements sent to PostgreSQL while it ran. */
  async record<T>(fn: () => Promise<T>): Promise<Recorded<T>> {
    if (!this.original) throw new Error('QueryCounter: install() first');
    if (this.recording) throw new Error('QueryCounter: record() calls must not overlap');
    const statements: string[] = [];
    this.recording = statements;
    try {
      return { result: await fn(), statements };
    } finally {
      this.recording = null;
    }
  }
}
