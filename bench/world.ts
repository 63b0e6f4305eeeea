import type { Client } from 'pg';
import { hashApiKey } from '../src/common/auth/api-key';
import { SCOPES } from '../src/common/auth/scope';
import { DEFAULT_STATUSES } from '../src/fixtures/fixture.types';
import type { CursorValues } from '../src/tasks/task-cursor';
import { cursorValuesSql } from '../src/tasks/task-list.sql';
import { DEFAULT_SORT } from '../src/tasks/task-query';

/** Slug of the benchmark workspace: present means the world is built (it is reused). */
export const BENCH_SLUG = 'bench-world-v1';

/** The benchmark key (only its hash is stored, like every key). */
export const BENCH_KEY = 'svc_bench_world_v1_0123456789abcdef0123456789abcdef';

/** Top-level tasks of the world (with subtasks, assignees, labels, values and comments added below). */
export const TOP_LEVEL_TASKS = 50_000;

const MEMBERS = 20;
const COMMENTS = 100_000;
const COMMENTED_EVERY = 10; // every 10th task has COMMENTS / (TOP_LEVEL_TASKS / 10) = 20 comments

/** Ids the scenarios need. */
export interface BenchWorld {
  workspaceId: number;
  /** The hot task: 8 subtasks, 3 assignees, 3 labels, 10 custom-field values, 20 comments; the newest top-level task. */
  hotTaskId: number;
  /** List filtered on (a quarter of the tasks). */
  listId: number;
  /** List new tasks go to (emptied at the end of a run). */
  inboxListId: number;
  memberIds: number[];
  fieldIds: number[];
  /** Top-level tasks the update scenario edits in turn. */
  updateTaskIds: number[];
  /** Tasks in the world. */
  tasks: number;
  /** The owner (the bench key's user). */
  ownerId: number;
  /** What a cursor carries (default sort) for the top-level task 45,000 places from the newest: a deep keyset page starts after it. */
  deepKey: CursorValues;
}

