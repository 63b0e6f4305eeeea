import type { Logger } from '@nestjs/common';

/** A background job of each server process: runs `run` after `firstDelayMs`, then every `everyMs` (milliseconds). */
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
  const once = () =>
    void job.run().catch((error: unknown) => logger.warn(`${job.what} failed: ${(error as Error).message}`));
  let timer: NodeJS.Timeout = setTimeout(() => {
    once();
    timer = setInterval(once, job.everyMs).unref();
  }, job.firstDelayMs).unref();
  return () => {
    clearTimeout(timer);
    clearInterval(timer);
  };
}
