/**
 * Every timeout of the server, in milliseconds, read from the environment
 * (README: Configuration). Issue 8: nothing waits without bound, neither on a
 * slow client nor on an unreachable database.
 */
export interface Timeouts {
  /** DB_CONNECT_TIMEOUT_MS: opening a PostgreSQL connection, and waiting for a free one in the pool. */
  dbConnect: number;
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
}

/** Defaults of the variables above. */
export const DEFAULT_TIMEOUTS: Timeouts = {
  dbConnect: 5_000,
  dbStatement: 10_000,
  request: 15_000,
  httpRequest: 30_000,
  httpIdle: 60_000,
  shutdown: 10_000,
};

const VARIABLES: Record<keyof Timeouts, string> = {
  dbConnect: 'DB_CONNECT_TIMEOUT_MS',
  dbStatement: 'DB_STATEMENT_TIMEOUT_MS',
  request: 'REQUEST_TIMEOUT_MS',
  httpRequest: 'HTTP_REQUEST_TIMEOUT_MS',
  httpIdle: 'HTTP_IDLE_TIMEOUT_MS',
  shutdown: 'SHUTDOWN_TIMEOUT_MS',
};

/**
 * The timeouts from `env`: each a positive integer of milliseconds, else its default.
 * @throws Error naming the variable when one is set but not a positive integer
 */
export function readTimeouts(env: NodeJS.ProcessEnv = process.env): Timeouts {
  const result = { ...DEFAULT_TIMEOUTS };
  for (const key of Object.keys(VARIABLES) as (keyof Timeouts)[]) {
    const raw = env[VARIABLES[key]];
    if (raw === undefined || raw.trim() === '') continue;
    if (!/^[0-9]+$/.test(raw.trim()) || Number(raw) <= 0) throw new Error(`${VARIABLES[key]} must be a positive number of milliseconds`);
    result[key] = Number(raw);
  }
  return result;
}
