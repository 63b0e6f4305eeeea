import type { FastifyInstance, FastifyRequest } from 'fastify';

/** A request in the list: its place, until it is answered or aborted. */
export interface InFlightEntry {
  readonly request: FastifyRequest;
  previous?: InFlightEntry;
  next?: InFlightEntry;
  removed: boolean;
}

/**
 * The requests one server is serving, oldest first, as a linked list of entries.
 *
 * Not a Set: a Set that lives as long as the server rebuilds its hash table every few dozen
 * additions, and each table it drops still points at the requests it held. Dropped tables in
 * the old generation are found dead only by a full collection; until then every young-generation
 * collection keeps what they point at, so each request's objects (its reply, headers, rows) were
 * copied and promoted: about 1.2 MB per young collection under load, 3x the pause per request.
 * The list's own fields are overwritten in place, so nothing it let go of stays reachable.
 */
export class InFlightRequests {
  private first?: InFlightEntry;
  private last?: InFlightEntry;

  /** Adds `request` at the end; the entry is what `delete` takes. */
  add(request: FastifyRequest): InFlightEntry {
    const entry: InFlightEntry = { request, previous: this.last, next: undefined, removed: false };
    if (this.last) this.last.next = entry;
    else this.first = entry;
    this.last = entry;
    return entry;
  }

  /** Takes `entry` out of the list; a second call does nothing. */
  delete(entry: InFlightEntry): void {
    if (entry.removed) return;
    entry.removed = true;
    const { previous, next } = entry;
    if (previous) previous.next = next;
    else this.first = next;
    if (next) next.previous = previous;
    else this.last = previous;
    entry.previous = entry.next = undefined;
  }

  /** The requests in the list, oldest first. */
  *[Symbol.iterator](): IterableIterator<FastifyRequest> {
    for (let entry = this.first; entry; entry = entry.next) yield entry.request;
  }
}

/** The requests each server is serving now, in arrival order. */
const tracked = new WeakMap<FastifyInstance, InFlightRequests>();

/**
 * The requests `fastify` is serving (from arrival until answered or
 * aborted), for the shutdown of D32 (a drain that times out says what
 * it cuts). The HTTP layer's hooks add and delete them (http.setup.ts).
 */
export function inFlight(fastify: FastifyInstance): InFlightRequests {
  let requests = tracked.get(fastify);
  if (!requests) tracked.set(fastify, (requests = new InFlightRequests()));
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
