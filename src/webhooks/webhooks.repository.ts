import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { PoolClient } from 'pg';
import { Sql } from '../common/database/sql';
import type { EventType } from '../events/event-types';
import type { CreatedWebhookDto, WebhookDeliveryDto, DeliveryResult, WebhookDto } from './webhooks.dto';
import { DELIVERY_TASK, DeliveryJob, deliveryJobKey } from './delivery-job';

const WEBHOOK_COLUMNS = `id, workspace_id, url, events, active, api_ts(created_at) AS created_at`;

/** D38: the deliveries route shows this many of the most recent attempts. */
const DELIVERIES_SHOWN = 100;

/** What an attempt needs of its webhook when it starts. */
export interface AttemptStart {
  /** false: the webhook is gone or inactive, or this attempt was already recorded: nothing to do. */
  go: boolean;
  url: string;
  secret: string;
}

/** A finished attempt, as recorded. */
export interface AttemptRecord {
  result: DeliveryResult;
  responseStatus: number | null;
  durationMs: number;
  attemptedAt: Date;
}

/** SQL for webhooks, their delivery log, and the delivery jobs of the queue (graphile-worker's SQL API). */
@Injectable()
export class WebhooksRepository {
  constructor(
    private readonly sql: Sql,
    private readonly db: DataSource,
  ) {}

  /** Inserts a webhook; returns it with its secret. */
  async insert(workspaceId: number, url: string, events: EventType[], secret: string): Promise<CreatedWebhookDto> {
    const rows = await this.sql.rows<CreatedWebhookDto>(
      `INSERT INTO webhooks (workspace_id, url, events, secret) VALUES ($1, $2, $3, $4) RETURNING ${WEBHOOK_COLUMNS}, secret`,
      [workspaceId, url, events, secret],
    );
    return rows[0];
  }

