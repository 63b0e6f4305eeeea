import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * D37: the event log. One row per accepted API write, inserted in the write's
 * own statement or transaction. `id` is drawn from the service-wide sequence
 * `events_id_seq` only after the writer holds its workspace's transaction
 * advisory lock (taken as the write's last step, held until commit), so that
 * within a workspace ids increase in commit order: a poller reading `id > after`
 * never skips an event that commits later with a smaller id.
 *
 * `event_json(events)` renders the public event object (the feed and webhook
 * deliveries both use it, so the shape is written once):
 * `{ id, type, workspace_id, occurred_at, actor: { user_id, api_key_id }, data }`.
 */
export class Events1795800000000 implements MigrationInterface {
  name = 'Events1795800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE SEQUENCE events_id_seq AS bigint;

      CREATE TABLE events (
        id               bigint PRIMARY KEY,
        workspace_id     integer NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        type             text NOT NULL,
        occurred_at      timestamptz NOT NULL,
        actor_user_id    integer,
        actor_api_key_id integer,
        data             jsonb NOT NULL
      );
      ALTER SEQUENCE events_id_seq OWNED BY events.id;
      -- The feed: one workspace's events after an id, in id order.
      CREATE INDEX events_workspace_id_idx ON events (workspace_id, id);
      -- The feed's filters: type, and task_id (data.task_id).
      CREATE INDEX events_workspace_type_idx ON events (workspace_id, type, id);
      CREATE INDEX events_workspace_task_idx ON events (workspace_id, ((data->>'task_id')::int), id) WHERE data ? 'task_id';
      -- Retention prunes by age.
      CREATE INDEX events_occurred_at_idx ON events (occurred_at);

      -- Deletes of a list or folder remove the list's tasks, subtasks included, in their own statement
      -- (before the event lock): by list_id over every task, which the partial tasks_list_top_idx does not cover.
      CREATE INDEX tasks_list_id_idx ON tasks (list_id);

      CREATE FUNCTION event_json(e events) RETURNS jsonb
        LANGUAGE sql STABLE PARALLEL SAFE
        AS $$ SELECT jsonb_build_object(
                'id', e.id, 'type', e.type, 'workspace_id', e.workspace_id,
                'occurred_at', api_ts(e.occurred_at),
                'actor', jsonb_build_object('user_id', e.actor_user_id, 'api_key_id', e.actor_api_key_id),
                'data', e.data) $$;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION event_json(events); DROP TABLE events; DROP INDEX tasks_list_id_idx;`);
  }
}
