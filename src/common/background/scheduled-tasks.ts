import { Global, Injectable, Module } from '@nestjs/common';

/**
 * A maintenance task of the job queue's crontab (graphile-worker): run once per
 * tick of `match` across every process on the database, by one of the processes
 * that run the job queue (WEBHOOK_WORKER). A run must be safe to overlap another
 * (a slow one, or one whose process died holding its job: graphile-worker keeps such
 * a job locked for hours, and a named queue would wait as long, so none is used).
 */
export interface ScheduledTask {
  /** The job queue's task identifier (also the crontab identifier). */
  name: string;
  /** A cron pattern (`* * * * *`: every minute). */
  match: string;
  /** One run; resolves to what it did (rows removed), for the log. */
  run(): Promise<number>;
}

/** Maintenance tasks registered by the modules (at module init), run by the job queue's crontab. */
@Injectable()
export class ScheduledTasks {
  private readonly tasks = new Map<string, ScheduledTask>();

  /** Adds `task` (a second task of the same name replaces the first). */
  register(task: ScheduledTask): void {
    this.tasks.set(task.name, task);
  }

  /** The registered tasks. */
  list(): ScheduledTask[] {
    return [...this.tasks.values()];
  }
}

/**
 * Runs `batch` (it removes at most `size` rows and resolves to how many) until
 * a batch removes fewer than `size`, or `budgetMs` has passed (the next run goes
 * on); resolves to the rows removed in all. Each batch is its own statement, so
 * no run holds locks on more than `size` rows at a time.
 */
export async function inBatches(batch: (size: number) => Promise<number>, size: number, budgetMs: number): Promise<number> {
  const until = Date.now() + budgetMs;
  let total = 0;
  for (;;) {
    const removed = await batch(size);
    total += removed;
    if (removed < size || Date.now() >= until) return total;
  }
}

/** Provides ScheduledTasks to every module. */
@Global()
@Module({ providers: [ScheduledTasks], exports: [ScheduledTasks] })
export class ScheduledTasksModule {}
