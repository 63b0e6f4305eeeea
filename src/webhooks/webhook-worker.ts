import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'crypto';
import { EventEmitter, setMaxListeners } from 'events';
import { parseCronItems, run as runQueue, type Runner, type TaskList } from 'graphile-worker';
import { hostname } from 'os';
import { Pool } from 'pg';
import { setTimeout as sleep } from 'timers/promises';

import { ScheduledTasks } from '../common/background/scheduled-tasks';
import { jobQueueLogger } from '../common/database/job-queue';
import { boundedPoolOptions } from '../common/database/pool-options';
import { processLogger } from '../common/logging/logger';
import type { AppEnv, WebhookSettings } from '../config/env';
import { InjectSettings } from '../config/settings';
import type { Timeouts } from '../config/timeouts';
import { DELIVERY_TASK, DeliveryJob, webhookFlag, workspaceFlag } from './delivery-job';
import { IdlePollGate } from './idle-poll-gate';
import { WebhookDrain } from './webhook-drain';
import { WebhookMetrics } from './webhooks.metrics';
import { Unrecorded, WebhooksRepository } from './webhooks.repository';

/** Delivery jobs one process runs at once: each is a drain of its webhook's due attempts (WebhookDrain), or a job handed to one. */
const CONCURRENCY = 20;
/**
 * Attempts of one webhook one process has in flight at once (D38 promises no
 * order). A process has at most CONCURRENCY drains, so at most
 * CONCURRENCY * WEBHOOK_IN_FLIGHT attempts in flight.
 */
export const WEBHOOK_IN_FLIGHT = 16;
/**
 * D38, tenants do not wait for each other: drains (and jobs handed to them)
 * of one workspace one process holds at once. Further jobs are put off
 * (DEFER_MS), so that CONCURRENCY - WORKSPACE_SLOTS slots stay free for the
 * other workspaces whatever its receivers do (a silent one holds its
 * attempts for WEBHOOK_TIMEOUT_MS).
 */
const WORKSPACE_SLOTS = 6;
/** How long a job of a workspace with all its slots taken (or of a webhook busy in another process) waits before it is fetched again. */
const DEFER_MS = 1_000;
/**
 * How long a drain claims new attempts of its webhook; then it lets its
 * attempts in flight end, records them and gives the webhook's and
 * workspace's slots back (D38 fairness: other webhooks and workspaces get
 * their turn).
 */
const BATCH_MS = 1_000;
/** How often the queue looks for jobs that fell due (new jobs are announced at once); well under D38's 5 s. */
const POLL_INTERVAL_MS = 1_000;
/**
 * How often the dispatcher looks for committed events to fan out to webhooks (D38: an attempt starts within 5 s of
 * the commit): DISPATCH_INTERVAL_MS after a round that found work, doubled after each round that found none, up to
 * DISPATCH_IDLE_INTERVAL_MS (an idle process's look costs a statement).
 */
