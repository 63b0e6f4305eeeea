import { availableParallelism } from 'os';
import { setFlagsFromString } from 'v8';

/**
 * V8 settings of the server process, applied by main.ts before anything else
 * is loaded (imported first).
 *
 * Allocation-site pretenuring off: V8 watches which code allocates objects
 * that outlive a young-generation collection and then allocates that code's
 * objects directly in the old generation. Under load, a request's objects are
 * alive at many collections (a few dozen requests are always in flight), so
 * V8 pretenured request-scoped objects (response bodies read from PostgreSQL,
 * header blocks) that die a few milliseconds later: about 6.7 KB per get-task
 * request went to the old generation, to be freed only by full mark-compact
 * collections. Measured side by side on the bench world (get task, 32
 * connections, one core): promoted 6.7 → 0.2 KB per request, scavenge pauses
 * 16.6 → 8.1 µs per request, Node CPU per request about 6% lower on get task,
 * 10% on list comments, and p99 latency about halved.
 */
export const V8_FLAGS = '--no-allocation-site-pretenuring';

/**
 * The old generation may grow to twice what the last full collection left before the next one starts.
 * V8 otherwise picks the factor from its recent GC and mutator speeds, and after a full collection
 * that shrank the heap (the process had been quiet, or had just served another kind of request) it
 * picked about 1.1: the next full collection came after a few MB of promotion. Under a burst of large
 * answers (a page of 50 tasks is about 92 kB of text) that is every 300 ms, and each pause keeps the
 * requests in flight alive for longer, so more of them are promoted and the next one comes sooner.
 * Measured on list tasks (limit 50) after the benchmark's other scenarios, three processes per build,
 * four windows of 4 s each: 0-12 mark-compacts per window and 0.35-0.95 ms of Node CPU per request
 * (median 0.57), against 0-1 and 0.30-0.50 (median 0.37) with this factor. What the heap may hold
 * between full collections is twice the live data (about 50 MB live here, so about 100 MB), never more than the old space's limit.
 */
export const HEAP_GROWING_FLAGS = '--heap-growing-percent=100';

/**
 * With one core to run on (a container or `taskset` giving the process one CPU),
 * young-generation collections are not split across V8's helper threads: they could
 * only take turns with the main thread on that core, and the hand-offs cost more than
 * they share. Measured on get task, server on one core: helper threads' CPU 17-20 →
 * 9-13 µs per request, the main thread's unchanged.
 */
export const ONE_CORE_V8_FLAGS = '--no-parallel-scavenge';

/** The flags for a process that may run on `cores` CPUs. */
export function v8FlagsFor(cores: number): string[] {
  const flags = [V8_FLAGS, HEAP_GROWING_FLAGS];
  return cores === 1 ? [...flags, ONE_CORE_V8_FLAGS] : flags;
}

for (const flag of v8FlagsFor(availableParallelism())) setFlagsFromString(flag);
