import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { EventEmitter } from 'events';
import { parseCronItems, run as runQueue, type Runner, type TaskList } from 'graphile-worker';
import { Pool } from 'pg';
import { setTimeout as sleep } from 'timers/promises';

import { ScheduledTasks } from '../common/background/scheduled-tasks';
import { jobQueueLogger } from '../common/database/job-queue';
import { boundedPoolOptions } from '../common/database/pool-options';
import { processLogger } from '../common/logging/logger';
import type { AppEnv, WebhookSettings } from '../config/env';
import { InjectSettings } from '../config/settings';
import type { Timeouts } from '../config/timeouts';
import { DELIVERY_TASK, DeliveryJob, deliveryJobKey, webhookFlag, workspaceFlag } from './delivery-job';
import { attemptDelivery } from './webhook-sender';
import { WebhookMetrics } from './webhooks.metrics';
import { AttemptStart, WebhooksRepository } from './webhooks.repository';

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
/**
 * After a job's attempt, its process goes on with the webhook's next due
 * attempts (claimed one at a time: one attempt in flight per webhook) for at
 * most this long and this many, then gives the webhook's and workspace's
 * slots back (D38 fairness: other webhooks and workspaces get their turn).
 */
const BATCH_MS = 1_000;
const BATCH_MAX = 100;
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
const RESTART_DELAY_MAX_MS = 5_000;
/** Longest a (re)start of the queue may take before it is given up and tried again. */
const START_TIMEOUT_MS = 15_000;
/** Longest shutdown waits for the queue's runner to stop. */
const STOP_TIMEOUT_MS = 5_000;

