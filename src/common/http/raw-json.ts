import type { FastifyInstance } from 'fastify';

/**
 * A response body that is already JSON text, built by PostgreSQL: it is
 * written to the socket as is, with `application/json`, instead of being parsed
 * by pg into objects and serialized again. `T` is the shape the text holds (for
 * the reader and the handler's signature; the OpenAPI document states it separately).
 */
export class RawJson<T = unknown> {
  /** Never set: carries `T` for the type checker only. */
  declare readonly shape?: T;

  constructor(readonly text: string) {}
}

/**
 * Makes Fastify send RawJson bodies as their text; every other body is
 * serialized with JSON.stringify, as before. Call before the routes are registered.
 */
export function sendRawJsonAsIs(fastify: FastifyInstance): void {
  fastify.setReplySerializer((payload) => (payload instanceof RawJson ? payload.text : JSON.stringify(payload)));
}

/**
 * Wraps a row query so that PostgreSQL returns its rows as one JSON array text
 * (column `json`; `[]` when none), in the query's own order: a subquery with
 * ORDER BY is the only input of json_agg, so its rows arrive in that order.
 */
export function jsonArraySql(rowsQuery: string): string {
  return `SELECT COALESCE(json_agg(r), '[]')::text AS json FROM (${rowsQuery}) r`;
}