  /** A workspace's webhooks by id (D38). */
  listByWorkspace(workspaceId: number): Promise<WebhookDto[]> {
    return this.sql.rows(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE workspace_id = $1 ORDER BY id`, [workspaceId]);
  }

  /** Changes the fields given (undefined: unchanged); null when the webhook is gone. */
  async update(id: number, patch: { url?: string; events?: EventType[]; active?: boolean }): Promise<WebhookDto | null> {
    const rows = await this.sql.rows<WebhookDto>(
      `UPDATE webhooks SET url = COALESCE($2, url), events = COALESCE($3, events), active = COALESCE($4, active),
              activated_at = CASE WHEN $4::boolean AND NOT active THEN now() ELSE activated_at END
        WHERE id = $1 RETURNING ${WEBHOOK_COLUMNS}`,
      [id, patch.url ?? null, patch.events ?? null, patch.active ?? null],
    );
    return rows[0] ?? null;
  }

  /** Deletes a webhook and its delivery log; its pending jobs find it gone and stop. */
  async delete(id: number): Promise<void> {
    await this.sql.rows(`DELETE FROM webhooks WHERE id = $1`, [id]);
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
   * due while inactive is dropped for good) and this attempt is not recorded yet. When it goes, a stand-in job for the same attempt is
   * queued under the delivery's job key, due `standInMs` from now: if this
   * process dies before the attempt is recorded, the stand-in makes it (the
   * running job keeps no key, graphile-worker's add_job rule for a locked job);
   * recordAttempt replaces or removes it.
   */
  async startAttempt(job: DeliveryJob, dueAt: Date, standInMs: number): Promise<AttemptStart> {
    const rows = await this.sql.rows<AttemptStart>(
      `WITH hook AS (
         SELECT w.url, w.secret,
                w.active AND w.activated_at <= $8 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                                          WHERE d.webhook_id = w.id AND d.event_id = $2 AND d.attempt = $3) AS go
           FROM webhooks w WHERE w.id = $1),
       stand_in AS (
         SELECT graphile_worker.add_job($4, $5::json, run_at := now() + $6 * interval '1 millisecond', job_key := $7)
           FROM hook WHERE hook.go)
       SELECT hook.url, hook.secret, hook.go AND (SELECT count(*) FROM stand_in) = 1 AS go FROM hook`,
      [job.webhook_id, job.event_id, job.attempt, DELIVERY_TASK, JSON.stringify(job), standInMs, deliveryJobKey(job), dueAt],
    );
    return rows[0] ?? { go: false, url: '', secret: '' };
  }

  /**
   * D38 (after DELETE answers, or a pause, no attempt starts): runs `send` (it
   * queues the request's bytes) while holding a share lock on the webhook row,
   * if the webhook still exists, is active and has been active since `dueAt`.
   * An update or delete of the webhook waits for that lock, so once it has
   * answered no attempt sends anything. When the attempt may not go, the
   * delivery's pending job is removed too. Resolves whether `send` ran.
   */
  async sendIfActive(job: DeliveryJob, dueAt: Date, send: () => void): Promise<boolean> {
    return this.db.transaction(async (em) => {
      const rows: unknown[] = await em.query(`SELECT 1 FROM webhooks WHERE id = $1 AND active AND activated_at <= $2 FOR SHARE`, [job.webhook_id, dueAt]);
      if (rows.length === 0) {
        await em.query(`SELECT graphile_worker.remove_job($1)`, [deliveryJobKey(job)]);
        return false;
      }
      send();
      return true;
    });
  }

  /**
   * Records a finished attempt and, in the same statement, what follows it:
   * `next` (the next attempt, due `nextInMs` from now) replaces the stand-in
   * job, or without `next` the stand-in is removed. When the webhook is gone
   * the stand-in is removed and nothing is recorded; when the attempt was
   * already recorded (a job run twice) nothing changes. Then attempts of the
   * webhook older than the DELIVERIES_SHOWN most recent are dropped, in the
   * same transaction: a finished job never leaves more than that. Recorders of
   * one webhook take its row lock first, so each trim sees the others' attempts.
   */
  async recordAttempt(job: DeliveryJob, record: AttemptRecord, next: { job: DeliveryJob; inMs: number } | null): Promise<void> {
    await this.sql.withClient(async (client) => {
      await client.query('BEGIN');
      try {
        await this.recordIn(client, job, record, next);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /** recordAttempt's statements, in the transaction of `client`. */
  private async recordIn(client: PoolClient, job: DeliveryJob, record: AttemptRecord, next: { job: DeliveryJob; inMs: number } | null): Promise<void> {
    await client.query('SELECT 1 FROM webhooks WHERE id = $1 FOR NO KEY UPDATE', [job.webhook_id]);
    const { rows } = await client.query<{ recorded: boolean }>(
      `WITH recorded AS (
         INSERT INTO webhook_deliveries (webhook_id, event_id, attempt, result, response_status, duration_ms, attempted_at)
         SELECT w.id, $2, $3, $4, $5, $6, $7 FROM webhooks w WHERE w.id = $1
         ON CONFLICT (webhook_id, event_id, attempt) DO NOTHING
         RETURNING id)
       SELECT EXISTS (SELECT 1 FROM recorded) AS recorded,
              CASE
                WHEN EXISTS (SELECT 1 FROM recorded) AND $9::json IS NOT NULL
                  THEN (graphile_worker.add_job($11, $9::json, run_at := now() + $10 * interval '1 millisecond', job_key := $8)).id
                WHEN EXISTS (SELECT 1 FROM recorded) OR NOT EXISTS (SELECT 1 FROM webhooks WHERE id = $1)
                  THEN (graphile_worker.remove_job($8)).id
              END AS job_id`,
      [
        job.webhook_id, job.event_id, job.attempt, record.result, record.responseStatus, record.durationMs, record.attemptedAt,
        deliveryJobKey(job), next ? JSON.stringify(next.job) : null, next?.inMs ?? 0, DELIVERY_TASK,
      ],
    );
    if (!rows[0].recorded) return;
    // Only the most recent attempts are ever shown: the log keeps those.
    await client.query(
      `DELETE FROM webhook_deliveries WHERE id IN (
         SELECT id FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY attempted_at DESC, id DESC OFFSET ${DELIVERIES_SHOWN})`,
      [job.webhook_id],
    );
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
