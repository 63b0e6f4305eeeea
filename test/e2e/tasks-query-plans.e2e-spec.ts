import { Client } from 'pg';

import { queryPairs } from '../../src/common/validation/query-pairs';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { checkedTaskListSql, TaskListScope, taskListSql, WALK_ROWS } from '../../src/tasks/task-list.sql';
import { parseTaskQuery, TaskQuery } from '../../src/tasks/task-query';
import { createTestDatabase, TestDatabase } from '../setup/database';

/**
 * Indexes for every filter and sort of List tasks (issue 11, item 5; D34):
 * on a generated world of 8,000 tasks in 20 workspaces, VACUUM ANALYZEd, the
 * listing statement of each filter and sort (offset page, first keyset page
 * and a keyset page deep in the workspace) must read `tasks` through an index,
 * in the plan for its values and in the generic plan the server keeps for the
 * named statement: a sequential scan of tasks fails the test, naming the query and the plan.
 */

const WORKSPACES = 20;
const TOP_LEVEL = 320;
const SUBTASKS = 80;

/** Every node of an EXPLAIN (FORMAT JSON) plan. */
function nodes(plan: Record<string, unknown>): Array<Record<string, unknown>> {
  const children = (plan.Plans as Array<Record<string, unknown>> | undefined) ?? [];
  return [plan, ...children.flatMap(nodes)];
}

