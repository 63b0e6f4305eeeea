import type { Logger } from '@nestjs/common';

/**
 * The first words of a statement a background job sends, not a request: round-trip counters
 * (test/setup/query-counter.ts) leave such statements out of a request's count.
 */
export const BACKGROUND_STATEMENT = '/* background */';

/**
 * A background job of each server process: runs `run` after `firstDelayMs`, then every `everyMs` (milliseconds).
 * Not a ScheduledTask of the job queue's crontab: those run once per minute across all processes, by one
 * of them, while a periodic job works on state held in its own process (the API keys' last-use times,
 * flushed every 15 s), which no other process can see.
 */
export interface PeriodicJob {
  /** What the job does, for the log line of a failure (`Pruning old events`). */
  what: string;
  firstDelayMs: number;
  everyMs: number;
  run: () => Promise<unknown>;
}

/**
 * Starts `job` on unref'd timers (they never keep a process alive). A failure
 * is logged as a warning on `logger` and the job runs again at its next turn.
 * Returns the function that stops it (for OnModuleDestroy).
 */
export function startPeriodic(job: PeriodicJob, logger: Logger): () => void {
  const once = () => void job.run().catch((error: unknown) => logger.warn(`${job.what} failed: ${(error as Error).message}`));
  let timer: NodeJS.Timeout = setTimeout(() => {
    once();
    timer = setInterval(once, job.everyMs).unref();
  }, job.firstDelayMs).unref();
  return () => {
    clearTimeout(timer);
    clearInterval(timer);
  };
}
