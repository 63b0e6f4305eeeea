import { Client } from 'pg';

import { NamedStatementClient, statementName } from '../../src/common/database/prepared';
import { queryPairs } from '../../src/common/validation/query-pairs';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { taskListSql } from '../../src/tasks/task-list.sql';
import { parseTaskQuery } from '../../src/tasks/task-query';
import { createTestDatabase, TestDatabase } from '../setup/database';

/**
 * The plans of List tasks hold on skewed data. One workspace holds
 * most of the tasks and one of its lists ~1,500 of them, as in real tenants.
 * The listing statement runs as the service runs it (a named statement on a
 * connection of the service's client class, several times, so that PostgreSQL
 * has settled on its plan), then its plan for the big workspace must read the
 * first page in index order (no sort of the whole filtered set), count through
 * an index only (no heap row read per task counted), and be the statement's
 * generic plan: PostgreSQL keeps it rather than planning the listing again on
 * every request (issue 16). Without the covering index, the generic plan
 * counts through the heap and PostgreSQL plans every call; the last test
 * checks that the rules notice.
 */

const BIG_TOP_LEVEL = 20_000;
const HOT_LIST_TASKS = 1_500;
const BIG_SUBTASKS = 10_000;
const SMALL_WORKSPACES = 20;
const SMALL_TOP_LEVEL = 1_000;

type PlanNode = Record<string, unknown>;

/** The names the listing statement gives task rows: the table, its filtered scope and its page. */
const TASK_ALIASES = ['t', 'tasks', 'scope', 'page', 'p'];

/** Every node of an EXPLAIN (FORMAT JSON) plan. */
function nodes(plan: PlanNode): PlanNode[] {
  const children = (plan.Plans as PlanNode[] | undefined) ?? [];
  return [plan, ...children.flatMap(nodes)];
}

