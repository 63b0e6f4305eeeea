import { Client } from 'pg';
import type { DataSourceOptions } from 'typeorm';

import type { Timeouts } from '../../config/timeouts';

/** What pg answers when a statement gets no reply within `query_timeout`. */
const READ_TIMEOUT_MESSAGE = 'Query read timeout';

/** A pg Client class (pg's own, or one of ours such as the prepared-statement client). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ClientClass = new (...args: any[]) => Client;

/**
 * `Base` made to never end the process by a lost connection (an `error` listener on
 * every client), and to close its connection when a statement times out on the
 * client side (a database behind a silent network). pg only stops
 * waiting: the connection stays busy with the lost statement, and the pool
 * would hand it out again (TypeORM releases it without an error), so every
 * later statement on it would time out too. A client that is ending is
 * discarded by the pool on release, which then opens a fresh one.
 */
export function timeoutSafe<T extends ClientClass>(Base: T): T {
  return class TimeoutSafeClient extends Base {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    constructor(...args: any[]) {
      super(...args);
      // Every connection of the pool hears its own failure (terminated, reset), whoever holds it:
      // an `error` event nobody listens to would end the process. The pool still drops it when idle,
      // and its holder learns of the failure from its statement (503).
      this.on('error', () => undefined);
    }

    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    override query(...args: any[]): any {
      const result = (super.query as (...a: unknown[]) => unknown)(...args);
      if (typeof (result as Promise<unknown> | undefined)?.then === 'function') {
        (result as Promise<unknown>).catch((error: Error) => {
          if (error?.message === READ_TIMEOUT_MESSAGE) this.end().catch(() => undefined);
        });
      }
      return result;
    }
  };
}

/**
 * Pool options that bound every wait on PostgreSQL, for the serving
 * app: connecting and waiting for a pooled connection (`dbConnect`), each
 * statement on the server (`statement_timeout`) and on the client (a second
 * later, for a server that does not answer at all), TCP keep-alive; and how long an
 * unused connection is kept (`dbIdle`, 0 for always: pg's 10 s default threw away prepared
 * statements and warm backends between bursts). `Base` is the
 * client class the options already name (prepared statements), made timeout-safe.
 */
export function boundedPoolOptions(timeouts: Timeouts, Base: ClientClass = Client): Record<string, unknown> {
  return {
    connectionTimeoutMillis: timeouts.dbConnect,
    idleTimeoutMillis: timeouts.dbIdle,
    statement_timeout: timeouts.dbStatement,
    query_timeout: timeouts.dbStatement + 1_000,
    keepAlive: true,
    Client: timeoutSafe(Base),
  };
}

/** `options` with the bounded pool options of the serving app added to its `extra`. */
export function withBoundedWaits(options: DataSourceOptions, timeouts: Timeouts): DataSourceOptions {
  const extra = (options as { extra?: Record<string, unknown> }).extra ?? {};
  return { ...options, extra: { ...extra, ...boundedPoolOptions(timeouts, (extra.Client as ClientClass | undefined) ?? Client) } } as DataSourceOptions;
}
