import { Client } from 'pg';

/*
 * The bench world ×N (issue 37): the big workspace of a loaded copy of the service's
 * bench database, scaled in place by SQL, the way ../shared/bench-reference/scale/
 * scales it for the reference (whose scale-baseline.sql the side-by-side mode runs
 * as it is). Each task of the workspace (top-level and subtasks) is copied factor-1
 * times into the same lists, with its assignees, labels, custom-field values and
 * comments (threads kept); attachments are not copied (as there).
 *
 * Kept up to date with the schema by reading it: every column of the copied tables
 * is copied as it is, except the ones mapped below (ids, parents, identifiers,
 * timestamps shifted). A table that references tasks and is not one of the
 * copied (or knowingly skipped) ones stops the scaling with its name, so that a
 * new kind of task data is a decision, not a silent gap.
 *
 * - Ids come from the tables' identity sequences (advanced); identifiers are
 *   original + k * max(original), and the workspace's identifier sequence (D15)
 *   continues after the largest.
 * - Copy k is shifted k * 601 days into the past (the 50k world spans 600 days),
 *   so the newest tasks, every first page and every benchmark target stay as
 *   they were: the same ids files serve both sizes.
 * - No events (seeding writes none, D37); `search_text` is a stored generated
 *   column, computed by the INSERT.
 * - Secondary indexes of the written tables are dropped, the rows loaded, the
 *   indexes rebuilt (unique ones re-checked), then VACUUM ANALYZE.
 */

/** Tables holding one row per (task, something), copied with the task id mapped. */
const TASK_LINKS = ['task_assignees', 'task_labels', 'task_custom_field_values'];
/** Tables referencing tasks that the scaling writes or knowingly leaves out. */
const KNOWN_TASK_REFERENCES = ['tasks', 'comments', 'attachments', ...TASK_LINKS];
/** Days between copies: more than the 50k world spans. */
const SHIFT_DAYS = 601;

const log = (line: string) => process.stderr.write(line + '\n');

