import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 37 item 3: the delivery jobs `webhooks_dispatch` queues carry
 * graphile-worker flags `webhook:<webhook id>` and `workspace:<workspace id>`
 * (src/webhooks/delivery-job.ts, deliveryJobFlags, writes the same names:
 * change them together). A process whose slots for a webhook or a workspace
 * are taken (D38 fairness, one attempt in flight per webhook) skips that
 * webhook's or workspace's jobs when it fetches, instead of fetching them and
 * putting them off again and again (three round trips each, and a second's
 * wait for the webhook's next event).
 *
 * The function's body is edited in place (one text replacement, checked), so
 * that it is written once, in 1795910000000-webhook-dispatch.ts.
 */
const BEFORE = `'webhook:' || h.id || ':' || x.id, NULL, NULL)::graphile_worker.job_spec`;
const AFTER = `'webhook:' || h.id || ':' || x.id, NULL, ARRAY['webhook:' || h.id, 'workspace:' || p_workspace])::graphile_worker.job_spec`;

/** Replaces `from` by `to` in webhooks_dispatch's definition; fails when `from` is not in it. */
function editDispatch(from: string, to: string): string {
  const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;
  return `DO $edit$
    DECLARE
      definition text := pg_get_functiondef('webhooks_dispatch(integer, bigint, integer)'::regprocedure);
    BEGIN
      IF position(${quote(from)} IN definition) = 0 THEN
        RAISE EXCEPTION 'webhooks_dispatch does not queue its jobs as expected';
      END IF;
      EXECUTE replace(definition, ${quote(from)}, ${quote(to)});
    END $edit$`;
}

export class WebhookJobFlags1795980000000 implements MigrationInterface {
  name = 'WebhookJobFlags1795980000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(editDispatch(BEFORE, AFTER));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(editDispatch(AFTER, BEFORE));
  }
}