/** The world, built once with set-based SQL (about 10 s) and reused by later runs. */
export async function ensureWorld(db: Client, log: (line: string) => void): Promise<BenchWorld> {
  const existing = await db.query(`SELECT id FROM workspaces WHERE slug = $1`, [BENCH_SLUG]);
  if (!existing.rows.length) {
    const started = Date.now();
    log(`Building the benchmark world (${TOP_LEVEL_TASKS} top-level tasks, ${COMMENTS} comments); built once, then reused`);
    await db.query('BEGIN');
    try {
      await build(db);
      await db.query('COMMIT');
    } catch (error) {
      await db.query('ROLLBACK');
      throw error;
    }
    await db.query('VACUUM ANALYZE');
    log(`Built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  return describe(db);
}

async function build(db: Client): Promise<void> {
  const one = async <T>(sql: string, params: unknown[] = []): Promise<T> => (await db.query(sql, params)).rows[0] as T;
  const ids = async (sql: string, params: unknown[] = []): Promise<number[]> => (await db.query(sql, params)).rows.map((r) => r.id as number);

  const users = await ids(
    `INSERT INTO users (email, name, avatar_url)
     SELECT 'bench-' || g || '@bench.test', 'Bench user ' || g, 'https://example.com/a/' || g || '.png'
       FROM generate_series(0, $1::int) g ORDER BY g RETURNING id`,
    [MEMBERS],
  );
  const owner = users[0];
  const members = users.slice(1);
  const { id: ws } = await one<{ id: number }>(
    `INSERT INTO workspaces (name, slug, owner_id) VALUES ('Benchmark', $1, $2) RETURNING id`,
    [BENCH_SLUG, owner],
  );
  await db.query(
    `INSERT INTO workspace_members (workspace_id, user_id, role)
     SELECT $1, u, CASE WHEN u = $2 THEN 'owner' ELSE 'member' END FROM unnest($3::int[]) u`,
    [ws, owner, users],
  );
  await db.query(`INSERT INTO api_keys (user_id, key_hash, name, scopes) VALUES ($1, $2, 'bench', $3)`, [owner, hashApiKey(BENCH_KEY), [...SCOPES]]);
  const statuses = await ids(
    `INSERT INTO statuses (workspace_id, name, color, category, position)
     SELECT $1, s.name, 'gray', s.category, s.position
       FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS s(name, category, position)
      ORDER BY s.position RETURNING id`,
    [ws, DEFAULT_STATUSES.map((s) => s.name), DEFAULT_STATUSES.map((s) => s.category)],
  );
  const labels = await ids(
    `INSERT INTO labels (workspace_id, name, color) SELECT $1, 'Label ' || g, 'blue' FROM generate_series(1, 10) g ORDER BY g RETURNING id`,
    [ws],
  );
  const folders = await ids(
    `INSERT INTO folders (workspace_id, name, color, position) VALUES ($1, 'Engineering', 'blue', 1), ($1, 'Operations', 'green', 2) RETURNING id`,
    [ws],
  );
  const lists = await ids(
    `INSERT INTO lists (workspace_id, folder_id, name, position)
     VALUES ($1, $2, 'Backlog', 1), ($1, $2, 'Sprint', 2), ($1, $3, 'Support', 1), ($1, $3, 'Done', 2), ($1, $3, 'Inbox', 3)
     RETURNING id`,
    [ws, folders[0], folders[1]],
  );
  const fields = await ids(
    `INSERT INTO custom_fields (workspace_id, name, type, config, position, is_scope_restricted)
     SELECT $1, f.name, f.type, f.config::jsonb, f.position, f.restricted
       FROM (VALUES ('Notes', 'text', NULL, 1, false), ('Estimate', 'number', NULL, 2, false), ('Owner note', 'text', NULL, 3, false),
                    ('Budget', 'money', '{"currency": "EUR"}', 4, false), ('Stars', 'rating', '{"iconName": "star", "color": "orange"}', 5, false),
                    ('Stage', 'dropdown', '{"options": ["a", "b"]}', 6, false), ('Due check', 'date', NULL, 7, false), ('Done?', 'checkbox', NULL, 8, false),
                    ('Eng only', 'text', NULL, 9, true), ('Eng score', 'number', NULL, 10, true)) f(name, type, config, position, restricted)
      ORDER BY f.position RETURNING id`,
    [ws],
  );
  await db.query(
    `INSERT INTO custom_field_folder_grants (field_id, folder_id, workspace_id) SELECT f, $2, $3 FROM unnest($1::int[]) f`,
    [fields.slice(8), folders[0], ws],
  );

  // Top-level tasks, one a minute in 2025, identifiers 1..N; spread over the first four lists.
  await db.query(
    `INSERT INTO tasks (workspace_id, list_id, identifier, title, description, priority, status_id, due_date, creator_id, created_at, updated_at)
     SELECT $1, ($2::int[])[1 + g % 4], g, 'Task ' || g, '<p>Benchmark task <strong>' || g || '</strong></p>',
            (ARRAY['urgent', 'high', 'medium', 'low', 'none'])[1 + g % 5], ($3::int[])[1 + g % 4],
            CASE WHEN g % 3 = 0 THEN timestamptz '2025-06-01' + g * interval '1 hour' END, $4,
            timestamptz '2025-01-01' + g * interval '1 minute', timestamptz '2025-01-01' + g * interval '1 minute'
       FROM generate_series(1, $5::int) g`,
    [ws, lists.slice(0, 4), statuses, owner, TOP_LEVEL_TASKS],
  );
  // Subtasks: 2 under every 10th task, 8 under the hot (newest) task.
  await db.query(
    `INSERT INTO tasks (workspace_id, list_id, parent_id, identifier, title, priority, status_id, creator_id, created_at, updated_at)
     SELECT $1, t.list_id, t.id, $2::int + row_number() OVER (ORDER BY t.id, k), 'Subtask ' || k || ' of ' || t.identifier, 'none', t.status_id, t.creator_id,
            t.created_at + k * interval '1 second', t.created_at + k * interval '1 second'
       FROM tasks t CROSS JOIN generate_series(1, 8) k
      WHERE t.workspace_id = $1 AND t.parent_id IS NULL AND ((t.identifier % 10 = 0 AND k <= 2) OR t.identifier = $2::int)`,
    [ws, TOP_LEVEL_TASKS],
  );
  await db.query(`UPDATE workspaces SET task_counter = (SELECT max(identifier) FROM tasks WHERE workspace_id = $1) WHERE id = $1`, [ws]);
  // 3 assignees and 3 labels on every top-level task, 1 assignee on every subtask.
  await db.query(
    `INSERT INTO task_assignees (task_id, user_id, workspace_id)
     SELECT t.id, ($2::int[])[1 + (t.identifier + k * 7) % $3::int], $1
       FROM tasks t CROSS JOIN generate_series(0, 2) k
      WHERE t.workspace_id = $1 AND (t.parent_id IS NULL OR k = 0)`,
    [ws, members, members.length],
  );
  await db.query(
    `INSERT INTO task_labels (task_id, label_id, workspace_id)
     SELECT t.id, ($2::int[])[1 + (t.identifier + k * 3) % 10], $1
       FROM tasks t CROSS JOIN generate_series(0, 2) k WHERE t.workspace_id = $1 AND t.parent_id IS NULL`,
    [ws, labels],
  );
  // Values of the first 4 fields on every top-level task, of all 10 on the hot one.
  await db.query(
    `INSERT INTO task_custom_field_values (task_id, field_id, workspace_id, value)
     SELECT t.id, ($2::int[])[k], $1, CASE WHEN k IN (2, 4, 10) THEN (t.identifier % 100)::text WHEN k = 5 THEN '3' WHEN k = 6 THEN 'a'
                                            WHEN k = 7 THEN '2025-05-01T00:00:00.000Z' WHEN k = 8 THEN 'true' ELSE 'note ' || t.identifier END
       FROM tasks t CROSS JOIN generate_series(1, 10) k
      WHERE t.workspace_id = $1 AND t.parent_id IS NULL AND (k <= 4 OR t.identifier = $3::int)`,
    [ws, fields, TOP_LEVEL_TASKS],
  );
  // Comments: 20 on every 10th top-level task (the hot one included).
  await db.query(
    `INSERT INTO comments (workspace_id, task_id, user_id, content, created_at)
     SELECT $1, t.id, ($2::int[])[1 + (t.identifier + k) % $3::int], '<p>Comment ' || k || ' on task ' || t.identifier || '</p>',
            t.created_at + k * interval '1 minute'
       FROM tasks t CROSS JOIN generate_series(1, $4::int) k
      WHERE t.workspace_id = $1 AND t.parent_id IS NULL AND t.identifier % $5::int = 0`,
    [ws, users, users.length, COMMENTS / (TOP_LEVEL_TASKS / COMMENTED_EVERY), COMMENTED_EVERY],
  );
}

async function describe(db: Client): Promise<BenchWorld> {
  const { rows } = await db.query(
    `SELECT w.id AS workspace_id,
            (SELECT id FROM tasks WHERE workspace_id = w.id AND identifier = $2) AS hot_task_id,
            (SELECT id FROM lists WHERE workspace_id = w.id AND name = 'Backlog') AS list_id,
            (SELECT id FROM lists WHERE workspace_id = w.id AND name = 'Inbox') AS inbox_list_id,
            ARRAY(SELECT user_id FROM workspace_members WHERE workspace_id = w.id AND role = 'member' ORDER BY user_id) AS member_ids,
            ARRAY(SELECT id FROM custom_fields WHERE workspace_id = w.id ORDER BY position) AS field_ids,
            ARRAY(SELECT id FROM tasks WHERE workspace_id = w.id AND parent_id IS NULL AND identifier <= 1000 ORDER BY identifier) AS update_task_ids,
            (SELECT count(*)::int FROM tasks WHERE workspace_id = w.id) AS tasks,
            w.owner_id,
            (SELECT ${cursorValuesSql([...DEFAULT_SORT])} FROM tasks t WHERE t.workspace_id = w.id AND t.parent_id IS NULL AND t.identifier = $3) AS deep_key
       FROM workspaces w WHERE w.slug = $1`,
    [BENCH_SLUG, TOP_LEVEL_TASKS, TOP_LEVEL_TASKS / 10],
  );
  const r = rows[0];
  return {
    workspaceId: r.workspace_id,
    hotTaskId: r.hot_task_id,
    listId: r.list_id,
    inboxListId: r.inbox_list_id,
    memberIds: r.member_ids,
    fieldIds: r.field_ids,
    updateTaskIds: r.update_task_ids,
    tasks: r.tasks,
    ownerId: r.owner_id,
    deepKey: r.deep_key,
  };
}
