import type { FastifyInstance } from 'fastify';

/** The requests a server is serving now: `METHOD url` of each, oldest first. */
const tracked = new WeakMap<FastifyInstance, Set<string>>();

/**
 * Keeps count of the requests `fastify` is serving (from arrival until the
 * response is finished or the connection closes), for the shutdown of D32
 * (issue 8: a drain that times out says what it cuts). Call before `ready()`.
 */
export function trackInFlight(fastify: FastifyInstance): void {
  const requests = new Set<string>();
  tracked.set(fastify, requests);
  fastify.addHook('onRequest', (request, reply, done) => {
    // A unique entry per request, even for two identical ones.
    const entry = `${request.method} ${request.url.split('?')[0]} #${request.id}`;
    requests.add(entry);
    reply.raw.once('close', () => requests.delete(entry));
    done();
  });
}

/** The requests in flight on `fastify` (`METHOD path #id`), or [] when it is not tracked. */
export function requestsInFlight(fastify: FastifyInstance): string[] {
  return [...(tracked.get(fastify) ?? [])];
}

/** The log line of a shutdown that cut `requests` after waiting `ms` (issue 8, D32). */
export function describeCut(requests: string[], ms: number): string {
  const shown = requests.slice(0, 10).join(', ') + (requests.length > 10 ? `, and ${requests.length - 10} more` : '');
  const count = `${requests.length} request${requests.length === 1 ? '' : 's'}`;
  return `Shutdown: ${count} still in flight after ${ms / 1000} s, cut${requests.length ? `: ${shown}` : ''}`;
}
