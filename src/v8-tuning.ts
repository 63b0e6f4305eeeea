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
 * With one core to run on (a container or `taskset` giving the process one CPU),
 * young-generation collections are not split across V8's helper threads: they could
 * only take turns with the main thread on that core, and the hand-offs cost more than
 * they share. Measured on get task, server on one core: helper threads' CPU 17-20 →
 * 9-13 µs per request, the main thread's unchanged.
 */
export const ONE_CORE_V8_FLAGS = '--no-parallel-scavenge';

/** The flags for a process that may run on `cores` CPUs. */
export function v8FlagsFor(cores: number): string[] {
  return cores === 1 ? [V8_FLAGS, ONE_CORE_V8_FLAGS] : [V8_FLAGS];
}

for (const flag of v8FlagsFor(availableParallelism())) setFlagsFromString(flag);
