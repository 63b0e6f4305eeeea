/*
 * PostgreSQL and pg failures sorted by what the client should hear.
 * Errors come from the pg driver directly or wrapped by TypeORM (`driverError`).
 */

/** The pg driver's error inside `error` (TypeORM's QueryFailedError wraps it), else `error` itself. */
function driverOf(error: unknown): { code?: unknown; constraint?: unknown; message?: unknown } | null {
  if (typeof error !== 'object' || error === null) return null;
  const e = error as { driverError?: unknown };
  return (typeof e.driverError === 'object' && e.driverError !== null ? e.driverError : error) as { code?: unknown };
}

/** The SQLSTATE (or Node errno code) of a database error, else undefined. */
export function pgCode(error: unknown): string | undefined {
  const code = driverOf(error)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The constraint a PostgreSQL error names, else undefined. */
export function pgConstraint(error: unknown): string | undefined {
  const constraint = driverOf(error)?.constraint;
  return typeof constraint === 'string' ? constraint : undefined;
}

/** SQLSTATEs of a write that lost a race and may simply be run again: foreign-key violation, serialization failure, deadlock. */
const RACE_CODES = new Set(['23503', '40001', '40P01']);

/**
 * True when `error` means the operation lost a race with another transaction
 * (a row it points at was deleted meanwhile, a serialization failure, a
 * deadlock). Its transaction was rolled back, so running it again is safe.
 */
export function isLostRace(error: unknown): boolean {
  return RACE_CODES.has(pgCode(error) ?? '');
}

/** SQLSTATEs meaning the database cannot serve now: shutting down, starting, out of connections, statement timed out. */
const UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '57014', '53300', '53400', '55P03', '40001', '40P01']);
/** Node socket errors on the way to the database. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);
/** pg's own errors, which carry no code: connection lost or timed out. */
const PG_CONNECTION_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Client was closed|Connection closed)/;

/**
 * True when `error` says the database is unreachable or cannot answer now
 * (connection refused, lost or timed out, server shutting down, statement
 * timeout, a race that lost twice): the request gets 503, never 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const driver = driverOf(error);
  // Not `instanceof Error`: Node's socket errors come from another realm under test runners.
  if (typeof driver?.message !== 'string') return false;
  const code = pgCode(error);
  if (code !== undefined && (UNAVAILABLE_CODES.has(code) || code.startsWith('08') || SOCKET_CODES.has(code))) return true;
  return PG_CONNECTION_MESSAGES.test(driver.message);
}

/**
 * SQLSTATEs of a named prepared statement the server connection does not hold as
 * the client believes: 42P05 duplicate_prepared_statement (`prepared statement
 * "q_…" already exists`), 26000 invalid_sql_statement_name (`… does not exist`).
 */
const LOST_PREPARED_CODES = new Set(['42P05', '26000']);

/**
 * What the operator is told, once, when `isLostPreparedStatement`:
 * a pooler hands each transaction another server connection, which does not
 * have the statements this connection prepared (or has another's).
 */
export const POOLER_PREPARED_HINT =
  'The database connection goes through a pooler that cannot keep prepared statements (PgBouncer in transaction mode before 1.21?): set DB_PREPARED_STATEMENTS=false';

/** True when `error` is a named prepared statement missing from, or already on, the server connection (LOST_PREPARED_CODES). */
export function isLostPreparedStatement(error: unknown): boolean {
  return LOST_PREPARED_CODES.has(pgCode(error) ?? '');
}
