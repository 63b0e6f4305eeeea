import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { EventEmitter } from 'events';
import { setTimeout as sleep } from 'timers/promises';
import { parseCronItems, run, type Runner, type TaskList } from 'graphile-worker';
import { Pool } from 'pg';
import { ScheduledTasks } from '../common/background/scheduled-tasks';
import { processLogger } from '../common/logging/logger';
import type { AppEnv, WebhookSettings } from '../config/env';
import { InjectSettings } from '../config/settings';
import { DELIVERY_TASK, DeliveryJob } from './delivery-job';
import { jobQueueLogger } from '../common/database/job-queue';
import { attemptDelivery } from './webhook-sender';
import { WebhookMetrics } from './webhooks.metrics';
import { WebhooksRepository } from './webhooks.repository';

/** Delivery jobs one process holds at once (in flight, or waiting for their webhook's attempt before them). */
const CONCURRENCY = 20;
/**
 * D38, tenants do not wait for each other: jobs of one workspace one process
 * holds at once, and of one webhook (the attempt in flight and the next one,
 * waiting for it: D38 allows one attempt in flight per webhook). Further jobs
 * are put off (DEFER_MS), so that CONCURRENCY - WORKSPACE_SLOTS slots stay
 * free for the other workspaces whatever its receivers do (a silent one holds
 * its attempt for WEBHOOK_TIMEOUT_MS), and a workspace's silent webhooks do
 * not hold all of its slots.
 */
const WORKSPACE_SLOTS = 6;
const WEBHOOK_SLOTS = 2;
/** How long a job of a workspace with all its slots taken (or of a webhook busy in another process) waits before it is fetched again. */
const DEFER_MS = 1_000;
/** How often the queue looks for jobs that fell due (new jobs are announced at once); well under D38's 5 s. */
const POLL_INTERVAL_MS = 1_000;
/** How often the dispatcher looks for committed events to fan out to webhooks (D38: an attempt starts within 5 s of the commit). */
const DISPATCH_INTERVAL_MS = 200;
/** Events a dispatch round examines per webhook at most. */
const DISPATCH_BATCH = 1_000;
/**
 * How long after an attempt starts its stand-in job falls due (beyond the
 * attempt's own timeout): only a process that died mid-attempt lets it run.
 */
const STAND_IN_MARGIN_MS = 10_000;
/**
 * A delivery job fetched longer ago than WEBHOOK_TIMEOUT_MS plus this belongs
 * to a dead process: it is freed, and an attempt lease that old runs out (D38:
 * taken over within WEBHOOK_TIMEOUT_MS + 60 s, with FREE_STALE_INTERVAL_MS,
 * DEFER_MS and the poll).
 */
const STALE_MARGIN_MS = 30_000;
/** How often each process frees the jobs of dead processes. */
const FREE_STALE_INTERVAL_MS = 15_000;
/** How long after the queue stopped by itself (its database connection lost) it is started again; doubled per failed start, up to the max. */
const RESTART_DELAY_MS = 1_000;
const RESTART_DELAY_MAX_MS = 30_000;
/** Longest a (re)start of the queue may take before it is given up and tried again. */
const START_TIMEOUT_MS = 15_000;

/**
 * The job queue's pool: pg-pool's, except that giving a connection back twice
 * is logged instead of thrown. graphile-worker 0.17 gives its LISTEN connection
 * back both when that connection fails and when its runner stops; when a lost
 * database makes both happen (the runner is restarted), pg-pool's throw becomes
 * an unhandled rejection that would end the process.
 */
class JobQueuePool extends Pool {}
(JobQueuePool.prototype as unknown as { _releaseOnce: unknown })._releaseOnce = function (
  this: { _release(client: unknown, idleListener: unknown, error?: Error): void },
  client: unknown,
  idleListener: unknown,
) {
  let released = false;
  return (error?: Error) => {
    if (released) {
      processLogger().warn({ context: 'JobQueue' }, 'job queue connection given back twice (ignored)');
      return;
    }
    released = true;
    this._release(client, idleListener, error);
  };
};

