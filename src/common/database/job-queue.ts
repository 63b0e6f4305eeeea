import { Logger as GraphileLogger, runMigrations } from 'graphile-worker';
import type { Logger } from 'pino';

/**
 * The job queue behind webhook deliveries: graphile-worker, whose tables and
 * SQL functions live in the `graphile_worker` schema of our database. Its
 * schema is installed (and upgraded with the package) by installJobQueue,
 * which every migration path runs right after our own migrations, before any
 * event can be inserted (the events trigger calls `graphile_worker.add_job`).
 */

/** graphile-worker's logs, through our logger (warnings and errors; the rest at debug). `logger` undefined: errors to stderr only. */
export function jobQueueLogger(logger?: Logger): GraphileLogger {
  return new GraphileLogger((scope) => (level, message) => {
    if (!logger) {
      if (level === 'error') process.stderr.write(`Job queue: ${message}\n`);
      return;
    }
    const context = { context: 'JobQueue', ...scope };
    if (level === 'error') logger.error(context, message);
    else if (level === 'warning') logger.warn(context, message);
    else logger.debug(context, message);
  });
}

/** Installs or upgrades the job queue's schema in the database at `url` (idempotent). */
export async function installJobQueue(url: string): Promise<void> {
  await runMigrations({ connectionString: url, maxPoolSize: 1, logger: jobQueueLogger() });
}
