import type { DataSource } from 'typeorm';

import { SCOPES } from '../src/common/auth/scope';
import { type FixtureCustomField, type FixtureTask, type FixtureWorld, type Priority } from '../src/fixtures/fixture.types';
import { loadFixture } from '../src/fixtures/fixture-loader';
import { DEFAULT_STATUSES } from '../src/statuses/statuses.dto';
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

/**
 * The world, built once by the fixture loader (the path of `npm run cli -- seed`,
 * with the API's defaults) and reused by later runs.
 */
export async function ensureWorld(ds: DataSource, log: (line: string) => void): Promise<BenchWorld> {
  const existing: unknown[] = await ds.query(`SELECT id FROM workspaces WHERE slug = $1`, [BENCH_SLUG]);
  if (!existing.length) {
    const started = Date.now();
    log(`Building the benchmark world (${TOP_LEVEL_TASKS} top-level tasks, ${COMMENTS} comments); built once, then reused`);
    await loadFixture(ds, benchFixture());
    await ds.query('VACUUM ANALYZE');
    log(`Built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  return describe(ds);
}

/** `base` (ISO) plus `ms` milliseconds, in ISO form. */
const after = (base: string, ms: number): string => new Date(Date.parse(base) + ms).toISOString();
const MINUTE = 60_000;

/** The 10 custom fields: the first 4 have a value on every top-level task, all 10 on the hot one; the last 2 only on Engineering's lists. */
const FIELDS: Array<Omit<FixtureCustomField, 'ref' | 'position'>> = [
  { name: 'Notes', type: 'text' },
  { name: 'Estimate', type: 'number' },
  { name: 'Owner note', type: 'text' },
  { name: 'Budget', type: 'money', config: { currency: 'EUR' } },
  { name: 'Stars', type: 'rating', config: { iconName: 'star', color: 'orange' } },
  { name: 'Stage', type: 'dropdown', config: { options: ['a', 'b'] } },
  { name: 'Due check', type: 'date' },
  { name: 'Done?', type: 'checkbox' },
  { name: 'Eng only', type: 'text', is_scope_restricted: true, granted_folders: ['eng'] },
  { name: 'Eng score', type: 'number', is_scope_restricted: true, granted_folders: ['eng'] },
];

/** The value of field k (1-based) on the task with identifier `n`. */
function fieldValue(k: number, n: number): string {
  if (k === 2 || k === 4 || k === 10) return String(n % 100);
  return { 5: '3', 6: 'a', 7: '2025-05-01T00:00:00.000Z', 8: 'true' }[k] ?? `note ${n}`;
}

/**
 * The world as a fixture file (FIXTURES.md). Top-level tasks `Task 1` to
 * `Task N`, one a minute in 2025 (identifiers 1..N in file order), spread over
 * the first four lists and the four default statuses, each with 3 assignees,
 * 3 labels and 4 custom-field values; every 10th with 2 subtasks and 20
 * comments; the hot (newest) task with 8 subtasks and all 10 values. The
 * subtasks follow (identifiers N + 1 on), with 1 assignee each.
 */
export function benchFixture(): FixtureWorld {
  const users = Array.from({ length: MEMBERS + 1 }, (_, g) => ({
    ref: `u${g}`,
    email: `bench-${g}@bench.test`,
    name: `Bench user ${g}`,
    avatar_url: `https://example.com/a/${g}.png`,
  }));
  const member = (n: number) => `u${1 + (n % MEMBERS)}`;
  const lists = ['backlog', 'sprint', 'support', 'done'];
  const priorities: Priority[] = ['urgent', 'high', 'medium', 'low', 'none'];
  const tasks: FixtureTask[] = [];
  const subtasks: FixtureTask[] = [];
  for (let g = 1; g <= TOP_LEVEL_TASKS; g++) {
    const createdAt = after('2025-01-01T00:00:00.000Z', g * MINUTE);
    const task: FixtureTask = {
      ref: `t${g}`,
      list: lists[g % 4],
      title: `Task ${g}`,
      description: `<p>Benchmark task <strong>${g}</strong></p>`,
      priority: priorities[g % 5],
      status: `s${g % 4}`,
      creator: 'u0',
      created_at: createdAt,
      due_date: g % 3 === 0 ? after('2025-06-01T00:00:00.000Z', g * 60 * MINUTE) : null,
      assignees: [0, 1, 2].map((k) => member(g + k * 7)),
      labels: [0, 1, 2].map((k) => `l${1 + ((g + k * 3) % 10)}`),
      custom_fields: FIELDS.slice(0, g === TOP_LEVEL_TASKS ? 10 : 4).map((_, k) => ({ field: `f${k + 1}`, value: fieldValue(k + 1, g) })),
    };
    if (g % COMMENTED_EVERY === 0) {
      task.comments = Array.from({ length: COMMENTS / (TOP_LEVEL_TASKS / COMMENTED_EVERY) }, (_, i) => ({
        user: `u${(g + i + 1) % users.length}`,
        content: `<p>Comment ${i + 1} on task ${g}</p>`,
        created_at: after(createdAt, (i + 1) * MINUTE),
      }));
      for (let k = 1; k <= (g === TOP_LEVEL_TASKS ? 8 : 2); k++) {
        const identifier = TOP_LEVEL_TASKS + subtasks.length + 1;
        subtasks.push({
          parent: task.ref,
          list: task.list,
          title: `Subtask ${k} of ${g}`,
          status: task.status,
          creator: 'u0',
          created_at: after(createdAt, k * 1000),
          assignees: [member(identifier)],
        });
      }
    }
    tasks.push(task);
  }
  return {
    users,
    api_keys: [{ user: 'u0', key: BENCH_KEY, name: 'bench', scopes: [...SCOPES] }],
    workspaces: [
      {
        ref: 'bench',
        name: 'Benchmark',
        slug: BENCH_SLUG,
        owner: 'u0',
        members: users.slice(1).map((u) => ({ user: u.ref, role: 'member' })),
        statuses: DEFAULT_STATUSES.map((s, i) => ({ ref: `s${i}`, ...s })),
        labels: Array.from({ length: 10 }, (_, i) => ({ ref: `l${i + 1}`, name: `Label ${i + 1}`, color: 'blue' })),
        folders: [
          {
            ref: 'eng',
            name: 'Engineering',
            color: 'blue',
            position: 1,
            lists: [
              { ref: 'backlog', name: 'Backlog', position: 1 },
              { ref: 'sprint', name: 'Sprint', position: 2 },
            ],
          },
          {
            ref: 'ops',
            name: 'Operations',
            color: 'green',
            position: 2,
            lists: [
              { ref: 'support', name: 'Support', position: 1 },
              { ref: 'done', name: 'Done', position: 2 },
              { ref: 'inbox', name: 'Inbox', position: 3 },
            ],
          },
        ],
        custom_fields: FIELDS.map((f, i) => ({ ref: `f${i + 1}`, position: i + 1, ...f })),
        tasks: [...tasks, ...subtasks],
      },
    ],
  };
}

async function describe(ds: DataSource): Promise<BenchWorld> {
  const rows = await ds.query(
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