/** One runner of the queue, on its own pool. */
interface QueueRun {
  runner: Runner;
  pool: Pool;
  /** graphile-worker's id of its worker pool: the `locked_by` of the jobs it fetched. */
  poolId?: string;
  startedAt: number;
  /** Delivery jobs of this runner running here now. */
  active: number;
  /** Taken out of service (retire). */
  retired?: boolean;
}

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
  private readonly timeouts: Timeouts;
  /** The runner in service, if any. */
  private current?: QueueRun;
  /** Runners taken out of service whose fetched jobs are still to be freed. */
  private retired: QueueRun[] = [];
  private readonly stopping = new AbortController();
  /** Jobs taken by this process (in flight or waiting for their webhook's turn), by workspace. */
  private readonly inFlight = new Map<number, number>();
  /** Jobs taken by this process, by webhook. */
  private readonly webhookHeld = new Map<number, number>();
  /** The last job of each webhook taken by this process: the next one waits for it. */
  private readonly webhookTurns = new Map<number, Promise<void>>();
  /** Unrecorded attempts whose lease and stand-in could not be given back yet (the database was unreachable), by job key. */
  private readonly unfinished = new Map<string, { webhookId: number; leaseUntil: string; key: string }>();
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
    this.timeouts = config.timeouts;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.settings.worker || !this.databaseUrl) return;
    await this.start();
    this.loops = [
      this.every(DISPATCH_INTERVAL_MS, 'webhook dispatch', () => this.dispatch()),
      this.every(FREE_STALE_INTERVAL_MS, 'freeing stale webhook jobs', async () => {
        await this.repo.freeStaleJobs(this.settings.timeoutMs + STALE_MARGIN_MS);
        await this.recover();
        return false;
      }),
    ];
  }

  /**
   * The queue's own pool: as many connections as jobs at once (opened only when needed), so that no job
   * waits for one, with the serving app's bounds on every wait (connecting, each statement, TCP
   * keep-alive: a dead connection fails its statement instead of holding it forever); a connection that
   * fails idle (the pool's event) or while held (its own) is heard (logged).
   */
  private newPool(): Pool {
    const pool = new JobQueuePool({ connectionString: this.databaseUrl, max: CONCURRENCY, ...boundedPoolOptions(this.timeouts) });
    const lost = (error: Error) => processLogger().warn({ context: 'JobQueue' }, `job queue connection lost: ${error.message}`);
    pool.on('error', lost);
    pool.on('connect', (client) => client.on('error', lost));
    return pool;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping.abort(new Error('shutting down'));
    clearTimeout(this.restartTimer);
    await Promise.all(this.loops);
    const run = this.current;
    this.current = undefined;
    if (!run) return;
    // graphile-worker's stop may never settle (see retire): shutdown waits for it a bounded time.
    await Promise.race([run.runner.stop().catch(() => undefined), sleep(STOP_TIMEOUT_MS, undefined, { ref: false })]);
    await run.pool.end().catch(() => undefined);
  }

  /**
   * Starts a runner of the queue on a pool of its own. Marking a job done or
   * failed goes through graphile-worker's batches (delay 0), whose failures
   * are handled (logged) instead of rejecting unheard, which would end the
   * process. Any sign that the runner lost the database (a worker's or a
   * batch's fatal error, its own shutdown, its end) retires it and starts a
   * new one (retire).
   */
  private async start(): Promise<void> {
    const pool = this.newPool();
    const tasks = this.scheduled.list();
    const maintenance: TaskList = Object.fromEntries(tasks.map((task) => [task.name, async () => void (await task.run())]));
    const events = new EventEmitter();
    let run: QueueRun | undefined;
    let poolId: string | undefined;
    let broken: string | undefined;
    const fail = (reason: string) => {
      broken ??= reason;
      if (run) this.retire(run, reason);
    };
    events.on('pool:create', ({ workerPool }: { workerPool: { id: string } }) => (poolId = workerPool.id));
    events.on('worker:fatalError', ({ error }: { error: Error }) => fail(`a worker could not release its job: ${error?.message}`));
    events.on('pool:fatalError', ({ error, action }: { error: Error; action: string }) => fail(`${action} failed: ${error?.message}`));
    events.on('pool:gracefulShutdown', ({ message }: { message: string }) => fail(`its worker pool is shutting down: ${message}`));
    // graphile-worker 0.17 keeps the promise of its task list look-up: once that look-up failed (a lost connection), every
    // later fetch rejects with the very same error, and the runner never fetches a job again. Seen twice, it is replaced.
    let lastFetchError: unknown;
    events.on('worker:getJob:error', ({ error }: { error: Error }) => {
      if (error === lastFetchError) fail(`its job fetches keep failing with the same error: ${error?.message}`);
      lastFetchError = error;
    });
    const counter: { active: number } = { active: 0 };
    const starting = runQueue({
      pgPool: pool,
      events: events as never,
      // Behind a pooler that cannot keep prepared statements (DB_PREPARED_STATEMENTS=false), the queue's go unnamed too.
      noPreparedStatements: !this.preparedStatements,
      concurrency: CONCURRENCY,
      pollInterval: POLL_INTERVAL_MS,
      noHandleSignals: true,
      logger: jobQueueLogger(processLogger()),
      preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
      // Jobs of webhooks and workspaces whose slots here are taken are not fetched (they stay due for the other processes).
      forbiddenFlags: () => this.forbiddenFlags(),
      taskList: {
        [DELIVERY_TASK]: async (payload, helpers) => {
          counter.active += 1;
          try {
            await this.take(payload as DeliveryJob, helpers.job.run_at);
          } finally {
            counter.active -= 1;
            if (counter.active === 0 && run && this.current !== run) void this.recover();
          }
        },
        ...maintenance,
      },
      // The maintenance tasks (pruning) on the crontab: each tick runs once across all processes, never backfilled, not retried (the next tick runs).
      parsedCronItems: parseCronItems(
        tasks.map((task) => ({ task: task.name, identifier: task.name, match: task.match, options: { jobKey: task.name, maxAttempts: 1 } })),
      ),
    });
    // A start that hangs (its database connections lost meanwhile) counts as failed: it is stopped if it ever completes.
    let timer: NodeJS.Timeout | undefined;
    const runner = await Promise.race([
      starting,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no start within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS))),
    ]).catch((error: Error) => {
      clearTimeout(timer);
      void starting.then(
        (late) => late.stop().catch(() => undefined),
        () => undefined,
      );
      void pool.end().catch(() => undefined);
      throw error;
    });
    clearTimeout(timer);
    run = Object.assign(counter, { runner, pool, poolId, startedAt: Date.now() });
    this.current = run;
    this.restartDelayMs = RESTART_DELAY_MS;
    const started = run;
    void runner.promise.then(
      () => this.retire(started, 'its runner stopped'),
      (error: Error) => this.retire(started, `its runner stopped: ${error?.message}`),
    );
    if (broken) return this.retire(run, broken);
    processLogger().debug({ context: 'JobQueue', pool_id: poolId }, 'webhook delivery queue started');
    await this.recover();
  }

  /**
   * Takes `run` out of service (once; never while the app shuts down) and
   * starts a new runner RESTART_DELAY_MS later (longer while starts fail).
   * Nothing waits for the old runner to finish: graphile-worker 0.17's stop
   * never settles once a batch of completions or failures has failed more
   * than once (its batcher's count of pending batches goes below zero, so its
   * release waits forever): waiting for it is what stopped deliveries for
   * good after a database outage. Its pool is ended (its connections close as
   * they come back); its jobs are freed (recover) once no attempt of it runs
   * here any more.
   */
  private retire(run: QueueRun, reason: string): void {
    if (this.stopping.signal.aborted || run.retired) return;
    run.retired = true;
    if (this.current === run) this.current = undefined;
    this.retired.push(run);
    processLogger().warn(
      { context: 'JobQueue', pool_id: run.poolId, jobs_running: run.active, restart_in_ms: this.restartDelayMs },
      `webhook delivery queue stopped (${reason}); restarting`,
    );
    void run.runner.stop().catch(() => undefined);
    void run.pool.end().catch(() => undefined);
    this.restartLater();
  }

  /** A new runner in a while, unless one is running or coming, or the app is shutting down. */
  private restartLater(): void {
    if (this.stopping.signal.aborted || this.current || this.restartTimer) return;
    const delay = this.restartDelayMs;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.stopping.signal.aborted || this.current) return;
      const since = Date.now();
      this.start().then(
        () => processLogger().warn({ context: 'JobQueue', took_ms: Date.now() - since }, 'webhook delivery queue started again'),
        (error: Error) => {
          this.restartDelayMs = Math.min(this.restartDelayMs * 2, RESTART_DELAY_MAX_MS);
          processLogger().warn({ context: 'JobQueue', restart_in_ms: this.restartDelayMs }, `webhook delivery queue could not start: ${error.message}`);
          this.restartLater();
        },
      );
    }, delay);
  }

  /**
   * After a restart: the jobs the retired runners had fetched and no attempt of
   * this process runs any more are freed at once (their completion was lost
   * with the connection; run again, each finds its attempt recorded or makes
   * it), and delivery jobs that failed for want of the database (graphile-worker
   * puts a failed job off exponentially: 20 s after its third failure) fall
   * due now. Retried on each stale-job round until it succeeds.
   */
  private async recover(): Promise<void> {
    const idle = this.retired.filter((run) => run.active === 0);
    if (idle.length === 0 || !this.current) return;
    try {
      const freed = await this.repo.freeJobsOf(idle.map((run) => run.poolId).filter((id): id is string => id !== undefined));
      this.retired = this.retired.filter((run) => !idle.includes(run));
      processLogger().warn(
        { context: 'JobQueue', jobs_freed: freed.freed, jobs_due_again: freed.dueAgain },
        'jobs of the stopped webhook delivery queue freed',
      );
    } catch (error) {
      processLogger().warn({ context: 'JobQueue' }, `freeing the stopped queue's jobs failed: ${(error as Error).message}`);
    }
  }

  /** Runs `round` until shutdown, waiting `intervalMs` after each round that resolves false; a failing round is logged and retried. */
  private async every(intervalMs: number, what: string, round: () => Promise<boolean>): Promise<void> {
    const { signal } = this.stopping;
    let failures = 0;
    while (!signal.aborted) {
      let again = false;
      try {
        again = await round();
        if (failures > 0) processLogger().warn({ context: 'Webhooks', failed_rounds: failures }, `${what} works again`);
        failures = 0;
      } catch (error) {
        failures += 1;
        if (!signal.aborted) processLogger().warn({ context: 'Webhooks', failed_rounds: failures }, `${what} failed: ${(error as Error).message}`);
      }
      if (!again) await sleep(intervalMs, undefined, { signal }).catch(() => undefined);
    }
  }

  /** One dispatch round over the workspaces with undispatched events; true when it queued jobs (there may be more). */
  private async dispatch(): Promise<boolean> {
    if (this.unfinished.size > 0) {
      const back = [...this.unfinished.values()];
      await this.repo.giveBack(back);
      for (const attempt of back) if (this.unfinished.get(attempt.key) === attempt) this.unfinished.delete(attempt.key);
    }
    const started = performance.now();
    let queued = 0;
    const workspaces = await this.repo.dispatchPending();
    for (const workspaceId of workspaces) {
      if (this.stopping.signal.aborted) break;
      queued += await this.repo.dispatch(workspaceId, DISPATCH_BATCH);
    }
    if (workspaces.length > 0) {
      processLogger().debug(
        { context: 'Webhooks', workspaces: workspaces.length, jobs_queued: queued, took_ms: Math.round(performance.now() - started) },
        'webhook dispatch round',
      );
    }
    return queued > 0;
  }

  /**
   * The delivery job flags this process does not fetch now: its webhooks with
   * WEBHOOK_SLOTS jobs here and its workspaces with WORKSPACE_SLOTS (null: none).
   * A job queued before its flags existed is still fetched, and put off by take.
   */
  private forbiddenFlags(): string[] | null {
    const flags: string[] = [];
    for (const [webhookId, held] of this.webhookHeld) if (held >= WEBHOOK_SLOTS) flags.push(webhookFlag(webhookId));
    for (const [workspaceId, taken] of this.inFlight) if (taken >= WORKSPACE_SLOTS) flags.push(workspaceFlag(workspaceId));
    return flags.length > 0 ? flags : null;
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
      if ((await this.deliver(job, dueAt)) === 'busy') return later();
      await this.drain(job.webhook_id);
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
    await this.attemptLeased(job, dueAt, start);
  }

  /**
   * Makes and records an attempt whose lease `start` took. Not recorded
   * (cancelled, abandoned or failed): the lease goes back and the stand-in
   * falls due now, rather than when they run out; while the database is
   * unreachable that is retried by each dispatch round (giveBackLater).
   */
  private async attemptLeased(job: DeliveryJob, dueAt: Date, start: AttemptStart): Promise<void> {
    let recorded = false;
    try {
      recorded = await this.attempt(job, dueAt, start.url, start.secret);
    } finally {
      if (!recorded && start.leaseUntil !== null) {
        const back = { webhookId: job.webhook_id, leaseUntil: start.leaseUntil, key: deliveryJobKey(job) };
        await this.repo.giveBack([back]).catch(() => this.unfinished.set(back.key, back));
      }
    }
  }

  /**
   * The webhook's next due attempts, after one of its jobs (see BATCH_MS):
   * each claimed (with its lease and stand-in, claimNext), made and recorded
   * in turn, without a trip through the queue's fetch and completion.
   */
  private async drain(webhookId: number): Promise<void> {
    const { timeoutMs } = this.settings;
    const until = performance.now() + BATCH_MS;
    for (let n = 0; n < BATCH_MAX && performance.now() < until && !this.stopping.signal.aborted; n++) {
      const start = await this.repo.claimNext(webhookId, timeoutMs + STAND_IN_MARGIN_MS, timeoutMs + STALE_MARGIN_MS);
      if (!start) return;
      if (!start.go) {
        await this.repo.dropJob(start.job);
        continue;
      }
      await this.attemptLeased(start.job, start.dueAt, start);
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
      processLogger().info(
        { context: 'Webhooks', webhook_id: job.webhook_id, event_id: job.event_id, attempt: job.attempt },
        'webhook delivery attempt abandoned at shutdown',
      );
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
