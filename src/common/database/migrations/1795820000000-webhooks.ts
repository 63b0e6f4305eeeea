import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * D38: webhooks, their delivery log, and the fan-out of events to deliveries.
 *
 * An AFTER INSERT trigger on `events` queues one job per active webhook of the
 * event's workspace subscribed to its type, in the transaction of the write
 * that recorded the event: a rolled-back write queues nothing, a committed one
 * cannot lose its deliveries. The job queue is graphile-worker's
 * (`graphile_worker.add_job`, installed by installJobQueue in
 * src/webhooks/job-queue.ts right after these migrations; plpgsql resolves it
 * when the trigger runs). Each job carries its own copy of the event body
 * (`event_json`), so event retention never cuts a pending delivery.
 *
 * `webhook_deliveries` holds finished attempts, one per (webhook, event,
 * attempt): the unique key also makes recording an attempt idempotent when a
 * job runs twice. `event_id` has no foreign key: events are pruned, the log stays.
 */
export class Webhooks1795820000000 implements MigrationInterface {
  name = 'Webhooks1795820000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhooks (
        id           serial PRIMARY KEY,
        workspace_id integer NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        url          text NOT NULL,
        events       text[] NOT NULL,
        active       boolean NOT NULL DEFAULT true,
        -- When the webhook last became active: an attempt that fell due before it fell due while
        -- the webhook was inactive (or before it existed) and is dropped.
        activated_at timestamptz NOT NULL DEFAULT now(),
        secret       text NOT NULL,
        created_at   timestamptz NOT NULL DEFAULT now()
      );
      -- The listing (by id) and the fan-out (a workspace's webhooks).
      CREATE INDEX webhooks_workspace_id_idx ON webhooks (workspace_id, id);

      CREATE TABLE webhook_deliveries (
        id              bigserial PRIMARY KEY,
        webhook_id      integer NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        event_id        bigint NOT NULL,
        attempt         integer NOT NULL,
        result          text NOT NULL CHECK (result IN ('delivered', 'failed', 'timeout', 'blocked')),
        response_status integer,
        duration_ms     integer NOT NULL,
        attempted_at    timestamptz NOT NULL,
        UNIQUE (webhook_id, event_id, attempt)
      );
      -- The deliveries route: a webhook's most recent attempts.
      CREATE INDEX webhook_deliveries_recent_idx ON webhook_deliveries (webhook_id, attempted_at DESC, id DESC);

      CREATE FUNCTION webhooks_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM graphile_worker.add_job(
                  'webhook_delivery',
                  json_build_object('webhook_id', w.id, 'event_id', NEW.id, 'attempt', 1, 'body', event_json(NEW)),
                  job_key := 'webhook:' || w.id || ':' || NEW.id)
           FROM webhooks w
          WHERE w.workspace_id = NEW.workspace_id AND w.active AND NEW.type = ANY (w.events);
        RETURN NULL;
      END $$;
      CREATE TRIGGER events_webhooks AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION webhooks_enqueue();
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER events_webhooks ON events;
      DROP FUNCTION webhooks_enqueue();
      DROP TABLE webhook_deliveries;
      DROP TABLE webhooks;
    `);
  }
}