/** Columns of `table` a plain INSERT may write (not generated), in order. */
async function columns(db: Client, table: string): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT attname AS name FROM pg_attribute
      WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = ''
      ORDER BY attnum`,
    [`public.${table}`],
  );
  return rows.map((r) => r.name);
}

/** `INSERT INTO table (cols) SELECT <mapped or src.col> ...`: the column list and the select list. */
function mapped(cols: string[], source: string, map: Record<string, string>): { into: string; select: string } {
  return {
    into: cols.map((c) => `"${c}"`).join(', '),
    select: cols.map((c) => map[c] ?? `${source}."${c}"`).join(', '),
  };
}

/** Scales the workspace `slug` of the database behind `db` by `factor` (see above). */
export async function scaleServiceWorld(db: Client, factor: number, slug = 'bench-corp'): Promise<{ tasks: number; topLevel: number }> {
  const unknown = await db.query<{ name: string }>(
    `SELECT DISTINCT conrelid::regclass::text AS name FROM pg_constraint
      WHERE contype = 'f' AND confrelid = 'public.tasks'::regclass AND NOT (conrelid::regclass::text = ANY($1))`,
    [KNOWN_TASK_REFERENCES],
  );
  if (unknown.rows.length) {
    throw new Error(`bench/scale.ts does not know how to copy ${unknown.rows.map((r) => r.name).join(', ')} (referencing tasks): add it`);
  }
  const [{ ws, maxident, ntasks }] = (
    await db.query(
      `SELECT w.id AS ws, max(t.identifier) AS maxident, count(*)::int AS ntasks FROM workspaces w JOIN tasks t ON t.workspace_id = w.id WHERE w.slug = $1 GROUP BY w.id`,
      [slug],
    )
  ).rows;
  log(`Scaling workspace ${slug} (${ntasks} tasks) ×${factor}`);
  const started = Date.now();
  const step = async (what: string, sql: string, params: unknown[] = []) => {
    const t0 = Date.now();
    const res = await db.query(sql, params);
    log(`  ${what}: ${res.rowCount ?? ''} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  };

  await db.query(`SET maintenance_work_mem = '512MB'; SET work_mem = '128MB'; SET synchronous_commit = off`);
  // Copies of rows that already satisfy every foreign key: no per-row RI triggers (no user trigger
  // exists on the written tables; checked below). Stored generated columns are still computed.
  const triggers = await db.query(
    `SELECT tgname FROM pg_trigger WHERE NOT tgisinternal AND tgrelid = ANY(ARRAY['public.tasks', 'public.comments', ${TASK_LINKS.map((t) => `'public.${t}'`).join(', ')}]::regclass[])`,
  );
  if (triggers.rows.length)
    throw new Error(
      `bench/scale.ts: triggers on the copied tables (${triggers.rows.map((r) => r.tgname).join(', ')}) would be skipped: decide how to copy their effect`,
    );
  await db.query('BEGIN');
  try {
    await db.query('SET LOCAL session_replication_role = replica');
    const tables = ['tasks', 'comments', ...TASK_LINKS];
    const saved = (
      await db.query<{ name: string; def: string }>(
        `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def FROM pg_index i
          WHERE i.indrelid = ANY($1::regclass[]) AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
        [tables.map((t) => `public.${t}`)],
      )
    ).rows;
    for (const index of saved) await db.query(`DROP INDEX ${index.name}`);

    await step(
      'task map',
      `CREATE TEMP TABLE tmap ON COMMIT DROP AS
         SELECT t.id AS old_id, k, nextval(pg_get_serial_sequence('public.tasks', 'id'))::int AS new_id
           FROM tasks t CROSS JOIN generate_series(1, $2::int - 1) k
          WHERE t.workspace_id = $1 ORDER BY k, t.created_at, t.id`,
      [ws, factor],
    );
    await db.query('CREATE INDEX ON tmap (old_id, k); ANALYZE tmap');
    const shift = (column: string, k: string) => `${column} - ${k} * interval '${SHIFT_DAYS} days'`;
    const task = mapped(await columns(db, 'tasks'), 't', {
      id: 'm.new_id',
      parent_id: 'pm.new_id',
      identifier: `t.identifier + m.k * ${Number(maxident)}`,
      created_at: shift('t.created_at', 'm.k'),
      updated_at: shift('t.updated_at', 'm.k'),
    });
    await step(
      'tasks',
      `INSERT INTO tasks (${task.into}) SELECT ${task.select}
         FROM tmap m JOIN tasks t ON t.id = m.old_id LEFT JOIN tmap pm ON pm.old_id = t.parent_id AND pm.k = m.k
        ORDER BY m.new_id`,
    );
    for (const table of TASK_LINKS) {
      const link = mapped(await columns(db, table), 'x', { task_id: 'm.new_id' });
      await step(table, `INSERT INTO ${table} (${link.into}) SELECT ${link.select} FROM tmap m JOIN ${table} x ON x.task_id = m.old_id`);
    }
    await step(
      'comment map',
      `CREATE TEMP TABLE cmap ON COMMIT DROP AS
         SELECT c.id AS old_id, m.k, nextval(pg_get_serial_sequence('public.comments', 'id'))::int AS new_id, m.new_id AS new_task
           FROM comments c JOIN tmap m ON m.old_id = c.task_id ORDER BY m.k, c.created_at, c.id`,
    );
    await db.query('CREATE INDEX ON cmap (old_id, k); ANALYZE cmap');
    const comment = mapped(await columns(db, 'comments'), 'c', {
      id: 'cm.new_id',
      task_id: 'cm.new_task',
      parent_comment_id: 'pc.new_id',
      created_at: shift('c.created_at', 'cm.k'),
      ...((await columns(db, 'comments')).includes('updated_at') ? { updated_at: shift('c.updated_at', 'cm.k') } : {}),
    });
    await step(
      'comments',
      `INSERT INTO comments (${comment.into}) SELECT ${comment.select}
         FROM cmap cm JOIN comments c ON c.id = cm.old_id LEFT JOIN cmap pc ON pc.old_id = c.parent_comment_id AND pc.k = cm.k
        ORDER BY cm.new_id`,
    );
    // D15: the workspace's identifier sequence continues after the largest identifier.
    await db.query(`SELECT setval(task_identifier_sequence($1), (SELECT max(identifier) FROM tasks WHERE workspace_id = $1))`, [ws]);
    for (const index of saved) await step(`index ${index.name}`, index.def);
    await db.query('COMMIT');
  } catch (error) {
    await db.query('ROLLBACK');
    throw error;
  }
  const [check] = (
    await db.query(
      `SELECT count(*)::int AS tasks, (count(*) FILTER (WHERE parent_id IS NULL))::int AS top_level,
              count(DISTINCT identifier) = count(*) AS identifiers_unique,
              (SELECT count(*) FROM tasks c JOIN tasks p ON p.id = c.parent_id
                WHERE c.workspace_id = $1 AND (p.list_id IS DISTINCT FROM c.list_id OR p.workspace_id <> c.workspace_id))::int AS bad_parents
         FROM tasks WHERE workspace_id = $1`,
      [ws],
    )
  ).rows;
  if (!check.identifiers_unique || check.bad_parents) throw new Error(`scaled world inconsistent: ${JSON.stringify(check)}`);
  await step('VACUUM ANALYZE', 'VACUUM ANALYZE');
  log(`Scaled: ${check.tasks} tasks (${check.top_level} top-level) in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return { tasks: check.tasks, topLevel: check.top_level };
}

/** `ts-node bench/scale.ts <database url> [factor]`: scales a copy by hand (the bench does it with --scale). */
if (require.main === module) {
  const [url, factor = '20'] = process.argv.slice(2);
  const db = new Client({ connectionString: url });
  db.connect()
    .then(() => scaleServiceWorld(db, Number(factor)))
    .finally(() => db.end())
    .catch((error) => {
      log(`scale failed: ${(error as Error).message}`);
      process.exit(1);
    });
}
