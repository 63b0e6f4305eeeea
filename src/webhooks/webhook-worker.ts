import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { parseCronItems, run, type Runner, type TaskList } from 'graphile-worker';
import { Pool } from 'pg';
import { ScheduledTasks } from '../common/background/scheduled-tasks';
import { processLogger } from '../common/logging/logger';
import type { AppEnv, WebhookSettings } from '../config/env';
import { InjectSettings } from '../config/settings';
import { DELIVERY_TASK, DeliveryJob } from './delivery-job';
import { jobQueueLogger } from './job-queue';
import { attemptDelivery } from './webhook-sender';
import { WebhookMetrics } from './webhooks.metrics';
import { WebhooksRepository } from './webhooks.repository';

/** Delivery jobs one process runs at once. */
const CONCURRENCY = 10;
/** How often the queue looks for jobs that fell due (new jobs are announced at once); well under D38's 5 s. */
const POLL_INTERVAL_MS = 1_000;
/**
 * How long after an attempt starts its stand-in job falls due (beyond the
 * attempt's own timeout): only a process that died mid-attempt lets it run.
 */
const STAND_IN_MARGIN_MS = 10_000;
/** How long after the queue stopped by itself (its database connection lost) it is started again; doubled per failed start, up to the max. */
const RESTART_DELAY_MS = 1_000;
const RESTART_DELAY_MAX_MS = 30_000;
/** Longest a (re)start of the queue may take before it is given up and tried again. */
const START_TIMEOUT_MS = 15_000;

/**
 * D38: delivers webhooks, in every server process unless WEBHOOK_WORKER=false;
 * the same job queue runs the maintenance tasks of the crontab (ScheduledTasks: pruning).
 * The queue (graphile-worker, on our database) hands each job to one process;
 * a job is one attempt. An attempt starts only for an existing, active webhook
 * and an attempt not yet recorded (checked again, under a lock, right before it sends), uses the webhook's url as it is then, and
 * ends recorded in the delivery log together with the next attempt's job
 * (due the next WEBHOOK_RETRY_DELAYS_MS delay after it ended) or with none.
 * Shutdown abandons attempts in flight unrecorded: their stand-in jobs make them again.
 */
