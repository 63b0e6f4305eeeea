import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Task queries (D34, issue 11): an index for every filter and sort of List tasks.
 *
 * - Sorts: `(workspace_id, <key>, id)` per key, over all tasks (subtasks can be
 *   rows too); scanned backwards for descending keys. Tasks without a due date
 *   come last both ways, so due dates get one index per direction, on the
 *   COALESCE the query orders by. `identifier` uses the unique
 *   `(workspace_id, identifier)`; `-created_at` over top-level tasks the
 *   partial index of the initial schema.
 * - Filters: the due-date indexes serve `due_after` / `due_before`, the
 *   created and updated indexes `created_after` / `updated_after`, the
 *   priority index `priority`; status, label, assignee and parent filters use
 *   the foreign-key indexes already there; `q` uses a pg_trgm GIN index over
 *   the lower-cased title and description text (tags removed), which serves
 *   `LIKE '%term%'` whatever the term's position.
 */
export class TaskQueries1795500000000 implements MigrationInterface {
  name = 'TaskQueries1795500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      -- Trusted since PostgreSQL 13: the database owner may create it.
      CREATE EXTENSION IF NOT EXISTS pg_trgm;

      -- D34: priority ascending is urgent, high, medium, low, none (0 to 4).
      CREATE FUNCTION task_priority_rank(priority text) RETURNS integer
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $$ SELECT array_position(ARRAY['urgent', 'high', 'medium', 'low', 'none']::text[], priority) - 1 $$;

      -- D34 q: the text a search term must occur in, lower-cased: the title, a newline
      -- (terms hold no whitespace, so none spans both fields), and the description's
      -- text outside HTML tags with the entities sanitizing writes (D9) decoded.
      CREATE FUNCTION task_search_text(title text, description text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $$ SELECT lower(title || E'\\n' || COALESCE(
                 replace(replace(replace(replace(regexp_replace(description, '<[^>]*>', '', 'g'),
                   '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&amp;', '&'), '')) $$;

      CREATE INDEX tasks_workspace_created_idx ON tasks (workspace_id, created_at, id);
      CREATE INDEX tasks_workspace_updated_idx ON tasks (workspace_id, updated_at, id);
      CREATE INDEX tasks_workspace_due_asc_idx ON tasks (workspace_id, COALESCE(due_date, 'infinity'::timestamptz), id);
      CREATE INDEX tasks_workspace_due_desc_idx ON tasks (workspace_id, COALESCE(due_date, '-infinity'::timestamptz), id);
      CREATE INDEX tasks_workspace_priority_idx ON tasks (workspace_id, task_priority_rank(priority), id);
      CREATE INDEX tasks_workspace_title_idx ON tasks (workspace_id, lower(title COLLATE "C"), id);
      CREATE INDEX tasks_search_idx ON tasks USING gin (task_search_text(title, description) gin_trgm_ops);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    // Without CASCADE: pg_trgm stays (and the revert fails) if something else came to use it.
    await q.query(`
      DROP INDEX tasks_search_idx, tasks_workspace_title_idx, tasks_workspace_priority_idx, tasks_workspace_due_desc_idx,
        tasks_workspace_due_asc_idx, tasks_workspace_updated_idx, tasks_workspace_created_idx;
      DROP FUNCTION task_search_text(text, text);
      DROP FUNCTION task_priority_rank(text);
      DROP EXTENSION IF EXISTS pg_trgm;
    `);
  }
}