/**
 * D38: delivers webhooks, in every server process unless WEBHOOK_WORKER=false;
 * the same job queue runs the maintenance tasks of the crontab (ScheduledTasks: pruning).
 * A dispatcher loop fans committed events out to the workspace's webhooks
 * (writes only record their events): attempt 1 of each (event, webhook) is
 * queued once. The queue (graphile-worker, on our database) hands each job to
 * one process; a job is one attempt, made under the webhook's attempt lease
 * (one attempt in flight per webhook). A workspace holds at most
 * WORKSPACE_SLOTS of a process's slots; jobs fetched by a process that died
 * are freed after WEBHOOK_TIMEOUT_MS + STALE_MARGIN_MS, when its leases have
 * run out too. An attempt starts only for an existing, active webhook
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
  /** Jobs taken by this process (in flight or waiting for their webhook's turn), by workspace. */
  private readonly inFlight = new Map<number, number>();
  /** Jobs taken by this process, by webhook. */
  private readonly webhookHeld = new Map<number, number>();
  /** The last job of each webhook taken by this process: the next one waits for it. */
  private readonly webhookTurns = new Map<number, Promise<void>>();
  /** The dispatcher and stale-job loops, awaited at shutdown. */
  private loops: Promise<void>[] = [];
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
    this.loops = [
      this.every(DISPATCH_INTERVAL_MS, 'webhook dispatch', () => this.dispatch()),
      this.every(FREE_STALE_INTERVAL_MS, 'freeing stale webhook jobs', async () => {
        await this.repo.freeStaleJobs(this.settings.timeoutMs + STALE_MARGIN_MS);
        return false;
      }),
    ];
  }

  /**
   * The queue's own pool: as many connections as jobs at once (opened only when needed), so that no job
   * waits for one; a connection that fails idle (the pool's event) or while held (its own) is heard (logged).
   */
  private newPool(): Pool {
    const pool = new JobQueuePool({ connectionString: this.databaseUrl, max: CONCURRENCY, connectionTimeoutMillis: this.connectTimeoutMs });
    const lost = (error: Error) => processLogger().warn({ context: 'JobQueue' }, `job queue connection lost: ${error.message}`);
    pool.on('error', lost);
    pool.on('connect', (client) => client.on('error', lost));
    return pool;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping.abort(new Error('shutting down'));
    clearTimeout(this.restartTimer);
    await Promise.all(this.loops);
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
    // A worker that dies on a lost connection is not replaced by graphile-worker: the runner is stopped then, and started again.
    const events = new EventEmitter();
    let started: Runner | undefined;
    let broken = false;
    events.on('worker:fatalError', () => {
      broken = true;
      void started?.stop().catch(() => undefined);
    });
    const starting = run({
      pgPool: pool,
      events: events as never,
      // Behind a pooler that cannot keep prepared statements (DB_PREPARED_STATEMENTS=false), the queue's go unnamed too.
      noPreparedStatements: !this.preparedStatements,
      concurrency: CONCURRENCY,
      pollInterval: POLL_INTERVAL_MS,
      noHandleSignals: true,
      logger: jobQueueLogger(processLogger()),
      preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
      taskList: { [DELIVERY_TASK]: (payload, helpers) => this.take(payload as DeliveryJob, helpers.job.run_at), ...maintenance },
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
    started = runner;
    if (broken) void runner.stop().catch(() => undefined);
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

  /** Runs `round` until shutdown, waiting `intervalMs` after each round that resolves false; a failing round is logged and retried. */
  private async every(intervalMs: number, what: string, round: () => Promise<boolean>): Promise<void> {
    const { signal } = this.stopping;
    while (!signal.aborted) {
      let again = false;
      try {
        again = await round();
      } catch (error) {
        if (!signal.aborted) processLogger().warn({ context: 'Webhooks' }, `${what} failed: ${(error as Error).message}`);
      }
      if (!again) await sleep(intervalMs, undefined, { signal }).catch(() => undefined);
    }
  }

  /** One dispatch round over the workspaces with undispatched events; true when it queued jobs (there may be more). */
  private async dispatch(): Promise<boolean> {
    let queued = 0;
    for (const workspaceId of await this.repo.dispatchPending()) {
      if (this.stopping.signal.aborted) break;
      queued += await this.repo.dispatch(workspaceId, DISPATCH_BATCH);
    }
    return queued > 0;
  }

  /**
   * A job handed to this process: put off DEFER_MS (a job under the same key,
   * keeping when it first fell due) when its workspace already has
   * WORKSPACE_SLOTS jobs here or its webhook WEBHOOK_SLOTS, or when another process has an attempt of the
   * webhook in flight (its lease); after this process's own attempt of the
   * webhook, if one is in flight; else made now.
   */
  private async take(job: DeliveryJob, runAt: Date): Promise<void> {
    const dueAt = job.due_at ? new Date(job.due_at) : runAt;
    const later = () => this.repo.defer({ ...job, due_at: dueAt.toISOString() }, DEFER_MS);
    const workspaceId = Number(job.body.workspace_id);
    const taken = this.inFlight.get(workspaceId) ?? 0;
    const held = this.webhookHeld.get(job.webhook_id) ?? 0;
    if (taken >= WORKSPACE_SLOTS || held >= WEBHOOK_SLOTS) return later();
    this.inFlight.set(workspaceId, taken + 1);
    this.webhookHeld.set(job.webhook_id, held + 1);
    // One attempt of a webhook at a time in this process: after the one before it (the lease guards across processes).
    const before = this.webhookTurns.get(job.webhook_id);
    const turn = (async () => {
      await before?.catch(() => undefined);
      if ((await this.deliver(job, dueAt)) === 'busy') await later();
    })();
    this.webhookTurns.set(job.webhook_id, turn);
    try {
      await turn;
    } finally {
      if (this.webhookTurns.get(job.webhook_id) === turn) this.webhookTurns.delete(job.webhook_id);
      const still = (this.webhookHeld.get(job.webhook_id) ?? 1) - 1;
      if (still > 0) this.webhookHeld.set(job.webhook_id, still);
      else this.webhookHeld.delete(job.webhook_id);
      const left = (this.inFlight.get(workspaceId) ?? 1) - 1;
      if (left > 0) this.inFlight.set(workspaceId, left);
      else this.inFlight.delete(workspaceId);
    }
  }

  /**
   * One attempt of `job`, due at `dueAt`: skipped, 'busy' (another process has
   * an attempt of the webhook in flight), or made, logged, counted and recorded
   * with what follows it, under the webhook's attempt lease.
   */
  private async deliver(job: DeliveryJob, dueAt: Date): Promise<'busy' | void> {
    const { timeoutMs } = this.settings;
    const start = await this.repo.startAttempt(job, dueAt, timeoutMs + STAND_IN_MARGIN_MS, timeoutMs + STALE_MARGIN_MS);
    if (start.busy) return 'busy';
    if (!start.go) return;
    let recorded = false;
    try {
      recorded = await this.attempt(job, dueAt, start.url, start.secret);
    } finally {
      // Not recorded (cancelled, abandoned or failed): the lease goes back now rather than when it runs out.
      if (!recorded) await this.repo.releaseLease(job.webhook_id).catch(() => undefined);
    }
  }

  /** Makes the attempt and records it; resolves whether it was recorded. */
  private async attempt(job: DeliveryJob, dueAt: Date, url: string, secret: string): Promise<boolean> {
    const { timeoutMs, retryDelaysMs, allowPrivate } = this.settings;
    let outcome;
    try {
      outcome = await attemptDelivery({
        url,
        secret,
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
      return false;
    }
    // Deleted or paused since the attempt started: it sent nothing and ends here.
    if (outcome === null) return false;
    // attempt k + 1 (k from 1) waits the k-th delay; after the last delay's attempt, none.
    const delay = retryDelaysMs[job.attempt - 1];
    const next = outcome.result !== 'delivered' && delay !== undefined ? { job: { ...job, attempt: job.attempt + 1, due_at: undefined }, inMs: delay } : null;
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
        host: new URL(url).host,
        result: outcome.result,
        response_status: outcome.responseStatus,
        duration_ms: outcome.durationMs,
        next_attempt_in_ms: next?.inMs ?? null,
      },
      'webhook delivery attempt',
    );
    return true;
  }
}