describe('List tasks: an index for every filter and sort (EXPLAIN)', () => {
  let db: TestDatabase;
  let ids: Record<string, number>;
  let context: { workspaceId: number; userId: number };

  beforeAll(async () => {
    db = await createTestDatabase();
    ids = await loadFixture(db.ds, {
      users: [
        { ref: 'owner', email: 'owner@plans.test', name: 'Owner' },
        ...[0, 1, 2, 3, 4].map((i) => ({ ref: `u${i}`, email: `u${i}@plans.test`, name: `U${i}` })),
      ],
      workspaces: [
        {
          ref: 'ws',
          name: 'Plans',
          slug: 'plans',
          owner: 'owner',
          members: [0, 1, 2, 3, 4].map((i) => ({ user: `u${i}`, role: 'member' as const })),
          labels: [
            { ref: 'lb0', name: 'L0' },
            { ref: 'lb1', name: 'L1' },
          ],
          folders: [
            {
              ref: 'f0',
              name: 'F',
              lists: [
                { ref: 'l0', name: 'A' },
                { ref: 'l1', name: 'B' },
                { ref: 'l2', name: 'C' },
                { ref: 'l3', name: 'D' },
              ],
            },
          ],
        },
      ],
    });
    context = { workspaceId: ids.ws, userId: ids.owner };
    // The target workspace holds 1/20 of the tasks, as one tenant among many.
    await db.ds.query(`INSERT INTO workspaces (name, slug, owner_id) SELECT 'Filler ' || g, 'plans-filler-' || g, $1 FROM generate_series(1, $2::int - 1) g`, [
      ids.owner,
      WORKSPACES,
    ]);
    await db.ds.query(
      `WITH ws AS (SELECT id FROM workspaces WHERE id = $1 OR slug LIKE 'plans-filler-%'),
            st AS (SELECT array_agg(id ORDER BY position) AS ids FROM statuses WHERE workspace_id = $1),
            li AS (SELECT array_agg(id ORDER BY position) AS ids FROM lists WHERE workspace_id = $1)
       INSERT INTO tasks (workspace_id, list_id, identifier, title, description, priority, status_id, due_date, creator_id, created_at, updated_at)
       SELECT ws.id, CASE WHEN ws.id = $1 THEN li.ids[1 + g % 4] END, g,
              'Task ' || g || ' ' || (ARRAY['alpha', 'beta', 'gamma', 'delta'])[1 + g % 4] || ' ' || md5(ws.id || '-' || g),
              '<p>About <b>' || md5(g || '-' || ws.id) || '</b></p>',
              (ARRAY['urgent', 'high', 'medium', 'low', 'none'])[1 + g % 5],
              CASE WHEN ws.id = $1 THEN st.ids[1 + g % 4] END,
              CASE WHEN g % 3 = 0 THEN NULL ELSE timestamptz '2025-03-01' + g * interval '1 hour' END, $2,
              timestamptz '2025-01-01' + g * interval '1 minute', timestamptz '2025-01-01' + g * interval '1 minute' + (g % 7) * interval '1 day'
         FROM ws, st, li, generate_series(1, $3::int) g`,
      [ids.ws, ids.owner, TOP_LEVEL],
    );
    await db.ds.query(
      `INSERT INTO tasks (workspace_id, list_id, parent_id, identifier, title, priority, creator_id, created_at)
       SELECT p.workspace_id, p.list_id, p.id, $1::int + p.identifier, 'Sub ' || p.title, 'none', p.creator_id, p.created_at
         FROM tasks p WHERE p.identifier <= $2::int`,
      [TOP_LEVEL, SUBTASKS],
    );
    await db.ds.query(
      `INSERT INTO task_assignees (task_id, user_id, workspace_id)
       SELECT t.id, m.user_id, t.workspace_id FROM tasks t
         JOIN LATERAL (SELECT user_id FROM workspace_members WHERE workspace_id = $1 ORDER BY user_id OFFSET t.identifier % 5 LIMIT 1) m ON true
        WHERE t.identifier % 3 <> 0`,
      [ids.ws],
    );
    await db.ds.query(
      `INSERT INTO task_labels (task_id, label_id, workspace_id)
       SELECT t.id, l.id, t.workspace_id FROM tasks t JOIN labels l ON l.workspace_id = t.workspace_id AND l.name = 'L' || (t.identifier % 8) WHERE t.workspace_id = $1`,
      [ids.ws],
    );
    // Statistics, and the GIN pending list of the rows just inserted merged into the index (autovacuum's job in production).
    await db.ds.query('VACUUM ANALYZE');
  });
  afterAll(async () => {
    await db.drop();
  });

  const owner: () => TaskListScope = () => ({ workspaceId: ids.ws, membership: { role: 'owner', restricted: false, folderIds: [], listIds: [] } });
  const restricted: () => TaskListScope = () => ({
    workspaceId: ids.ws,
    membership: { role: 'member', restricted: true, folderIds: [], listIds: [ids.l1, ids.l2] },
  });

  /** Builds the statement of `query` for `scope`, EXPLAINs it and returns the sequential scans of tasks (with the plan). */
  /** A parameter as an SQL literal, for EXECUTE of a prepared statement (its casts give the types). */
  const literal = (client: Client, value: unknown): string => {
    if (value === null || value === undefined) return 'NULL';
    if (Array.isArray(value))
      return client.escapeLiteral(`{${value.map((v) => (typeof v === 'number' ? String(v) : `"${String(v).replace(/["\\]/g, '\\$&')}"`)).join(',')}}`);
    return client.escapeLiteral(String(value));
  };

  /**
   * The EXPLAIN (FORMAT JSON) plan of a statement: `custom`, planned for its values (unnamed
   * statements), or `generic`, the plan the server keeps for a named statement
   * (forced here: whatever PostgreSQL settles on, no plan it may choose scans all tasks).
   */
  const explain = async (sql: string, params: unknown[], mode: 'custom' | 'generic', format = '(FORMAT JSON)') => {
    if (mode === 'custom') return db.ds.query(`EXPLAIN ${format} ${sql}`, params);
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query('SET plan_cache_mode = force_generic_plan');
      await client.query(`PREPARE listing AS ${sql}`);
      return (await client.query(`EXPLAIN ${format} EXECUTE listing(${params.map((v) => literal(client, v)).join(', ')})`)).rows;
    } finally {
      await client.end();
    }
  };

  /**
   * The statement the server runs for `query` in `scope`: for an unrestricted member, the one with the access
   * check (checkedTaskListSql, issue 37); for a restricted one, the page with the grants the check found.
   */
  const listing = (scope: TaskListScope, query: TaskQuery) =>
    scope.membership.restricted ? taskListSql(scope, ids.owner, query) : checkedTaskListSql(scope.workspaceId, ids.owner, query);

  /** The sequential scans of tasks in the plan (custom and generic) of `query` for `scope`, with the plan's text when there are some. */
  const seqScans = async (query: TaskQuery, scope: TaskListScope) => {
    const { sql, params } = listing(scope, query);
    for (const mode of ['custom', 'generic'] as const) {
      const rows: Array<{ 'QUERY PLAN': Array<{ Plan: Record<string, unknown> }> }> = await explain(sql, params, mode);
      const scans = nodes(rows[0]['QUERY PLAN'][0].Plan).filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'tasks');
      if (scans.length) {
        const text: Array<{ 'QUERY PLAN': string }> = await explain(sql, params, mode, '');
        return { scans, plan: `${mode} plan:\n` + text.map((r) => r['QUERY PLAN']).join('\n') };
      }
    }
    return { scans: [], plan: '' };
  };
  const parse = (query: string) => parseTaskQuery(queryPairs(`?${query.replace(/\{(\w+)\}/g, (_, ref: string) => String(ids[ref]))}`), context);

  const FILTERS = [
    'status_id={s}',
    'status_category=completed',
    'assignee_id={u1}',
    'assignee_id=none',
    'label_id={lb0}',
    'priority=urgent',
    'priority=high,low',
    'parent_id={p}',
    'include_subtasks=true&priority=medium',
    'due_after=2025-03-10',
    'due_before=2025-03-03',
    'due_after=2025-03-02&due_before=2025-03-05',
    'created_after=2025-01-01T05:00:00Z',
    'updated_after=2025-01-07T05:00:00Z',
    'q=gamma',
    'q=about+delta',
    'list_id={l0}',
    'assignee_id=me,{u2}&status_category=pending,in_progress&due_after=2025-03-02&due_before=2025-03-09',
  ];
  const SORTS = [
    'created_at',
    '-created_at',
    'updated_at',
    '-updated_at',
    'due_date',
    '-due_date',
    'priority',
    '-priority',
    'identifier',
    '-identifier',
    'title',
    '-title',
  ];

  /** The query with `{s}` and `{p}` bound to a status and a parent task of the target workspace. */
  const bind = async (query: string) => {
    const [{ s, p }] = await db.ds.query(
      `SELECT (SELECT id FROM statuses WHERE workspace_id = $1 ORDER BY position LIMIT 1) AS s,
              (SELECT parent_id FROM tasks WHERE workspace_id = $1 AND parent_id IS NOT NULL LIMIT 1) AS p`,
      [ids.ws],
    );
    return query.replace('{s}', String(s)).replace('{p}', String(p));
  };

  it.each(FILTERS)('%s: no sequential scan of tasks (offset page, keyset first page; owner and restricted member)', async (filter) => {
    const query = await bind(filter);
    for (const text of [query, `${query}&include_total=false`, `${query}&include_total=false&sort=-priority,title`]) {
      for (const scope of [owner(), restricted()]) {
        const { scans, plan } = await seqScans(parse(text), scope);
        if (scans.length) throw new Error(`${text} (restricted: ${scope.membership.restricted}): sequential scan of tasks\n${plan}`);
      }
    }
  });

  it.each(SORTS)('sort=%s: no sequential scan of tasks on a keyset page deep in the workspace', async (sort) => {
    // A real cursor position: the middle row of the workspace in that order.
    const middle = taskListSql(owner(), ids.owner, { ...parse(`sort=${sort}&include_total=false`), limit: TOP_LEVEL / 2 });
    const after = (await db.ds.query(middle.sql, middle.params))[0].next_key;
    expect(after).not.toBeNull();
    for (const text of [`sort=${sort}&include_total=false`, `sort=${sort}&include_total=false&include_subtasks=true`]) {
      const query = { ...parse(text), after };
      const { scans, plan } = await seqScans(query, owner());
      if (scans.length) throw new Error(`${text} after ${JSON.stringify(after)}: sequential scan of tasks\n${plan}`);
    }
  });

  /** The index names and index conditions of the plan of `query`. */
  const indexUse = async (query: TaskQuery) => {
    const { sql, params } = listing(owner(), query);
    const rows: Array<{ 'QUERY PLAN': Array<{ Plan: Record<string, unknown> }> }> = await db.ds.query(`EXPLAIN (FORMAT JSON) ${sql}`, params);
    return nodes(rows[0]['QUERY PLAN'][0].Plan)
      .filter((n) => n['Index Name'])
      .map((n) => `${n['Index Name']}: ${n['Index Cond'] ?? ''}`);
  };

  it('the q condition matches the trigram index (used when the terms are selective among all tasks)', async () => {
    const [{ fragment }] = await db.ds.query(`SELECT substr(md5($1 || '-' || 7), 3, 10) AS fragment`, [ids.ws]);
    const q = parse(`q=${fragment}`);
    // The builder's own condition for q, over all tasks: in one small workspace the workspace index wins instead.
    const { sql, params } = taskListSql({ ...owner() }, ids.owner, q);
    const condition = /t\.search_text LIKE lower\(\$(\d+)::text\)/.exec(sql)!;
    const rows: Array<{ 'QUERY PLAN': Array<{ Plan: Record<string, unknown> }> }> = await db.ds.query(
      `EXPLAIN (FORMAT JSON) SELECT t.id FROM tasks t WHERE ${condition[0].replace(/\$\d+/, '$1')}`,
      [params[Number(condition[1]) - 1]],
    );
    expect(nodes(rows[0]['QUERY PLAN'][0].Plan).map((n) => n['Index Name'])).toContain('tasks_search_idx');
  });

  // Issue 19: q is tested on the stored search text; its HTML is never stripped again per row, and a term too
  // short for trigrams does not scan the whole trigram index.
  it('q reads the stored search text; a term under 3 characters keeps off the trigram index', async () => {
    const { sql, params } = taskListSql(owner(), ids.owner, parse('q=a+e+i+o+u+t+s+r+n+l'));
    expect(sql).not.toContain('task_search_text');
    const plan: Array<{ 'QUERY PLAN': string }> = await db.ds.query(`EXPLAIN (VERBOSE) ${sql}`, params);
    const text = plan.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toContain('search_text');
    expect(text).not.toContain('tasks_search_idx');
  });

  it.each(SORTS.filter((s) => !s.includes('identifier')))('sort=%s: a deep keyset page starts where the cursor points, in the index', async (sort) => {
    const middle = taskListSql(owner(), ids.owner, { ...parse(`sort=${sort}&include_total=false&include_subtasks=true`), limit: TOP_LEVEL / 2 });
    const after = (await db.ds.query(middle.sql, middle.params))[0].next_key;
    const uses = await indexUse({ ...parse(`sort=${sort}&include_total=false&include_subtasks=true`), after });
    expect(uses.some((u) => /^tasks_workspace_\w+_idx: .*workspace_id = .*ROW\(/.test(u))).toBe(true);
  });

  it('the generic plan is the one kept for any values (its conditions read parameters)', async () => {
    const { sql, params } = listing(owner(), parse('priority=urgent&include_total=false'));
    const text = (await explain(sql, params, 'generic', '')).map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
    expect(text).toMatch(/workspace_id = \$\d+/);
    const custom = (await explain(sql, params, 'custom', '')).map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
    expect(custom).not.toMatch(/workspace_id = \$\d+/);
  });

  // Issue 37: a filtered keyset page first walks the next WALK_ROWS rows of the scope in the sort's order; when
  // they do not fill the page, the planned statement answers. Every way must give the same pages.
  const WALK_QUERIES = [
    'status_id={s}',
    'status_category=completed&sort=title',
    'assignee_id={u1}',
    'assignee_id={u2},none&sort=-due_date',
    'assignee_id=none',
    'label_id={lb0}&sort=priority,-title',
    'priority=high,low&sort=-updated_at',
    'due_after=2025-03-02&due_before=2025-03-09&sort=due_date',
    'q=gamma&sort=-identifier',
    'q=a+e&include_subtasks=true',
    'include_subtasks=true&priority=none&sort=title',
    'created_after=2025-01-01T05:00:00Z&sort=created_at',
    // The matches of an early due date lie at the end of the default order (due dates follow creation here).
    'due_before=2025-03-04',
    'due_after=2025-03-03&due_before=2025-03-06&sort=-created_at,title',
  ];
  /** Every page of `text` (limit 9) as [ids, next_key] pairs, with a walk of `walkRows` rows (0: none). */
  const allPages = async (text: string, scope: TaskListScope, walkRows: number) => {
    const pages: Array<[number[], unknown]> = [];
    let query = { ...parse(`${text}&include_total=false&limit=9`) };
    for (;;) {
      const { sql, params } = taskListSql(scope, ids.owner, query, walkRows);
      const [row] = await db.ds.query(sql, params);
      pages.push([JSON.parse(row.data).map((t: { id: number }) => t.id), row.next_key]);
      if (row.next_key === null) return pages;
      if (pages.length > 400) throw new Error(`${text}: no end of pages`);
      query = { ...query, after: row.next_key };
    }
  };

  it.each(WALK_QUERIES)('%s: the same pages whether the walk fills them, runs out first, or is not taken', async (filter) => {
    const text = await bind(filter);
    for (const scope of [owner(), restricted()]) {
      const planned = await allPages(text, scope, 0);
      // Several pages for the owner (the restricted member's lists may hold none of the matches).
      if (!scope.membership.restricted) expect(planned.flatMap(([page]) => page).length).toBeGreaterThan(9);
      // 3 rows: the walk seldom fills a page (the planned statement answers); 40: sometimes; WALK_ROWS: always here.
      for (const walkRows of [3, 40, WALK_ROWS]) expect(await allPages(text, scope, walkRows)).toEqual(planned);
    }
  });

  // Issue 37: a sort that begins with priority and has more keys is paged one priority at a time (a branch per
  // priority, merged). Its pages, through the branches with and without their walks, must be the rows of one
  // ordered statement: the offset pages (which sort the whole scope) give them.
  const PRIORITY_FIRST = [
    '-priority,title',
    'priority,-title',
    'priority,-due_date,title',
    '-priority,created_at',
    'priority,identifier',
    'label_id={lb0}&sort=-priority,title',
    'q=gamma&sort=priority,updated_at',
    'assignee_id={u1},none&sort=-priority,-due_date',
    'include_subtasks=true&sort=-priority,title',
  ];
  /** Every row of `text` as one ordered statement gives them: offset pages of 100. */
  const offsetRows = async (text: string, scope: TaskListScope) => {
    const rows: number[] = [];
    for (let page = 1; ; page++) {
      const { sql, params } = taskListSql(scope, ids.owner, parse(`${text}&limit=100&page=${page}`));
      const [row] = await db.ds.query(sql, params);
      const ids_ = JSON.parse(row.data).map((t: { id: number }) => t.id);
      rows.push(...ids_);
      if (ids_.length < 100) return rows;
    }
  };
  it.each(PRIORITY_FIRST)('sort %s: keyset pages one priority at a time give the rows of one ordered statement', async (sortText) => {
    const text = await bind(sortText.includes('sort=') ? sortText : `sort=${sortText}`);
    for (const scope of [owner(), restricted()]) {
      const expected = await offsetRows(text, scope);
      if (!scope.membership.restricted) expect(expected.length).toBeGreaterThan(9);
      // 0: branches planned alone; 3: each branch's walk seldom fills a page (its fallback answers, after the walk's
      // last row); 40: sometimes (a page of the walk's matches and the fallback's rows); WALK_ROWS: it does.
      for (const walkRows of [0, 3, 40, WALK_ROWS]) {
        const pages = await allPages(text, scope, walkRows);
        expect(pages.flatMap(([page]) => page)).toEqual(expected);
      }
    }
  });

  it('sort=-priority,title: a first page reads about a page of the first priority, not all its tasks nor the other priorities', async () => {
    for (const mode of ['custom', 'generic'] as const) {
      const plan = await analyzed(parse('sort=-priority,title&include_total=false&limit=10'), mode);
      // The page and its branches (one CTE per priority).
      const page = plan.filter((n) => /^CTE (page|branch\d)$/.test(String(n['Subplan Name']))).flatMap(nodes);
      expect(plan.filter((n) => /^CTE branch\d$/.test(String(n['Subplan Name'])))).toHaveLength(5);
      expect(page.map((n) => n['Index Name'])).toContain('tasks_workspace_top_priority_title_idx');
      // The first priority's branch: the page's 11 rows (and one read ahead); the others do not run (64 tasks a priority).
      expect(tasksRead(page)).toBeLessThanOrEqual(12);
    }
  });

  // Issue 37: with a second key other than the title, no index holds the priority before it. With the rank as
  // the branch's test, the generic plan read the whole priority through the title index (it holds the rank) and
  // sorted it; with the priority's name, the branch can only walk the second key's index and stop at the page.
  it.each(['-priority,due_date,title', 'priority,identifier', 'priority,-updated_at', '-priority,created_at', 'label_id={lb0}&sort=priority,-due_date'])(
    'sort %s: a first page walks the second key in order, custom and generic plan, never a whole priority',
    async (sortText) => {
      const text = await bind(sortText.includes('sort=') ? sortText : `sort=${sortText}`);
      for (const mode of ['custom', 'generic'] as const) {
        const plan = await analyzed(parse(`${text}&include_total=false&limit=10`), mode);
        const finding = new Set(plan.filter((n) => /^CTE (page|branch\d|walk\d)$/.test(String(n['Subplan Name']))).flatMap(nodes));
        const scans = [...finding].filter((n) => n['Relation Name'] === 'tasks' && Number(n['Actual Loops']) > 0);
        expect(scans.map((n) => n['Index Name'])).not.toContain('tasks_workspace_top_priority_title_idx');
        // Unfiltered, the first priority's branch returns the page's 11 rows (the whole priority is 64 tasks);
        // the label's walks read every priority here (it is rare), but in the second key's order.
        const returned = scans.reduce((sum, n) => sum + Number(n['Actual Rows']) * Number(n['Actual Loops']), 0);
        if (!sortText.startsWith('label_id')) expect(returned).toBeLessThanOrEqual(12);
      }
    },
  );

  /** EXPLAIN (ANALYZE) of `query`'s statement, custom or generic plan: its nodes. */
  const analyzed = async (query: TaskQuery, mode: 'custom' | 'generic', walkRows?: number) => {
    const { sql, params } = taskListSql(owner(), ids.owner, query, walkRows);
    const rows: Array<{ 'QUERY PLAN': Array<{ Plan: Record<string, unknown> }> }> = await explain(sql, params, mode, '(ANALYZE, FORMAT JSON)');
    return nodes(rows[0]['QUERY PLAN'][0].Plan);
  };
  /** Rows the executed scans of tasks in `plan` read (returned and filtered out), and whether the planned statement ran. */
  const tasksRead = (plan: Array<Record<string, unknown>>) =>
    plan
      .filter((n) => n['Relation Name'] === 'tasks' && Number(n['Actual Loops']) > 0)
      .reduce((sum, n) => sum + (Number(n['Actual Rows']) + Number(n['Rows Removed by Filter'] ?? 0)) * Number(n['Actual Loops']), 0);

  it.each(['status_id={s}', 'priority=high,low', 'label_id={lb1}', 'assignee_id={u3},none', 'q=t+a+s+k', 'due_after=2025-03-02'])(
    '%s: a first page of 10 reads about the rows it walks to fill it, not every match (custom and generic plan)',
    async (filter) => {
      const text = `${await bind(filter)}&include_total=false&limit=10`;
      for (const mode of ['custom', 'generic'] as const) {
        const plan = await analyzed(parse(text), mode);
        const walk = plan.find((n) => n['Subplan Name'] === 'CTE walk');
        expect(walk).toBeDefined();
        // The filters test the walked rows as they come, and the walk stops once 11 rows (the page and the one
        // telling that a next page exists) passed: the rows it handed up. (Under the walk's LIMIT, this small
        // workspace of 400 tasks may be read whole and sorted: cheaper than an index walk here; in a big one
        // the planner walks the sort's index, see `npm run bench -- --plans --scale 20`.)
        const limits = nodes(walk!).filter((n) => n['Node Type'] === 'Limit');
        expect(limits).toHaveLength(2);
        const walked = Number(limits[1]['Actual Rows']);
        expect(walked).toBeGreaterThanOrEqual(11);
        expect(walked).toBeLessThan(TOP_LEVEL / 2);
        const planned = plan.find((n) => n['Subplan Name'] === 'CTE page')!;
        expect(
          nodes(planned)
            .filter((n) => n['Relation Name'] === 'tasks')
            .every((n) => Number(n['Actual Loops']) === 0),
        ).toBe(true);
      }
    },
  );

  // Issue 37: the planned statement reads only the rows after the walk's last one, and none when the walk read the
  // whole scope. `q=zz` (shorter than a trigram) has no index and matches no task: every row is read and dropped.
  it('a filter that keeps no row of the walk: the planned statement reads the rows after the walk only, none after a walk of the whole scope', async () => {
    const plannedRead = async (walkRows?: number) => {
      const plan = await analyzed(parse('q=zz&include_total=false&limit=10'), 'custom', walkRows);
      const page = plan.find((n) => n['Subplan Name'] === 'CTE page')!;
      const walk = plan.find((n) => n['Subplan Name'] === 'CTE walk')!;
      return { planned: tasksRead(nodes(page).filter((n) => !nodes(walk).includes(n))), walked: tasksRead(nodes(walk)) };
    };
    // The workspace's 320 top-level tasks fit in the walk: it reads them all, and nothing is planned.
    expect(await plannedRead()).toEqual({ walked: TOP_LEVEL, planned: 0 });
    // A walk of 300 rows (and one read ahead by its row numbering): the planned statement reads the 20 after
    // them (it read all 320 again before).
    expect(await plannedRead(300)).toEqual({ walked: 301, planned: TOP_LEVEL - 300 });
  });

  it.each(['title', '-title'])('sort=%s: the first page of top-level tasks reads no subtask (an index of top-level titles)', async (sort) => {
    for (const mode of ['custom', 'generic'] as const) {
      const plan = await analyzed(parse(`sort=${sort}&include_total=false&limit=10`), mode);
      const page = nodes(plan.find((n) => n['Subplan Name'] === 'CTE page')!);
      expect(page.map((n) => n['Index Name'])).toContain('tasks_workspace_top_title_idx');
      // The page's 11 rows, and one more read ahead by the row numbering.
      expect(tasksRead(page)).toBeLessThanOrEqual(12);
    }
  });

  it('tasks and their assignee and label rows are vacuumed after a few new or changed rows (index-only counts and probes)', async () => {
    const rows: Array<{ relname: string; reloptions: string[] }> = await db.ds.query(
      `SELECT relname, reloptions FROM pg_class WHERE relname = ANY($1) AND relkind = 'r' ORDER BY relname`,
      [['tasks', 'task_assignees', 'task_labels']],
    );
    expect(rows.map((r) => r.relname)).toEqual(['task_assignees', 'task_labels', 'tasks']);
    for (const row of rows) {
      expect(row.reloptions).toEqual(expect.arrayContaining(['autovacuum_vacuum_insert_scale_factor=0.005', 'autovacuum_vacuum_scale_factor=0.01']));
    }
  });

  it('detects a sequential scan when no index serves a condition (the check can fail)', async () => {
    const rows: Array<{ 'QUERY PLAN': Array<{ Plan: Record<string, unknown> }> }> = await db.ds.query(
      `EXPLAIN (FORMAT JSON) SELECT id FROM tasks WHERE length(title) = $1`,
      [40],
    );
    expect(nodes(rows[0]['QUERY PLAN'][0].Plan).some((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'tasks')).toBe(true);
  });
});
