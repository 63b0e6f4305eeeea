import { Logger as GraphileLogger, runMigrations } from 'graphile-worker';
import { Client } from 'pg';
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

/** The advisory lock key under which processes add WEBHOOK_JOBS_INDEX one at a time: 'WHJI'. */
const WEBHOOK_JOBS_INDEX_LOCK = 0x57484a49;

/**
 * Our index on the queue's jobs (issue 37, webhook deliveries): a webhook's
 * available jobs by when they fall due, for a drain's claim
 * (WebhooksRepository.step), which otherwise walks every due job of the queue
 * to find one webhook's. Created here, right after the queue's own schema,
 * because the queue's tables do not exist yet when our migrations run on a new
 * database.
 */
const WEBHOOK_JOBS_INDEX = `DO $$ BEGIN
  -- Looked up first: CREATE INDEX IF NOT EXISTS would lock the jobs table against writes even when the index exists.
  IF to_regclass('graphile_worker.webhook_jobs_due_idx') IS NULL THEN
    CREATE INDEX webhook_jobs_due_idx ON graphile_worker._private_jobs ((payload->>'webhook_id'), run_at) WHERE is_available;
  END IF;
END $$`;

/** Installs or upgrades the job queue's schema in the database at `url`, with our index on it (idempotent). */
export async function installJobQueue(url: string): Promise<void> {
  await runMigrations({ connectionString: url, maxPoolSize: 1, logger: jobQueueLogger() });
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${WEBHOOK_JOBS_INDEX_LOCK}); ${WEBHOOK_JOBS_INDEX}; COMMIT`);
  } finally {
    await client.end();
  }
}
