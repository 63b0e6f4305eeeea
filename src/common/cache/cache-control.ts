import type { FastifyReply } from 'fastify';

import { needsKey } from '../http/paths';

/**
 * `Cache-Control` of the answers of routes that need a key (D31): no cache,
 * shared or private, keeps them. Set before the route runs, so that every
 * answer of the route carries it, errors included; a route may replace it for
 * its own success answers.
 */
export const KEYED_CACHE_CONTROL = 'no-store';

/** `Cache-Control` of get task's 200 (D36): a client may keep it, and must revalidate it before use. */
export const TASK_CACHE_CONTROL = 'private, no-cache';

/** D31: an answer on a path that needs a key is not to be stored, whoever writes it. */
export function keepOutOfCaches(reply: FastifyReply, route: string | undefined): void {
  if (needsKey(route)) void reply.header('cache-control', KEYED_CACHE_CONTROL);
}