/** What breaks the rules in `plan`: sorts of tasks rows for the page, counts of tasks not read through an index-only scan. */
function violations(plan: PlanNode): string[] {
  const found: string[] = [];
  for (const node of nodes(plan)) {
    const keys = (node['Sort Key'] as string[] | undefined) ?? [];
    // A sort of the rows of another table (a task's assignees by user id, say) is no sort of the page.
    const taskKeys = keys.filter((key) => !/^\(?(\w+)\./.test(key) || TASK_ALIASES.includes(/^\(?(\w+)\./.exec(key)![1]));
    if (node['Node Type'] === 'Sort' && /created_at|\bid\b/.test(taskKeys.join(', '))) found.push(`Sort (${keys.join(', ')})`);
    if (node['Node Type'] === 'Aggregate' && node['Strategy'] === 'Plain') {
      for (const input of (node.Plans as PlanNode[] | undefined) ?? []) {
        if (input['Relation Name'] === 'tasks' && input['Node Type'] !== 'Index Only Scan') {
          found.push(`count through ${String(input['Node Type'])}`);
        }
      }
    }
  }
  return found;
}

describe('List tasks: plans that hold on a skewed world', () => {
  let db: TestDatabase;
  let ids: Record<string, number>;

  beforeAll(async () => {
    db = await createTestDatabase();
    ids = await loadFixture(db.ds, {
      users: [
        { ref: 'owner', email: 'owner@skew.test', name: 'Owner' },
        { ref: 'member', email: 'member@skew.test', name: 'Member' },
      ],
      workspaces: [
        {
          ref: 'big',
          name: 'Big',
          slug: 'skew-big',
          owner: 'owner',
          members: [{ user: 'member', role: 'member' as const }],
          folders: [
            {
              ref: 'f',
              name: 'F',
              lists: [
                { ref: 'hot', name: 'Hot' },
                { ref: 'cold', name: 'Cold' },
              ],
            },
          ],
        },
      ],
    });
    await db.ds.query(`INSERT INTO workspaces (name, slug, owner_id) SELECT 'Small ' || g, 'skew-small-' || g, $1 FROM generate_series(1, $2::int) g`, [
      ids.owner,
      SMALL_WORKSPACES,
    ]);
    await db.ds.query(
      `INSERT INTO tasks (workspace_id, list_id, identifier, title, description, priority, creator_id, created_at)
       SELECT $1::int, CASE WHEN g <= $4::int THEN $2::int ELSE $3::int END, g, 'Big ' || g, repeat(md5(g::text), 6), 'none', $5::int,
              timestamptz '2025-01-01' + g * interval '1 minute'
         FROM generate_series(1, $6::int) g`,
      [ids.big, ids.hot, ids.cold, HOT_LIST_TASKS, ids.owner, BIG_TOP_LEVEL],
    );
    await db.ds.query(
      `INSERT INTO tasks (workspace_id, list_id, parent_id, identifier, title, description, priority, creator_id, created_at)
       SELECT p.workspace_id, p.list_id, p.id, $1::int + g, 'Sub ' || g, p.description, 'none', p.creator_id, p.created_at
         FROM generate_series(1, $2::int) g JOIN tasks p ON p.workspace_id = $3::int AND p.identifier = 1 + g % $1::int`,
      [BIG_TOP_LEVEL, BIG_SUBTASKS, ids.big],
    );
    await db.ds.query(
      `INSERT INTO tasks (workspace_id, identifier, title, description, priority, creator_id, created_at)
       SELECT w.id, g, 'Small ' || g, repeat(md5(g::text), 6), 'none', $1::int, timestamptz '2025-01-01' + g * interval '1 minute'
         FROM workspaces w, generate_series(1, $2::int) g WHERE w.slug LIKE 'skew-small-%'`,
      [ids.owner, SMALL_TOP_LEVEL],
    );
    await db.ds.query('VACUUM ANALYZE');
  });
  afterAll(async () => {
    await db.drop();
  });

  /**
   * The plan PostgreSQL uses for `query` in the big workspace after the service's client
   * has run it as a named statement 8 times (2 in a small workspace first), on a connection
   * set up as the service's, and how many of those runs used the generic plan.
   */
  const settledPlan = async (query: string, setting?: string): Promise<{ plan: PlanNode; genericRuns: number }> => {
    const client: Client = new NamedStatementClient({ connectionString: db.url });
    await client.connect();
    try {
      if (setting) await client.query(setting);
      const membership = { role: 'member' as const, restricted: false, folderIds: [], listIds: [] };
      const statement = (workspaceId: number) =>
        taskListSql({ workspaceId, membership }, ids.member, parseTaskQuery(queryPairs(`?${query}`), { workspaceId, userId: ids.member }));
      const small: Array<{ id: number }> = await db.ds.query(`SELECT id FROM workspaces WHERE slug = 'skew-small-1'`);
      const big = statement(ids.big);
      expect(statement(small[0].id).sql).toBe(big.sql);
      for (let i = 0; i < 2; i++) await client.query(big.sql, statement(small[0].id).params);
      for (let i = 0; i < 6; i++) await client.query(big.sql, big.params);
      const literals = big.params.map((v) =>
        v === null ? 'NULL' : Array.isArray(v) ? client.escapeLiteral(`{${v.join(',')}}`) : client.escapeLiteral(String(v)),
      );
      const { rows } = await client.query(`EXPLAIN (FORMAT JSON) EXECUTE "${statementName(big.sql)}"(${literals.join(', ')})`);
      const counts = await client.query(`SELECT generic_plans::int FROM pg_prepared_statements WHERE name = $1`, [statementName(big.sql)]);
      return { plan: (rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0].Plan, genericRuns: counts.rows[0].generic_plans };
    } finally {
      await client.end();
    }
  };

  it.each([
    ['the first page of the whole workspace', 'limit=50'],
    ['the first page of the hot list', 'list_id={hot}&limit=100'],
  ])('%s: read in index order and counted through an index only', async (_name, query) => {
    const { plan } = await settledPlan(query.replace('{hot}', String(ids.hot)));
    expect(violations(plan)).toEqual([]);
  });

  it('the whole workspace: its generic plan holds the same rules, and PostgreSQL keeps it instead of planning every call', async () => {
    // PostgreSQL plans a named statement for its values 5 times, then keeps the generic plan when it is as cheap.
    expect((await settledPlan('limit=50')).genericRuns).toBeGreaterThan(0);
    expect(violations((await settledPlan('limit=50', 'SET plan_cache_mode = force_generic_plan')).plan)).toEqual([]);
  });

  /** How `query`'s plan reads the index of the default order (its node types). */
  const defaultOrderScans = async (query: string) =>
    nodes((await settledPlan(query)).plan)
      .filter((node) => node['Index Name'] === 'tasks_workspace_top_idx')
      .map((node) => String(node['Node Type']));
  const DUE_BEFORE = 'include_total=false&due_before=2025-02-01&limit=50';

  it('a due-date filter tests the rows it walks in the index alone, without reading their rows (issue 37)', async () => {
    const scans = await defaultOrderScans(DUE_BEFORE);
    expect(scans.length).toBeGreaterThan(0);
    expect([...new Set(scans)]).toEqual(['Index Only Scan']);
  });

  // Last: it changes the schema of this file's database.
  it('notices a count through the heap, a listing planned on every call, and a due-date walk through the heap, without the covering index', async () => {
    await db.ds.query(`DROP INDEX tasks_workspace_top_idx;
      CREATE INDEX tasks_workspace_top_idx ON tasks (workspace_id, created_at DESC, id DESC) WHERE parent_id IS NULL`);
    await db.ds.query('VACUUM ANALYZE tasks');
    expect((await settledPlan('limit=50')).genericRuns).toBe(0);
    expect(violations((await settledPlan('limit=50', 'SET plan_cache_mode = force_generic_plan')).plan)).not.toEqual([]);
    expect(await defaultOrderScans(DUE_BEFORE)).toContain('Index Scan');
  });
});
