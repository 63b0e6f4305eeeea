import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * D38, issue 31: fan-out out of the write's statement. The AFTER INSERT
 * trigger on `events` that queued one job per subscribed webhook inside every
 * write goes: a write records its event only. The dispatcher
 * (src/webhooks/webhook-dispatcher.ts) queues the jobs afterwards, with
 * `webhooks_dispatch`, from each webhook's cursor:
 *
 * - `webhooks.dispatched_through`: every event of the workspace with an id up
 *   to it has been dispatched to the webhook (or was committed before the
 *   webhook existed or became active). Create and re-activation set it to the
 *   workspace's event horizon (EventsRepository.horizon), so that exactly the
 *   events committed afterwards are delivered.
 * - `webhooks_dispatch(workspace, horizon, batch)`: for each active webhook of
 *   the workspace behind `horizon` that no other transaction holds (FOR NO KEY
 *   UPDATE SKIP LOCKED: several processes dispatch side by side, never the same
 *   webhook twice), queues attempt 1 of each subscribed event among the next
 *   `batch` events after the cursor and at or below the horizon (all committed:
 *   the horizon's promise), and moves the cursor past them, in the same
 *   transaction: each (event, webhook) is queued exactly once. Each job carries
 *   its own copy of the event body and has the job key `webhook:<id>:<event id>`
 *   (src/webhooks/delivery-job.ts writes the same names: change them together).
 *   Returns the number of jobs queued.
 * - `webhooks.attempt_until`: the lease of the webhook's attempt in flight
 *   (D38: at most one per webhook, whatever the number of processes), taken
 *   when an attempt starts and cleared when it is recorded; a crashed
 *   process's lease runs out by itself.
 */
export class WebhookDispatch1795910000000 implements MigrationInterface {
  name = 'WebhookDispatch1795910000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER events_webhooks ON events;
      DROP FUNCTION webhooks_enqueue();

      ALTER TABLE webhooks ADD COLUMN dispatched_through bigint NOT NULL DEFAULT 0, ADD COLUMN attempt_until timestamptz;
      -- Events before this migration were fanned out by the trigger.
      UPDATE webhooks SET dispatched_through = (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM events_id_seq);
      -- The dispatcher's look-up: active webhooks behind their workspace's events.
      CREATE INDEX webhooks_active_dispatch_idx ON webhooks (workspace_id, dispatched_through) WHERE active;

      CREATE FUNCTION webhooks_dispatch(p_workspace integer, p_horizon bigint, p_batch integer) RETURNS integer
        LANGUAGE plpgsql AS $$
      DECLARE
        h record;
        v_examined integer;
        v_last bigint;
        v_queued integer;
        v_total integer := 0;
      BEGIN
        FOR h IN SELECT w.id, w.events, w.dispatched_through FROM webhooks w
                  WHERE w.workspace_id = p_workspace AND w.active AND w.dispatched_through < p_horizon
                  ORDER BY w.id FOR NO KEY UPDATE SKIP LOCKED LOOP
          WITH examined AS MATERIALIZED (
                 SELECT e.id, e.type, event_json(e) AS body FROM events e
                  -- Over (workspace_id, id): only events_workspace_id_idx serves it (EventsRepository.page).
                  WHERE (e.workspace_id, e.id) > (p_workspace, h.dispatched_through) AND (e.workspace_id, e.id) <= (p_workspace, p_horizon)
                  ORDER BY e.workspace_id, e.id LIMIT p_batch),
               queued AS (
                 SELECT j.id FROM graphile_worker.add_jobs(ARRAY(
                   SELECT ROW('webhook_delivery',
                              json_build_object('webhook_id', h.id, 'event_id', x.id, 'attempt', 1, 'body', x.body),
                              NULL, NULL, NULL, 'webhook:' || h.id || ':' || x.id, NULL, NULL)::graphile_worker.job_spec
                     FROM examined x WHERE x.type = ANY (h.events) ORDER BY x.id)) j)
          SELECT (SELECT count(*) FROM examined), (SELECT max(id) FROM examined), (SELECT count(*) FROM queued)
            INTO v_examined, v_last, v_queued;
          UPDATE webhooks SET dispatched_through = CASE WHEN v_examined >= p_batch THEN v_last ELSE p_horizon END WHERE id = h.id;
          v_total := v_total + v_queued;
        END LOOP;
        RETURN v_total;
      END $$;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP FUNCTION webhooks_dispatch(integer, bigint, integer);
      DROP INDEX webhooks_active_dispatch_idx;
      ALTER TABLE webhooks DROP COLUMN dispatched_through, DROP COLUMN attempt_until;
      CREATE FUNCTION webhooks_enqueue() RETURNS trigger LANGUAGE plpgsql AS $f$
      BEGIN
        PERFORM graphile_worker.add_job(
                  'webhook_delivery',
                  json_build_object('webhook_id', w.id, 'event_id', NEW.id, 'attempt', 1, 'body', event_json(NEW)),
                  job_key := 'webhook:' || w.id || ':' || NEW.id)
           FROM webhooks w
          WHERE w.workspace_id = NEW.workspace_id AND w.active AND NEW.type = ANY (w.events);
        RETURN NULL;
      END $f$;
      CREATE TRIGGER events_webhooks AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION webhooks_enqueue();
    `);
  }
}
