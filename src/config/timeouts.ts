/**
 * Every timeout of the server, in milliseconds, from the environment
 * (README: Configuration; validated and read by loadEnv in env.ts). Nothing waits without bound, neither on a
 * slow client nor on an unreachable database.
 */
export interface Timeouts {
  /** DB_CONNECT_TIMEOUT_MS: opening a PostgreSQL connection, and waiting for a free one in the pool. */
  dbConnect: number;
  /**
   * DB_POOL_IDLE_TIMEOUT_MS: a pooled connection unused for this long is closed; 0 (the default)
   * keeps every connection the pool opened (at most DB_POOL_SIZE). Its prepared statements and
   * PostgreSQL's caches go with a closed one, so a short value makes a burst after a quiet spell
   * pay for new connections (and their first plans) again; and pg arms a timer on each connection
   * handed back to the pool, about 7 us of a get task's CPU.
   */
  dbIdle: number;
  /** DB_STATEMENT_TIMEOUT_MS: one SQL statement (PostgreSQL `statement_timeout`; the client gives up a little later). */
  dbStatement: number;
  /** REQUEST_TIMEOUT_MS: a handler's whole work; past it the request answers 503. */
  request: number;
  /** HTTP_REQUEST_TIMEOUT_MS: receiving a whole request, headers and body; past it 408 and the connection closes. */
  httpRequest: number;
  /** HTTP_IDLE_TIMEOUT_MS: a connection on which nothing moves is closed. */
  httpIdle: number;
  /** SHUTDOWN_TIMEOUT_MS: on SIGTERM, requests in flight may finish within this (D32: 10 s); the rest are cut. */
  shutdown: number;
  /**
   * SHUTDOWN_DELAY_MS: on SIGTERM, readiness answers 503 for this long while the server still accepts
   * and serves, so that a load balancer sees it and stops routing here before the listener closes.
   */
  shutdownDelay: number;
}

/** Defaults of the variables above. */
export const DEFAULT_TIMEOUTS: Timeouts = {
  dbConnect: 5_000,
  dbStatement: 10_000,
  dbIdle: 0,
  request: 15_000,
  httpRequest: 30_000,
  httpIdle: 60_000,
  shutdown: 10_000,
  shutdownDelay: 0,
};
