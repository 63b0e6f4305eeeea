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

/** What WebhooksRepository.step is to do (see there). */
export interface StepInput {
  records: Array<{ job: DeliveryJob; record: AttemptRecord; next: { job: DeliveryJob; inMs: number } | null }>;
  drops: string[];
  seeds: Array<{ job: DeliveryJob; dueAt: Date }>;
  claim: number;
  /** Attempts of the webhook this process still has in flight besides those this step starts. */
  inFlight: number;
  /** This process's name as the holder of attempt leases (`webhooks.attempt_by`): a lease it holds is its own even when a step's answer was lost. */
  owner: string;
  /** The delivery job flags of the webhook's jobs (deliveryJobFlags). */
  flags: string[];
  standInMs: number;
  leaseMs: number;
}

/** What WebhooksRepository.step did. */
export interface StepResult {
  /** The webhook's url and secret now (null: it is gone). */
  url: string | null;
  secret: string | null;
  /** The lease this process holds now (text: exact to the microsecond), or null. */
  leaseUntil: string | null;
  /** The jobs claimed: attempts to make now. */
  claimed: Array<{ job: DeliveryJob; dueAt: Date }>;
  /** Per seed, in order: `go` (make it now), `busy` (another process holds the lease: put it off), or neither (nothing to do). */
  seeds: Array<{ go: boolean; busy: boolean }>;
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

/** An attempt whose outcome was lost (shutdown, or a database failure): its webhook's lease and its stand-in job go back (giveBack). */
export interface Unrecorded {
  webhookId: number;
  leaseUntil: string;
  key: string;
}

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
   * Attempts that ended unrecorded (cancelled, abandoned, or failed with the
   * database): each webhook's attempt lease goes back if it is still the one
   * the attempt took (`leaseUntil`: never another process's, taken after it ran
   * out), and each stand-in job (`key`) falls due now rather than when it was
   * set to; so do the delivery jobs a failure put off (graphile-worker's
   * exponential delay: only a lost database makes a delivery job fail).
   */
  async giveBack(attempts: Unrecorded[]): Promise<void> {
    await this.sql.rows(
      `WITH lease AS (
         UPDATE webhooks w SET attempt_until = NULL, attempt_by = NULL FROM unnest($1::int[], $2::timestamptz[]) AS u(id, until)
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
   * D38 (after DELETE answers, or a pause, no attempt starts): one lock for a
   * batch of connected attempts of webhook `webhookId`, due at `dueAts`. While
   * a share lock on the webhook row is held, `send(i)` runs (it queues the
   * request's bytes) for each attempt i that may still go: the webhook
   * exists, is active and has been active since that attempt fell due. An
   * update or delete of the webhook waits for that lock, so once it has
   * answered no attempt sends anything. Resolves, per attempt, whether `send`
   * ran. Two round trips: BEGIN and the locking read go together (simple
   * protocol, the values are an integer and timestamps written by us), then COMMIT.
   */
  async sendLocked(webhookId: number, dueAts: Date[], send: (i: number) => void): Promise<boolean[]> {
    const id = safeInt(webhookId);
    const dues = dueAts.map((d) => `'${d.toISOString()}'`).join(', ');
    return this.sql.withClient(async (client) => {
      const results = (await client.query(
        `BEGIN; SELECT (u.i - 1)::int AS i FROM webhooks w, unnest(ARRAY[${dues}]::timestamptz[]) WITH ORDINALITY AS u(due, i)
          WHERE w.id = ${id} AND w.active AND w.activated_at <= u.due FOR SHARE OF w`,
      )) as unknown as Array<{ rows: Array<{ i: number }> }>;
      const sent = dueAts.map(() => false);
      try {
        for (const { i } of results[1].rows) {
          send(i);
          sent[i] = true;
        }
      } finally {
        await client.query('COMMIT');
      }
      return sent;
    });
  }

  /**
   * One step of a process's run through webhook `webhookId`'s due attempts
   * (WebhookDrain), in one statement, under a lock on the webhook row (an
   * update or delete of the webhook waits for it, and it for them):
   *
   * - `records`: finished attempts, recorded (unless the webhook is gone, or
   *   the attempt already was: a job run twice), each with what follows it:
   *   its `next` attempt replaces its stand-in job (due `nextInMs` from now),
   *   or without one the stand-in is removed (also when the webhook is gone).
   *   The webhook's log keeps its DELIVERIES_SHOWN most recent attempts.
   * - `drops`: job keys of attempts that may not go (the send lock found the
   *   webhook inactive or gone): removed.
   * - `seeds`: jobs the queue handed to this process (locked by it): each
   *   `go` when the webhook exists, is active, has been active since the
   *   attempt fell due, the attempt is not recorded yet and the attempt lease
   *   is free or this process's (`owner`); then a stand-in job under the
   *   delivery's key is queued, due `standInMs` from now (the running job
   *   keeps no key: graphile-worker's rule for a locked job). `busy` when only
   *   the lease (another process's) stops it.
   * - `claim`: up to that many more due, unlocked jobs of the webhook, each
   *   becoming its own stand-in (due `standInMs` from now); those that fell
   *   due while the webhook was inactive or are already recorded are removed.
   * - The webhook's attempt lease (D38 fairness across processes: one process
   *   works through a webhook's attempts at a time) is taken or renewed for
   *   `leaseMs` while this process has attempts of it in flight
   *   (`inFlight`, besides those started now), else given back.
   *
   * If this process dies, the stand-ins make its unrecorded attempts again
   * (after `standInMs`, once the lease ran out).
   */
  async step(webhookId: number, input: StepInput): Promise<StepResult> {
    const { records, drops, seeds } = input;
    const rows = await this.sql.rows<{
      url: string | null;
      secret: string | null;
      lease_until: string | null;
      claimed: Array<{ payload: DeliveryJob; due_ms: number }> | null;
      seeds: Array<{ go: boolean; busy: boolean }> | null;
    }>(
      `WITH hook AS (
         SELECT w.id, w.url, w.secret, w.active, w.activated_at,
                (w.attempt_until IS NULL OR w.attempt_until < now() OR w.attempt_by = $6) AS ours
           FROM webhooks w WHERE w.id = $1 FOR NO KEY UPDATE),
       rec AS (
         SELECT * FROM unnest($9::bigint[], $10::int[], $11::text[], $12::int[], $13::int[], $14::timestamptz[], $15::json[], $16::int[], $17::text[])
           AS r(event_id, attempt, result, status, duration_ms, attempted_at, next, next_in_ms, key)),
       recorded AS (
         INSERT INTO webhook_deliveries (webhook_id, event_id, attempt, result, response_status, duration_ms, attempted_at)
         SELECT hook.id, r.event_id, r.attempt, r.result, r.status, r.duration_ms, r.attempted_at FROM rec r, hook
         ON CONFLICT (webhook_id, event_id, attempt) DO NOTHING
         RETURNING id, event_id, attempt, attempted_at),
       trimmed AS (
         DELETE FROM webhook_deliveries WHERE id IN (
           SELECT x.id FROM (SELECT d.id, d.attempted_at FROM webhook_deliveries d WHERE d.webhook_id = $1 AND EXISTS (SELECT 1 FROM recorded)
                             UNION ALL SELECT id, attempted_at FROM recorded) x
            ORDER BY x.attempted_at DESC, x.id DESC OFFSET ${DELIVERIES_SHOWN})),
       follow AS (
         SELECT CASE
                  WHEN d.id IS NOT NULL AND r.next IS NOT NULL
                    THEN (graphile_worker.add_job($2, r.next, run_at := now() + r.next_in_ms * interval '1 millisecond', job_key := r.key, flags := $18::text[])).id
                  WHEN d.id IS NOT NULL OR NOT EXISTS (SELECT 1 FROM hook)
                    THEN (graphile_worker.remove_job(r.key)).id
                END AS job_id
           FROM rec r LEFT JOIN recorded d ON d.event_id = r.event_id AND d.attempt = r.attempt),
       dropped AS (SELECT (graphile_worker.remove_job(k)).id AS job_id FROM unnest($19::text[]) AS k),
       seed AS (
         SELECT s.i, s.payload, s.key,
                COALESCE(hook.active AND hook.activated_at <= s.due_at AND NOT EXISTS (
                  SELECT 1 FROM webhook_deliveries d
                   WHERE d.webhook_id = $1 AND d.event_id = (s.payload->>'event_id')::bigint AND d.attempt = (s.payload->>'attempt')::int), false) AS eligible,
                COALESCE(hook.ours, false) AS ours
           FROM unnest($20::json[], $21::timestamptz[], $22::text[]) WITH ORDINALITY AS s(payload, due_at, key, i) LEFT JOIN hook ON true),
       stand_in AS (
         SELECT (graphile_worker.add_job($2, s.payload, run_at := now() + $4 * interval '1 millisecond', job_key := s.key, flags := $18::text[])).id AS job_id
           FROM seed s WHERE s.eligible AND s.ours),
       next AS (
         SELECT j.id, j.payload, COALESCE((j.payload->>'due_at')::timestamptz, j.run_at) AS due_at
           FROM graphile_worker._private_jobs j
          WHERE j.is_available AND j.run_at <= now() AND (j.payload->>'webhook_id') = $23 AND j.flags ? $3
            AND j.task_id = (SELECT t.id FROM graphile_worker._private_tasks t WHERE t.identifier = $2)
            AND EXISTS (SELECT 1 FROM hook WHERE hook.active AND hook.ours)
          ORDER BY j.run_at, j.id LIMIT $7 FOR UPDATE OF j SKIP LOCKED),
       judged AS (
         SELECT n.*, hook.activated_at <= n.due_at AND NOT EXISTS (
                  SELECT 1 FROM webhook_deliveries d
                   WHERE d.webhook_id = $1 AND d.event_id = (n.payload->>'event_id')::bigint AND d.attempt = (n.payload->>'attempt')::int) AS go
           FROM next n, hook),
       claimed AS (
         UPDATE graphile_worker._private_jobs j SET run_at = now() + $4 * interval '1 millisecond'
           FROM judged WHERE j.id = judged.id AND judged.go
         RETURNING judged.payload, judged.due_at),
       skipped AS (DELETE FROM graphile_worker._private_jobs j USING judged WHERE j.id = judged.id AND NOT judged.go),
       lease AS (
         UPDATE webhooks w
            SET (attempt_until, attempt_by) = (SELECT now() + $5 * interval '1 millisecond', $6
                                                WHERE $8::int + (SELECT count(*) FROM claimed) + (SELECT count(job_id) FROM stand_in) > 0)
           FROM hook WHERE w.id = hook.id AND hook.ours
         RETURNING w.attempt_until::text AS until)
       SELECT hook.url, hook.secret, (SELECT until FROM lease) AS lease_until,
              (SELECT json_agg(json_build_object('payload', c.payload, 'due_ms', floor(extract(epoch FROM c.due_at) * 1000))) FROM claimed c) AS claimed,
              (SELECT json_agg(json_build_object('go', s.eligible AND s.ours, 'busy', s.eligible AND NOT s.ours) ORDER BY s.i) FROM seed s) AS seeds,
              (SELECT count(job_id) FROM follow) + (SELECT count(job_id) FROM dropped) AS followed
         FROM (SELECT 1) AS one LEFT JOIN hook ON true`,
      [
        webhookId,
        DELIVERY_TASK,
        webhookFlag(webhookId),
        input.standInMs,
        input.leaseMs,
        input.owner,
        input.claim,
        input.inFlight,
        records.map((r) => r.job.event_id),
        records.map((r) => r.job.attempt),
        records.map((r) => r.record.result),
        records.map((r) => r.record.responseStatus),
        records.map((r) => r.record.durationMs),
        records.map((r) => r.record.attemptedAt),
        records.map((r) => (r.next ? JSON.stringify(r.next.job) : null)),
        records.map((r) => r.next?.inMs ?? 0),
        records.map((r) => deliveryJobKey(r.job)),
        input.flags,
        drops,
        seeds.map((s) => JSON.stringify(s.job)),
        seeds.map((s) => s.dueAt),
        seeds.map((s) => deliveryJobKey(s.job)),
        String(webhookId),
      ],
    );
    const row = rows[0];
    return {
      url: row.url,
      secret: row.secret,
      leaseUntil: row.lease_until,
      claimed: (row.claimed ?? []).map((c) => ({ job: c.payload, dueAt: new Date(Number(c.due_ms)) })),
      seeds: row.seeds ?? seeds.map(() => ({ go: false, busy: false })),
    };
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
