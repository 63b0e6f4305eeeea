import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The requests each server is serving now, in arrival order. */
const tracked = new WeakMap<FastifyInstance, Set<FastifyRequest>>();

/**
 * The set of requests `fastify` is serving (from arrival until answered or
 * aborted), for the shutdown of D32 (a drain that times out says what
 * it cuts). The HTTP layer's hooks add and delete them (http.setup.ts).
 */
export function inFlight(fastify: FastifyInstance): Set<FastifyRequest> {
  let requests = tracked.get(fastify);
  if (!requests) tracked.set(fastify, (requests = new Set()));
  return requests;
}

/** The requests in flight on `fastify` (`METHOD path #id`), oldest first; [] when it is not tracked. */
export function requestsInFlight(fastify: FastifyInstance): string[] {
  return [...(tracked.get(fastify) ?? [])].map((r) => `${r.method} ${r.url.split('?')[0]} #${r.id}`);
}

/** The log line of a shutdown that cut `requests` after waiting `ms` (D32). */
export function describeCut(requests: string[], ms: number): string {
  const shown = requests.slice(0, 10).join(', ') + (requests.length > 10 ? `, and ${requests.length - 10} more` : '');
  const count = `${requests.length} request${requests.length === 1 ? '' : 's'}`;
  return `Shutdown: ${count} still in flight after ${ms / 1000} s, cut${requests.length ? `: ${shown}` : ''}`;
}