@Injectable()
export class WebhookWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly settings: WebhookSettings;
  private readonly databaseUrl?: string;
  private readonly preparedStatements: boolean;
  private readonly connectTimeoutMs: number;
  private runner?: Runner;
  /** The queue's own pool: ours, so that a lost connection is heard (logged) and the pool is ended with the app. */
  private pool?: Pool;
  private readonly stopping = new AbortController();
  private restartTimer?: NodeJS.Timeout;
  private restartDelayMs = RESTART_DELAY_MS;

  constructor(
    @InjectSettings() config: AppEnv,
    private readonly repo: WebhooksRepository,
    private readonly metrics: WebhookMetrics,
    private readonly scheduled: ScheduledTasks,
  ) {
    this.settings = config.webhooks;
    this.databaseUrl = config.databaseUrl;
    this.preparedStatements = config.preparedStatements;
    this.connectTimeoutMs = config.timeouts.dbConnect;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.settings.worker || !this.databaseUrl) return;
    await this.start();
  }

  /**
   * The queue's own pool: as many connections as jobs at once (opened only when needed), so that no job
   * waits for one; a connection that fails idle (the pool's event) or while held (its own) is heard (logged).
   */
  private newPool(): Pool {
    const pool = new Pool({ connectionString: this.databaseUrl, max: CONCURRENCY, connectionTimeoutMillis: this.connectTimeoutMs });
    const lost = (error: Error) => processLogger().warn({ context: 'JobQueue' }, `job queue connection lost: ${error.message}`);
    pool.on('error', lost);
    pool.on('connect', (client) => client.on('error', lost));
    return pool;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping.abort(new Error('shutting down'));
    clearTimeout(this.restartTimer);
    await this.runner?.stop().catch(() => undefined);
    await this.pool?.end().catch(() => undefined);
  }

  /**
   * Starts the queue's runner. Marking a job done or failed goes through
   * graphile-worker's batches (delay 0), whose failures are handled (logged)
   * instead of rejecting unheard, which would end the process; such a failure, a
   * lost database connection, stops the runner, and it is started again here
   * (RESTART_DELAY_MS later, longer while starts fail). A job whose completion
   * was lost stays locked; run again later it finds its attempt recorded and ends.
   */
  private async start(): Promise<void> {
    // A new pool for each runner: a stopped runner may leave connections checked out, which must not starve the next.
    const previous = this.pool;
    this.pool = undefined;
    void previous?.end().catch(() => undefined);
    const pool = this.newPool();
    this.pool = pool;
    const tasks = this.scheduled.list();
    const maintenance: TaskList = Object.fromEntries(tasks.map((task) => [task.name, async () => void (await task.run())]));
    const starting = run({
      pgPool: pool,
      // Behind a pooler that cannot keep prepared statements (DB_PREPARED_STATEMENTS=false), the queue's go unnamed too.
      noPreparedStatements: !this.preparedStatements,
      concurrency: CONCURRENCY,
      pollInterval: POLL_INTERVAL_MS,
      noHandleSignals: true,
      logger: jobQueueLogger(processLogger()),
      preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
      taskList: { [DELIVERY_TASK]: (payload, helpers) => this.deliver(payload as DeliveryJob, helpers.job.run_at), ...maintenance },
      // The maintenance tasks (pruning) on the crontab: each tick runs once across all processes, never backfilled, not retried (the next tick runs).
      parsedCronItems: parseCronItems(
        tasks.map((task) => ({ task: task.name, identifier: task.name, match: task.match, options: { jobKey: task.name, maxAttempts: 1 } })),
      ),
    });
    // A start that hangs (its database connections lost meanwhile) counts as failed: it is stopped if it ever completes.
    let timer: NodeJS.Timeout | undefined;
    const runner = await Promise.race([
      starting,
      new Promise<never>((_, fail) => (timer = setTimeout(() => fail(new Error(`no start within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS))),
    ]).catch((error: Error) => {
      void starting.then((late) => late.stop().catch(() => undefined), () => undefined);
      throw error;
    });
    clearTimeout(timer);
    this.runner = runner;
    this.restartDelayMs = RESTART_DELAY_MS;
    void runner.promise.then(
      () => this.restartLater(runner),
      () => this.restartLater(runner),
    );
  }

  /** After `runner` stopped: unless the app is shutting down, a new one in a while. */
  private restartLater(runner: Runner): void {
    if (this.stopping.signal.aborted || this.runner !== runner) return;
    processLogger().warn({ context: 'JobQueue' }, `webhook delivery queue stopped; restarting in ${this.restartDelayMs} ms`);
    this.restartTimer = setTimeout(() => {
      if (this.stopping.signal.aborted) return;
      this.start().catch((error: Error) => {
        processLogger().warn({ context: 'JobQueue' }, `webhook delivery queue could not start: ${error.message}`);
        this.restartDelayMs = Math.min(this.restartDelayMs * 2, RESTART_DELAY_MAX_MS);
        this.restartLater(runner);
      });
    }, this.restartDelayMs);
  }

  /** One attempt of `job`, due at `dueAt`: skipped, or made, logged, counted and recorded with what follows it. */
  private async deliver(job: DeliveryJob, dueAt: Date): Promise<void> {
    const { timeoutMs, retryDelaysMs, allowPrivate } = this.settings;
    const start = await this.repo.startAttempt(job, dueAt, timeoutMs + STAND_IN_MARGIN_MS);
    if (!start.go) return;
    let outcome;
    try {
      outcome = await attemptDelivery({
        url: start.url,
        secret: start.secret,
        messageId: `evt_${job.event_id}`,
        body: JSON.stringify(job.body),
        timeoutMs,
        allowPrivate,
        signal: this.stopping.signal,
        beforeSend: (send) => this.repo.sendIfActive(job, dueAt, send),
      });
    } catch (error) {
      if (!this.stopping.signal.aborted) throw error;
      // Shutting down: the attempt is abandoned unrecorded; its stand-in job makes it after the restart.
      processLogger().info({ context: 'Webhooks', webhook_id: job.webhook_id, event_id: job.event_id, attempt: job.attempt }, 'webhook delivery attempt abandoned at shutdown');
      return;
    }
    // Deleted or paused since the attempt started: it sent nothing and ends here.
    if (outcome === null) return;
    // attempt k + 1 (k from 1) waits the k-th delay; after the last delay's attempt, none.
    const delay = retryDelaysMs[job.attempt - 1];
    const next = outcome.result !== 'delivered' && delay !== undefined ? { job: { ...job, attempt: job.attempt + 1 }, inMs: delay } : null;
    await this.repo.recordAttempt(
      job,
      { result: outcome.result, responseStatus: outcome.responseStatus, durationMs: outcome.durationMs, attemptedAt: outcome.startedAt },
      next,
    );
    this.metrics.attempted(outcome.result);
    processLogger().info(
      {
        context: 'Webhooks',
        webhook_id: job.webhook_id,
        event_id: job.event_id,
        attempt: job.attempt,
        host: new URL(start.url).host,
        result: outcome.result,
        response_status: outcome.responseStatus,
        duration_ms: outcome.durationMs,
        next_attempt_in_ms: next?.inMs ?? null,
      },
      'webhook delivery attempt',
    );
  }
}
