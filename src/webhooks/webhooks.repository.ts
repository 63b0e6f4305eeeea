import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { Sql } from '../common/database/sql';
import { writeStatement } from '../common/database/write-statement';
import type { EventType } from '../events/event-types';
import { eventHorizonSql } from '../events/events.sql';
import { DELIVERY_TASK, DeliveryJob, deliveryJobFlags, deliveryJobKey, webhookFlag } from './delivery-job';
import type { CreatedWebhookDto, DeliveryResult, WebhookDeliveryDto, WebhookDto } from './webhooks.dto';

const WEBHOOK_COLUMNS = `id, workspace_id, url, events, active, api_ts(created_at) AS created_at`;

/** First half of the advisory lock key `(WEBHOOKS_LOCK_NAMESPACE, workspace_id)` creates of a workspace's webhooks take turns on: 'WHKS'. */
const WEBHOOKS_LOCK_NAMESPACE = 0x57484b53;

/** D38: the deliveries route shows this many of the most recent attempts. */
const DELIVERIES_SHOWN = 100;

/** `value` as a safe integer (it is written into SQL text); throws otherwise. */
function safeInt(value: unknown): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer: ${String(value)}`);
  return n;
}

/** What an attempt needs of its webhook when it starts. */
export interface AttemptStart {
  /** false: the webhook is gone or inactive, or this attempt was already recorded, or `busy`: nothing to do now. */
  go: boolean;
  /** Another attempt of the webhook is in flight (its lease is held): this one is to be made later. */
  busy: boolean;
  url: string;
  secret: string;
  /** The lease's end as PostgreSQL wrote it (text: exact to the microsecond), when this attempt took it. */
  leaseUntil: string | null;
}

/** A finished attempt, as recorded. */
export interface AttemptRecord {
  result: DeliveryResult;
  responseStatus: number | null;
  durationMs: number;
  attemptedAt: Date;
}

/** WebhooksRepository.insert's statement (under the workspace's webhook lock). */
const INSERT = writeStatement<{ workspaceId: number; url: string; events: EventType[]; secret: string; max: number }, CreatedWebhookDto>(
  'webhook.insert',
  () => '',
  (w) => {
    const ws = w.arg((i) => i.workspaceId);
    return w
      .write(
        'wh',
        `(INSERT INTO webhooks (workspace_id, url, events, secret, dispatched_through)
         SELECT ${ws}, ${w.arg((i) => i.url)}, ${w.arg((i) => i.events)}, ${w.arg((i) => i.secret)}, ${eventHorizonSql(`${ws}::int`)}
          WHERE (SELECT count(*) FROM webhooks WHERE workspace_id = ${ws}) < ${w.arg((i) => i.max)}
         RETURNING *)`,
      )
      .noEvent('D37 has no webhook events: a webhook is delivery configuration')
      .select(`${WEBHOOK_COLUMNS}, secret FROM wh`);
  },
);

/** WebhooksRepository.update's statement. */
const UPDATE = writeStatement<{ id: number; patch: { url?: string; events?: EventType[]; active?: boolean } }, WebhookDto>(
  'webhook.update',
  () => '',
  (w) => {
    const active = w.arg((i) => i.patch.active ?? null, 'boolean');
    return w
      .write(
        'wh',
        `(UPDATE webhooks SET url = COALESCE(${w.arg((i) => i.patch.url ?? null, 'text')}, url), events = COALESCE(${w.arg((i) => i.patch.events ?? null)}, events),
              active = COALESCE(${active}, active),
              activated_at = CASE WHEN ${active} AND NOT active THEN now() ELSE activated_at END,
              dispatched_through = CASE WHEN ${active} AND NOT active THEN ${eventHorizonSql('workspace_id')} ELSE dispatched_through END
        WHERE id = ${w.arg((i) => i.id, 'int')} RETURNING *)`,
      )
      .noEvent('D37 has no webhook events: a webhook is delivery configuration')
      .select(`${WEBHOOK_COLUMNS} FROM wh`);
  },
);

/** WebhooksRepository.delete's statement. */
const DELETE = writeStatement<{ id: number }, { count: string }>(
  'webhook.delete',
  () => '',
  (w) =>
    w
      .write('wh', `(DELETE FROM webhooks WHERE id = ${w.arg((i) => i.id, 'int')} RETURNING id)`)
      .noEvent('D37 has no webhook events: a webhook is delivery configuration')
      .select('count(*) FROM wh'),
);

/** The API's write statements of webhooks (the delivery worker's bookkeeping statements are its own). */
export const WEBHOOK_WRITES = [INSERT, UPDATE, DELETE];

/** SQL for webhooks, their delivery log, and the delivery jobs of the queue (graphile-worker's SQL API). */
@Injectable()
export class WebhooksRepository {
  constructor(
    private readonly sql: Sql,
    private readonly db: DataSource,
  ) {}

  /**
   * Inserts a webhook unless the workspace already has `max` (D38); returns it
   * with its secret, or null when the workspace is full. Creates of one
   * workspace take turns (a transaction-level advisory lock), so the count each
   * sees includes the others'. Its dispatch cursor starts at the workspace's
   * event horizon: the events committed afterwards are delivered to it, none
   * before (the horizon waits for writes in flight).
   */
  async insert(workspaceId: number, url: string, events: EventType[], secret: string, max: number): Promise<CreatedWebhookDto | null> {
    return this.db.transaction(async (em) => {
      await em.query(`SELECT pg_advisory_xact_lock(${WEBHOOKS_LOCK_NAMESPACE}, $1::int)`, [workspaceId]);
      return (await INSERT.run(em, { workspaceId, url, events, secret, max }))[0] ?? null;
    });
  }

  /** A workspace's webhooks by id (D38). */
  listByWorkspace(workspaceId: number): Promise<WebhookDto[]> {
    return this.sql.rows(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE workspace_id = $1 ORDER BY id`, [workspaceId]);
  }

  /**
   * Changes the fields given (undefined: unchanged); null when the webhook is
   * gone. Re-activation moves the dispatch cursor to the workspace's event
   * horizon: only events committed afterwards are delivered (D38).
   */
  async update(id: number, patch: { url?: string; events?: EventType[]; active?: boolean }): Promise<WebhookDto | null> {
    return (await UPDATE.run(this.sql, { id, patch }))[0] ?? null;
  }

  /** Deletes a webhook and its delivery log; its pending jobs find it gone and stop. */
  async delete(id: number): Promise<void> {
    await DELETE.run(this.sql, { id });
  }

  /** D38: the webhook's 100 most recent finished attempts, newest first. */
  listDeliveries(webhookId: number): Promise<WebhookDeliveryDto[]> {
    return this.sql.rows(
      `SELECT id, event_id, attempt, result, response_status, duration_ms, api_ts(attempted_at) AS attempted_at
         FROM webhook_deliveries WHERE webhook_id = $1
        ORDER BY attempted_at DESC, id DESC LIMIT ${DELIVERIES_SHOWN}`,
      [webhookId],
    );
  }

  /**
   * The start of attempt `job.attempt`, which fell due at `dueAt`, in one
   * statement: the webhook's url and secret, and `go` true only when it
   * exists, is active, has been active since `dueAt` (D38: an attempt falling
   * due while inactive is dropped for good), this attempt is not recorded yet,
   * and no other attempt of the webhook is in flight (`busy` otherwise): then
   * it takes the webhook's attempt lease for `leaseMs` (D38: one attempt in
   * flight per webhook; recordAttempt or giveBack gives it back, a dead
   * process's runs out) and queues a stand-in job for the same attempt under
   * the delivery's job key, due `standInMs` from now: if this process dies
   * before the attempt is recorded, the stand-in makes it (the running job
   * keeps no key, graphile-worker's add_job rule for a locked job);
   * recordAttempt replaces or removes it.
   */
  async startAttempt(job: DeliveryJob, dueAt: Date, standInMs: number, leaseMs: number): Promise<AttemptStart> {
    const rows = await this.sql.rows<AttemptStart>(
      `WITH hook AS (
         SELECT w.url, w.secret,
                w.active AND w.activated_at <= $8 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                                          WHERE d.webhook_id = w.id AND d.event_id = $2 AND d.attempt = $3) AS go
           FROM webhooks w WHERE w.id = $1),
       lease AS (
         UPDATE webhooks w SET attempt_until = now() + $9 * interval '1 millisecond'
           FROM hook WHERE w.id = $1 AND hook.go AND (w.attempt_until IS NULL OR w.attempt_until < now())
         RETURNING w.id, w.attempt_until::text AS until),
       stand_in AS (
         SELECT graphile_worker.add_job($4, $5::json, run_at := now() + $6 * interval '1 millisecond', job_key := $7, flags := $10::text[])
           FROM lease)
       SELECT hook.url, hook.secret, hook.go AND (SELECT count(*) FROM stand_in) = 1 AS go,
              hook.go AND NOT EXISTS (SELECT 1 FROM lease) AS busy, (SELECT until FROM lease) AS "leaseUntil"
         FROM hook`,
      [job.webhook_id, job.event_id, job.attempt, DELIVERY_TASK, JSON.stringify(job), standInMs, deliveryJobKey(job), dueAt, leaseMs, deliveryJobFlags(job)],
    );
    return rows[0] ?? { go: false, busy: false, url: '', secret: '', leaseUntil: null };
  }

  /**
   * Attempts that ended unrecorded (cancelled, abandoned, or failed with the
   * database): each webhook's attempt lease goes back if it is still the one
   * the attempt took (`leaseUntil`: never another process's, taken after it ran
   * out), and each stand-in job (`key`) falls due now rather than when it was
   * set to; so do the delivery jobs a failure put off (graphile-worker's
   * exponential delay: only a lost database makes a delivery job fail).
   */
  async giveBack(attempts: Array<{ webhookId: number; leaseUntil: string; key: string }>): Promise<void> {
    await this.sql.rows(
      `WITH lease AS (
         UPDATE webhooks w SET attempt_until = NULL FROM unnest($1::int[], $2::timestamptz[]) AS u(id, until)
          WHERE w.id = u.id AND w.attempt_until = u.until RETURNING 1),
       stand_in AS (
         UPDATE graphile_worker._private_jobs j SET run_at = now() WHERE j.key = ANY ($3::text[]) AND j.locked_at IS NULL AND j.run_at > now() RETURNING 1),
       due_again AS (
         UPDATE graphile_worker._private_jobs j SET run_at = now()
          WHERE j.task_id = (SELECT t.id FROM graphile_worker._private_tasks t WHERE t.identifier = $4)
            AND j.locked_at IS NULL AND j.last_error IS NOT NULL AND j.attempts > 0 AND j.attempts < j.max_attempts AND j.run_at > now()
          RETURNING 1)
       SELECT (SELECT count(*) FROM lease) + (SELECT count(*) FROM stand_in) + (SELECT count(*) FROM due_again) AS n`,
      [attempts.map((a) => a.webhookId), attempts.map((a) => a.leaseUntil), attempts.map((a) => a.key), DELIVERY_TASK],
    );
  }

  /**
   * D38 (after DELETE answers, or a pause, no attempt starts): runs `send` (it
   * queues the request's bytes) while holding a share lock on the webhook row,
   * if the webhook still exists, is active and has been active since `dueAt`.
   * An update or delete of the webhook waits for that lock, so once it has
   * answered no attempt sends anything. When the attempt may not go, the
   * delivery's pending job is removed too. Resolves whether `send` ran. Two
   * round trips: BEGIN and the locking read go together (simple protocol, the
   * values are integers and a timestamp written by us), then COMMIT.
   */
  async sendIfActive(job: DeliveryJob, dueAt: Date, send: () => void): Promise<boolean> {
    const webhookId = safeInt(job.webhook_id);
    return this.sql.withClient(async (client) => {
      const results = (await client.query(
        `BEGIN; SELECT 1 FROM webhooks WHERE id = ${webhookId} AND active AND activated_at <= '${dueAt.toISOString()}'::timestamptz FOR SHARE`,
      )) as unknown as Array<{ rowCount: number }>;
      if (results[1].rowCount === 0) {
        await client.query(`COMMIT; SELECT graphile_worker.remove_job('${deliveryJobKey({ webhook_id: webhookId, event_id: safeInt(job.event_id) })}')`);
        return false;
      }
      try {
        send();
      } finally {
        await client.query('COMMIT');
      }
      return true;
    });
  }

  /**
   * The next due delivery job of webhook `webhookId` (D38: not started by
   * anyone, unlocked), claimed in one statement for a process that already
   * holds the webhook's turn: the job itself becomes the attempt's stand-in
   * (due `standInMs` from now, so that another process makes the attempt if
   * this one dies before recording it; recordAttempt replaces or removes it),
   * and the webhook's attempt lease is taken for `leaseMs`. Null when there is
   * none due, the webhook is gone or inactive, or another process holds its
   * lease. `go` is false when the attempt fell due while the webhook was
   * inactive or was already recorded: the caller drops it (dropJob).
   */
  async claimNext(webhookId: number, standInMs: number, leaseMs: number): Promise<(AttemptStart & { job: DeliveryJob; dueAt: Date }) | null> {
    const rows = await this.sql.rows<{ payload: DeliveryJob; due_at: Date; url: string; secret: string; go: boolean; lease_until: string }>(
      `WITH hook AS (SELECT w.url, w.secret, w.activated_at FROM webhooks w WHERE w.id = $1 AND w.active),
       next AS (
         SELECT j.id, j.payload, COALESCE((j.payload->>'due_at')::timestamptz, j.run_at) AS due_at
           FROM graphile_worker._private_jobs j
          WHERE j.is_available AND j.run_at <= now() AND j.flags ? $3
            AND j.task_id = (SELECT t.id FROM graphile_worker._private_tasks t WHERE t.identifier = $2)
            AND EXISTS (SELECT 1 FROM hook)
          ORDER BY j.priority, j.run_at, j.id LIMIT 1 FOR UPDATE SKIP LOCKED),
       lease AS (
         UPDATE webhooks w SET attempt_until = now() + $5 * interval '1 millisecond'
          WHERE w.id = $1 AND EXISTS (SELECT 1 FROM next) AND (w.attempt_until IS NULL OR w.attempt_until < now())
         RETURNING w.id, w.attempt_until::text AS until),
       claimed AS (
         UPDATE graphile_worker._private_jobs j SET run_at = now() + $4 * interval '1 millisecond'
           FROM next WHERE j.id = next.id AND EXISTS (SELECT 1 FROM lease)
         RETURNING next.payload, next.due_at)
       SELECT c.payload, c.due_at, hook.url, hook.secret, (SELECT until FROM lease) AS lease_until,
              hook.activated_at <= c.due_at AND NOT EXISTS (
                SELECT 1 FROM webhook_deliveries d
                 WHERE d.webhook_id = $1 AND d.event_id = (c.payload->>'event_id')::bigint AND d.attempt = (c.payload->>'attempt')::int) AS go
         FROM claimed c, hook`,
      [webhookId, DELIVERY_TASK, webhookFlag(webhookId), standInMs, leaseMs],
    );
    const row = rows[0];
    return row
      ? { job: row.payload, dueAt: new Date(row.due_at), url: row.url, secret: row.secret, go: row.go, busy: false, leaseUntil: row.lease_until }
      : null;
  }

  /** Drops a claimed attempt that may not be made (claimNext's `go` false): its job, and the webhook's attempt lease. */
  async dropJob(job: DeliveryJob): Promise<void> {
    await this.sql.rows(`WITH lease AS (UPDATE webhooks SET attempt_until = NULL WHERE id = $1) SELECT graphile_worker.remove_job($2)`, [
      job.webhook_id,
      deliveryJobKey(job),
    ]);
  }

  /**
   * Records a finished attempt and, in the same statement (one round trip),
   * what follows it: `next` (the next attempt, due `nextInMs` from now)
   * replaces the stand-in job, or without `next` the stand-in is removed; the
   * webhook's attempt lease is given back. When the webhook is gone the
   * stand-in is removed and nothing is recorded; when the attempt was already
   * recorded (a job run twice) nothing changes. A recorded attempt drops the
   * webhook's attempts older than the DELIVERIES_SHOWN most recent (itself
   * included: the statement's snapshot does not see it, hence the offset one
   * less), so a finished job never leaves more than that.
   */
  async recordAttempt(job: DeliveryJob, record: AttemptRecord, next: { job: DeliveryJob; inMs: number } | null): Promise<void> {
    await this.sql.rows(
      `WITH lease AS (
         UPDATE webhooks SET attempt_until = NULL WHERE id = $1 RETURNING id),
       recorded AS (
         INSERT INTO webhook_deliveries (webhook_id, event_id, attempt, result, response_status, duration_ms, attempted_at)
         SELECT lease.id, $2, $3, $4, $5, $6, $7 FROM lease
         ON CONFLICT (webhook_id, event_id, attempt) DO NOTHING
         RETURNING id),
       trimmed AS (
         DELETE FROM webhook_deliveries WHERE EXISTS (SELECT 1 FROM recorded) AND id IN (
           SELECT id FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY attempted_at DESC, id DESC OFFSET ${DELIVERIES_SHOWN - 1}))
       SELECT CASE
                WHEN EXISTS (SELECT 1 FROM recorded) AND $9::json IS NOT NULL
                  THEN (graphile_worker.add_job($11, $9::json, run_at := now() + $10 * interval '1 millisecond', job_key := $8, flags := $12::text[])).id
                WHEN EXISTS (SELECT 1 FROM recorded) OR NOT EXISTS (SELECT 1 FROM lease)
                  THEN (graphile_worker.remove_job($8)).id
              END AS job_id`,
      [
        job.webhook_id,
        job.event_id,
        job.attempt,
        record.result,
        record.responseStatus,
        record.durationMs,
        record.attemptedAt,
        deliveryJobKey(job),
        next ? JSON.stringify(next.job) : null,
        next?.inMs ?? 0,
        DELIVERY_TASK,
        deliveryJobFlags(job),
      ],
    );
  }

  /** Puts `job` off: the same attempt under the same key and queue, due `inMs` from now (the running job then just ends). */
  async defer(job: DeliveryJob, inMs: number): Promise<void> {
    await this.sql.rows(`SELECT graphile_worker.add_job($1, $2::json, run_at := now() + $3 * interval '1 millisecond', job_key := $4, flags := $5::text[])`, [
      DELIVERY_TASK,
      JSON.stringify(job),
      inMs,
      deliveryJobKey(job),
      deliveryJobFlags(job),
    ]);
  }

  /**
   * The workspaces that have an active webhook behind their last committed
   * event: those the dispatcher has work in.
   */
  async dispatchPending(): Promise<number[]> {
    const rows = await this.sql.rows<{ workspace_id: number }>(
      `SELECT DISTINCT w.workspace_id FROM webhooks w
        WHERE w.active AND w.dispatched_through < (SELECT max(e.id) FROM events e WHERE e.workspace_id = w.workspace_id)`,
      [],
    );
    return rows.map((r) => r.workspace_id);
  }

  /**
   * Queues attempt 1 of workspace `workspaceId`'s events for its active
   * webhooks, exactly once per (event, webhook) whatever the number of
   * processes (`webhooks_dispatch`, migration 1795910000000): the events up to
   * the workspace's event horizon, taken first in a statement of its own (so
   * writers wait for no dispatch), at most `batch` events per webhook.
   * Resolves the number of jobs queued.
   */
  async dispatch(workspaceId: number, batch: number): Promise<number> {
    const [{ horizon }] = await this.sql.rows<{ horizon: string }>(`SELECT (${eventHorizonSql('$1::int')})::text AS horizon`, [workspaceId]);
    const [{ queued }] = await this.sql.rows<{ queued: number }>(`SELECT webhooks_dispatch($1, $2, $3) AS queued`, [workspaceId, horizon, batch]);
    return queued;
  }

  /**
   * Frees the delivery jobs that a process
   * fetched more than `staleMs` ago and never finished: it died (D38: its
   * attempts are taken over). graphile-worker itself does this after 4 hours;
   * an attempt of a live process ends well within `staleMs` (its timeout and
   * the statements around it). Resolves how many jobs were freed.
   */
  async freeStaleJobs(staleMs: number): Promise<number> {
    const rows = await this.sql.rows<{ n: number }>(
      `WITH freed AS (
         UPDATE graphile_worker._private_jobs j SET locked_at = NULL, locked_by = NULL, run_at = greatest(j.run_at, now())
          WHERE j.locked_at < now() - $1 * interval '1 millisecond'
            AND j.task_id = (SELECT t.id FROM graphile_worker._private_tasks t WHERE t.identifier = $2)
          RETURNING 1)
       SELECT count(*)::int AS n FROM freed`,
      [staleMs, DELIVERY_TASK],
    );
    return rows[0].n;
  }

  /**
   * After the queue's runner was replaced (its database connection lost): frees
   * the jobs locked by the retired runners' worker pools `poolIds` (none of them
   * runs any more; those replaced while they ran are deleted, as their completion would have), and makes due now the delivery jobs put off by a failure
   * (graphile-worker's exponential delay after an attempt that threw: only a
   * lost database makes a delivery job throw; a scheduled retry carries no error).
   */
  async freeJobsOf(poolIds: string[]): Promise<{ freed: number; dueAgain: number }> {
    const rows = await this.sql.rows<{ freed: number; due_again: number }>(
      `WITH freed AS (
         UPDATE graphile_worker._private_jobs j SET locked_at = NULL, locked_by = NULL, run_at = greatest(j.run_at, now())
          WHERE j.locked_by = ANY ($1::text[]) AND j.attempts < j.max_attempts RETURNING 1),
       -- A job replaced while it ran (put off, or its stand-in queued) has no attempts left: it would only have been deleted.
       spent AS (DELETE FROM graphile_worker._private_jobs j WHERE j.locked_by = ANY ($1::text[]) AND j.attempts >= j.max_attempts),
       due_again AS (
         UPDATE graphile_worker._private_jobs j SET run_at = now()
          WHERE j.task_id = (SELECT t.id FROM graphile_worker._private_tasks t WHERE t.identifier = $2)
            AND j.locked_at IS NULL AND j.last_error IS NOT NULL AND j.attempts > 0 AND j.attempts < j.max_attempts AND j.run_at > now()
          RETURNING 1)
       SELECT (SELECT count(*) FROM freed)::int AS freed, (SELECT count(*) FROM due_again)::int AS due_again`,
      [poolIds, DELIVERY_TASK],
    );
    return { freed: rows[0].freed, dueAgain: rows[0].due_again };
  }

  /** Pending delivery jobs (retries scheduled later included) and the age in seconds of the oldest one due (0: none). */
  async queueState(): Promise<{ pending: number; oldest_due_seconds: number }> {
    const rows = await this.sql.rows<{ pending: number; oldest_due_seconds: number }>(
      `SELECT count(*)::int AS pending,
              COALESCE(EXTRACT(EPOCH FROM now() - min(run_at) FILTER (WHERE run_at <= now())), 0)::float8 AS oldest_due_seconds
         FROM graphile_worker.jobs WHERE task_identifier = $1 AND attempts < max_attempts`,
      [DELIVERY_TASK],
    );
    return rows[0];
  }
}