const DISPATCH_INTERVAL_MS = 200;
const DISPATCH_IDLE_INTERVAL_MS = 1_000;
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
  /** Holds its idle workers but one per poll interval; closed when it stops. */
  gate: IdlePollGate;
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
 * one process; a job starts a drain of its webhook (WebhookDrain: up to
 * WEBHOOK_IN_FLIGHT attempts in flight, claimed, recorded and sent in
 * batches, for BATCH_MS, under the webhook's attempt lease: one process
 * drains a webhook at a time), or joins the one running here. A workspace
 * holds at most WORKSPACE_SLOTS of a process's slots; jobs fetched by a
 * process that died are freed after WEBHOOK_TIMEOUT_MS + STALE_MARGIN_MS,
 * when its leases have run out too. An attempt starts only for an existing,
 * active webhook and an attempt not yet recorded (checked again, under a
 * lock, right before it sends), uses the webhook's url as it is then, and
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
  /** Jobs taken by this process (drains, and jobs handed to them), by workspace. */
  private readonly inFlight = new Map<number, number>();
  /** This process as the holder of webhooks' attempt leases. */
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID()}`;
  /** The drain of each webhook this process runs now. */
  private readonly drains = new Map<number, { drain: WebhookDrain; ended: Promise<void> }>();
  /** Unrecorded attempts whose lease and stand-in could not be given back yet (the database was unreachable), by job key. */
  private readonly unfinished = new Map<string, Unrecorded>();
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
    // Each attempt in flight listens for shutdown on this signal.
    setMaxListeners(CONCURRENCY * WEBHOOK_IN_FLIGHT + 10, this.stopping.signal);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.settings.worker || !this.databaseUrl) return;
    await this.start();
    this.loops = [
      this.every(DISPATCH_INTERVAL_MS, 'webhook dispatch', () => this.dispatch(), DISPATCH_IDLE_INTERVAL_MS),
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
    run.gate.close();
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
    const gate = new IdlePollGate(POLL_INTERVAL_MS);
    events.on('worker:getJob:empty', () => gate.empty());
    events.on('job:start', () => gate.busy());
    events.on('pool:listen:notification', () => gate.busy());
    let run: QueueRun | undefined;
    let poolId: string | undefined;
    let broken: string | undefined;
    const fail = (reason: string) => {
      broken ??= reason;
      gate.close();
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
      forbiddenFlags: () => gate.pass(() => this.forbiddenFlags()),
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
      gate.close();
      void starting.then(
        (late) => late.stop().catch(() => undefined),
        () => undefined,
      );
      void pool.end().catch(() => undefined);
      throw error;
    });
    clearTimeout(timer);
    run = Object.assign(counter, { runner, pool, poolId, startedAt: Date.now(), gate });
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
    run.gate.close();
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

  /**
   * Runs `round` until shutdown: again at once after a round that resolves true, else after a wait of `intervalMs`,
   * doubled after each further round that found nothing, up to `idleMaxMs` (ms); a failing round is logged and retried.
   */
  private async every(intervalMs: number, what: string, round: () => Promise<boolean>, idleMaxMs = intervalMs): Promise<void> {
    const { signal } = this.stopping;
    let failures = 0;
    let waitMs = intervalMs;
    while (!signal.aborted) {
      let again = false;
      try {
        again = await round();
        if (again) waitMs = intervalMs;
        if (failures > 0) processLogger().warn({ context: 'Webhooks', failed_rounds: failures }, `${what} works again`);
        failures = 0;
      } catch (error) {
        failures += 1;
        if (!signal.aborted) processLogger().warn({ context: 'Webhooks', failed_rounds: failures }, `${what} failed: ${(error as Error).message}`);
      }
      if (!again) {
        await sleep(waitMs, undefined, { signal }).catch(() => undefined);
        waitMs = Math.min(idleMaxMs, waitMs * 2);
      }
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
   * a drain here and its workspaces with WORKSPACE_SLOTS jobs (null: none).
   * A job queued before its flags existed is still fetched, and put off by take.
   */
  private forbiddenFlags(): string[] | null {
    const flags: string[] = [];
    for (const webhookId of this.drains.keys()) flags.push(webhookFlag(webhookId));
    for (const [workspaceId, taken] of this.inFlight) if (taken >= WORKSPACE_SLOTS) flags.push(workspaceFlag(workspaceId));
    return flags.length > 0 ? flags : null;
  }

  /**
   * A job handed to this process: given to its webhook's drain here, or put
   * off DEFER_MS (a job under the same key, keeping when it first fell due)
   * when its workspace already has WORKSPACE_SLOTS jobs here or another
   * process holds the webhook's lease; else it starts a drain of its webhook
   * and runs it to its end.
   */
  private async take(job: DeliveryJob, runAt: Date): Promise<void> {
    const dueAt = job.due_at ? new Date(job.due_at) : runAt;
    const dueIn = (ms: number) => this.current?.gate.dueIn(ms);
    const later = () => this.repo.defer({ ...job, due_at: dueAt.toISOString() }, DEFER_MS).then(() => dueIn(DEFER_MS));
    const workspaceId = Number(job.body.workspace_id);
    const taken = this.inFlight.get(workspaceId) ?? 0;
    if (taken >= WORKSPACE_SLOTS) return later();
    this.inFlight.set(workspaceId, taken + 1);
    try {
      // The webhook's drain here takes the job; one that is ending (its last step gives the lease back) is waited for.
      for (let current = this.drains.get(job.webhook_id); current; current = this.drains.get(job.webhook_id)) {
        const running = current.drain.add(job, dueAt);
        if (running) {
          if ((await running) === 'busy') await later();
          return;
        }
        await current.ended;
      }
      const { timeoutMs } = this.settings;
      const drain = new WebhookDrain(
        job.webhook_id,
        workspaceId,
        this.repo,
        this.metrics,
        this.settings,
        {
          owner: this.owner,
          inFlight: WEBHOOK_IN_FLIGHT,
          batchMs: BATCH_MS,
          standInMs: timeoutMs + STAND_IN_MARGIN_MS,
          leaseMs: timeoutMs + STALE_MARGIN_MS,
          dueIn,
        },
        this.stopping.signal,
      );
      let ended!: () => void;
      this.drains.set(job.webhook_id, { drain, ended: new Promise<void>((resolve) => (ended = resolve)) });
      const seed = drain.add(job, dueAt)!;
      seed.catch(() => undefined); // awaited after the drain; a failure is not unhandled meanwhile
      let lost;
      try {
        lost = await drain.run();
      } finally {
        this.drains.delete(job.webhook_id);
        ended();
      }
      if (lost.length > 0) await this.repo.giveBack(lost).catch(() => lost.forEach((back) => this.unfinished.set(back.key, back)));
      if ((await seed) === 'busy') await later();
    } finally {
      const left = (this.inFlight.get(workspaceId) ?? 1) - 1;
      if (left > 0) this.inFlight.set(workspaceId, left);
      else this.inFlight.delete(workspaceId);
    }
  }
}
