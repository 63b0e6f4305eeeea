import type { Membership } from '../common/access/access.policy';
import { accessCte } from '../common/access/access.repository';
import { allowedSql, GrantParams, grantParams, permittedListSql } from '../common/access/access.sql';
import { StatementTexts } from '../common/database/prepared';
import { SqlParams } from '../common/database/sql-params';
import type { CursorValues } from './task-cursor';
import type { SortKey, SortTerm, TaskFilters, TaskQuery } from './task-query';
import { PRIORITIES, Priority } from './tasks.dto';
import { taskPageSql } from './tasks.sql';

/*
 * The one statement of List tasks (D22, D34): filters, sort, offset or keyset
 * page, the total when wanted, and each row's task object, in one round trip.
 * Every filter and sort expression here is one an index of migration
 * 1795500000000 serves (test/e2e/tasks-query-plans.e2e-spec.ts checks the plans).
 * Values always travel as parameters.
 */

/** The tasks a listing covers: a workspace, and the caller's membership there (grants of D29, D30, D33). */
export interface TaskListScope {
  workspaceId: number;
  membership: Membership;
}

/** How one sort key reads in SQL. */
interface SortSql {
  /** The expression ordered by (never NULL: D34 puts tasks without a due date last in both directions). */
  expr: (desc: boolean) => string;
  /** The value a cursor carries for it (text for timestamps: microseconds survive JSON). */
  cursorValue: string;
  /** The parameter of a cursor value, comparable with `expr`. */
  param: (p: SqlParams, value: string | number | null, desc: boolean) => string;
}

/** Timestamps in cursors: UTC with microseconds, read back exactly by `::timestamptz`. */
const cursorTs = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** D34: due dates compared with NULL as the end of either direction. */
const dueExpr = (desc: boolean) => `COALESCE(t.due_date, '${desc ? '-' : ''}infinity'::timestamptz)`;

const SORT_SQL: Record<SortKey, SortSql> = {
  created_at: { expr: () => 't.created_at', cursorValue: cursorTs('t.created_at'), param: (p, v) => p.add(v, 'timestamptz') },
  updated_at: { expr: () => 't.updated_at', cursorValue: cursorTs('t.updated_at'), param: (p, v) => p.add(v, 'timestamptz') },
  due_date: {
    expr: dueExpr,
    cursorValue: cursorTs('t.due_date'),
    param: (p, v, desc) => p.add(v ?? (desc ? '-infinity' : 'infinity'), 'timestamptz'),
  },
  // D34: urgent, high, medium, low, none ascending.
  priority: { expr: () => 'task_priority_rank(t.priority)', cursorValue: 'task_priority_rank(t.priority)', param: (p, v) => p.add(v, 'int') },
  identifier: { expr: () => 't.identifier', cursorValue: 't.identifier', param: (p, v) => p.add(v, 'int') },
  // D34: ASCII letters lower-cased, then code point order (the "C" collation of UTF-8 text).
  title: { expr: () => 'lower(t.title COLLATE "C")', cursorValue: 'lower(t.title COLLATE "C")', param: (p, v) => `(${p.add(v, 'text')} COLLATE "C")` },
};

/** A JSON array of what a cursor carries for the row of tasks `t` under `sort`: its sort values, then its id. */
export function cursorValuesSql(sort: SortTerm[]): string {
  return `json_build_array(${[...sort.map((s) => SORT_SQL[s.key].cursorValue), 't.id'].join(', ')})`;
}

/** D34: a priority's place in the ascending order, as SQL's task_priority_rank() gives it (0 = urgent). */
export const priorityRank = (priority: Priority): number => PRIORITIES.indexOf(priority);

/** Characters in a trigram: a `q` term shorter than this cannot be narrowed by the trigram index. */
const TRIGRAM = 3;

/** D34 `q`: a term as a LIKE pattern matching it anywhere, `\`, `%` and `_` taken literally. */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, '\\$&')}%`;
}

/**
 * The WHERE conditions on tasks `t`: `scope`, the rows a listing ranges over (the workspace or the list, the
 * caller's access (D30, D33: the shared list rule), top-level tasks, subtasks too, or one parent's), which
 * the sort's index serves in order; `narrowing`, the other filters of D34, and `walking`, the same filters
 * written to test one walked row at a time without changing the walk's order (see taskListSql): per-row
 * probes (`OFFSET 0` keeps PostgreSQL from turning them into joins, whose hash forms do not keep the order)
 * and a status list looked up once.
 */
function filterSql(p: SqlParams, scope: TaskListScope, grants: GrantParams, query: TaskQuery): { scope: string[]; narrowing: string[]; walking: string[] } {
  const f = query.filters;
  // The workspace's placeholder, added once and only when used (PostgreSQL rejects an untyped unused parameter).
  let wsParam: string | undefined;
  const ws = () => (wsParam ??= p.add(scope.workspaceId, 'int'));
  // A list's tasks are all in its workspace (the caller's check found the list there): filtered on a list, the
  // list alone bounds the rows, so its index answers page and count without the workspace's rows.
  const where = [f.listId !== null ? `t.list_id = ${p.add(f.listId, 'int')}` : `t.workspace_id = ${ws()}`, permittedListSql('t.list_id', grants)];

  if (f.parentId !== null) {
    const parent = p.add(f.parentId, 'int');
    where.push(`t.parent_id = ${parent}`);
    // D33: a parent the caller may not see matches nothing.
    where.push(`EXISTS (SELECT 1 FROM tasks pt WHERE pt.id = ${parent} AND ${permittedListSql('pt.list_id', grants)})`);
  } else if (!f.includeSubtasks) {
    where.push('t.parent_id IS NULL');
  }
  const inScope = where.length;
  // Where the walk's form of a filter differs: its index in `where` and its text.
  const walkForm = new Map<number, string>();
  const push = (planned: string, walked?: string) => {
    if (walked) walkForm.set(where.length, walked);
    where.push(planned);
  };
  if (f.statusIds) where.push(`t.status_id = ANY(${p.add(f.statusIds, 'int[]')})`);
  if (f.statusCategories) {
    const statuses = `SELECT s.id FROM statuses s WHERE s.workspace_id = ${ws()} AND s.category = ANY(${p.add(f.statusCategories, 'text[]')})`;
    push(`t.status_id IN (${statuses})`, `t.status_id = ANY(ARRAY(${statuses}))`);
  }
  if (f.assignees) {
    const { ids, none } = f.assignees;
    if (ids.length && none) {
      // Ids or none: one probe of the task's assignees (no assignee: NULL, kept). The two conditions
      // joined by OR made PostgreSQL read every task of the ids' users first (issue 37).
      where.push(`COALESCE((SELECT bool_or(ta.user_id = ANY(${p.add(ids, 'int[]')})) FROM task_assignees ta WHERE ta.task_id = t.id), true)`);
    } else if (ids.length) {
      const users = p.add(ids, 'int[]');
      push(
        `t.id IN (SELECT ta.task_id FROM task_assignees ta WHERE ta.user_id = ANY(${users}))`,
        `EXISTS (SELECT 1 FROM task_assignees ta WHERE ta.task_id = t.id AND ta.user_id = ANY(${users}) OFFSET 0)`,
      );
    } else {
      push(
        'NOT EXISTS (SELECT 1 FROM task_assignees ta WHERE ta.task_id = t.id)',
        'NOT EXISTS (SELECT 1 FROM task_assignees ta WHERE ta.task_id = t.id OFFSET 0)',
      );
    }
  }
  if (f.labelIds) {
    const labels = p.add(f.labelIds, 'int[]');
    push(
      `t.id IN (SELECT tl.task_id FROM task_labels tl WHERE tl.label_id = ANY(${labels}))`,
      `EXISTS (SELECT 1 FROM task_labels tl WHERE tl.task_id = t.id AND tl.label_id = ANY(${labels}) OFFSET 0)`,
    );
  }
  if (f.priorities) where.push(`task_priority_rank(t.priority) = ANY(${p.add(f.priorities.map(priorityRank), 'int[]')})`);
  // A task without a due date matches neither bound: the COALESCE sends it past both ends.
  if (f.dueAfter) where.push(`${dueExpr(true)} >= ${p.add(f.dueAfter, 'timestamptz')}`);
  if (f.dueBefore) where.push(`${dueExpr(false)} < ${p.add(f.dueBefore, 'timestamptz')}`);
  if (f.createdAfter) where.push(`t.created_at >= ${p.add(f.createdAfter, 'timestamptz')}`);
  if (f.updatedAfter) where.push(`t.updated_at >= ${p.add(f.updatedAfter, 'timestamptz')}`);
  for (const term of f.terms ?? []) {
    // PostgreSQL text holds no NUL character: such a term occurs nowhere (and cannot be a parameter).
    if (term.includes('\0')) {
      where.push('false');
      continue;
    }
    // The trigram index narrows a term of 3 characters or more; a shorter one matches nearly every task, and a
    // scan of the whole index for it costs more than testing the stored text of the scope's rows: that form is
    // kept from the index (the statement's text differs, so each form keeps its own plan).
    const text = [...term].length >= TRIGRAM ? 't.search_text' : "(t.search_text || '')";
    where.push(`${text} LIKE lower(${p.add(containsPattern(term), 'text')})`);
  }
  const narrowing = where.slice(inScope);
  return { scope: where.slice(0, inScope), narrowing, walking: narrowing.map((sql, i) => walkForm.get(inScope + i) ?? sql) };
}

/**
 * Rows of the scope a filtered keyset page first walks in the sort's order (issue 37). Filters that keep
 * more than about one row in 200 (limit 50) fill the page within them, whatever the size of the
 * workspace; rarer ones leave the page to the planner's plan over all matches (their index, then a sort).
 */
export const WALK_ROWS = 10_000;

/** Whether a filter beyond the list (whose index is ordered like the default sort) narrows the rows. */
function narrows(f: TaskFilters): boolean {
  return Boolean(
    f.statusIds ||
    f.statusCategories ||
    f.assignees ||
    f.labelIds ||
    f.priorities ||
    f.parentId !== null ||
    f.dueAfter ||
    f.dueBefore ||
    f.createdAfter ||
    f.updatedAfter ||
    f.terms,
  );
}

/**
 * ORDER BY items over the sort expressions (or the columns `k<first>..` of a CTE row `alias`, `first` being the
 * column of the first of these keys), ties by id in the last key's direction (D34).
 */
function orderSql(sort: SortTerm[], alias?: string, first = 0): string {
  const dir = (desc: boolean) => (desc ? 'DESC' : 'ASC');
  const items = sort.map((s, i) => `${alias ? `${alias}.k${first + i}` : SORT_SQL[s.key].expr(s.desc)} ${dir(s.desc)}`);
  items.push(`${alias ? `${alias}.id` : 't.id'} ${dir(sort[sort.length - 1].desc)}`);
  return items.join(', ');
}

/**
 * D34 keyset: rows strictly after the cursor's row in the sort order. One
 * direction throughout compares rows (`(k, id) < ($1, $2)`), which an index
 * range serves; mixed directions expand to the lexicographic OR, with the first
 * key's bound kept alone as well so the index still gives the range start.
 */
function afterSql(p: SqlParams, sort: SortTerm[], after: CursorValues): string {
  return afterValuesSql(sort, [...sort.map((s, i) => SORT_SQL[s.key].param(p, after[i], s.desc)), p.add(after[sort.length], 'int')]);
}

/** afterSql with the row's sort values and id given as SQL expressions (`values`: one per key, then the id). */
function afterValuesSql(sort: SortTerm[], values: string[]): string {
  const terms = [...sort.map((s, i) => ({ expr: SORT_SQL[s.key].expr(s.desc), value: values[i], desc: s.desc }))];
  terms.push({ expr: 't.id', value: values[sort.length], desc: sort[sort.length - 1].desc });
  const op = (desc: boolean) => (desc ? '<' : '>');
  if (terms.every((t) => t.desc === terms[0].desc)) {
    return `(${terms.map((t) => t.expr).join(', ')}) ${op(terms[0].desc)} (${terms.map((t) => t.value).join(', ')})`;
  }
  const ors = terms.map((t, i) => [...terms.slice(0, i).map((e) => `${e.expr} = ${e.value}`), `${t.expr} ${op(t.desc)} ${t.value}`].join(' AND '));
  return `${terms[0].expr} ${op(terms[0].desc)}= ${terms[0].value} AND (${ors.map((o) => `(${o})`).join(' OR ')})`;
}

/**
 * What the text of a listing statement depends on besides its placeholders (listParts' branches): two
 * queries of one shape build the same text, with other values. Everything else a query holds travels as
 * a parameter. A property test (task-list.sql.spec.ts) builds random queries and finds one text per shape.
 */
export function listShape(query: TaskQuery, walkRows: number): string {
  const f = query.filters;
  const has = (value: unknown) => (value === null || value === false ? '0' : '1');
  const term = (t: string) => (t.includes('\0') ? 'z' : [...t].length >= TRIGRAM ? 'L' : 's');
  return [
    query.mode,
    // Written as numbers: a keyset page's row count and, sorted by priority first, the cursor's priority.
    query.mode === 'cursor' ? query.limit : '',
    query.mode === 'cursor' && byPriorityFirst(query.sort) && query.after ? query.after[0] : '',
    has(query.after),
    has(query.includeTotal),
    query.sort.map((s) => `${s.desc ? '-' : ''}${s.key}`).join(','),
    [f.listId, f.statusIds, f.statusCategories, f.labelIds, f.priorities, f.parentId, f.includeSubtasks].map(has).join(''),
    [f.dueAfter, f.dueBefore, f.createdAfter, f.updatedAfter].map(has).join(''),
    f.assignees ? `${f.assignees.ids.length > 0 ? 'i' : ''}${f.assignees.none ? 'n' : ''}` : '-',
    f.terms ? f.terms.map(term).join('') : '-',
    walkRows,
  ].join('|');
}

/**
 * The texts of listing statements by kind and shape (listShape): a text built again for a shape is replaced
 * by the one kept, the same string, which the named-statement cache then finds without reading its 6 kB
 * again (statementName; about 10-20 us of a listing's CPU, issue 37).
 */
const LIST_TEXTS = new StatementTexts();

/**
 * The listing statement and its parameters; its one row is `{ data (JSON text), total?, next_key? }` (see TasksRepository.listPage).
 * `walkRows`: rows a filtered keyset page walks before the planned statement takes over (WALK_ROWS; 0: no walk), for tests.
 * `texts`: where the text is kept by its shape (null: the text as built, for tests).
 */
export function taskListSql(
  scope: TaskListScope,
  userId: number,
  query: TaskQuery,
  walkRows = WALK_ROWS,
  texts: StatementTexts | null = LIST_TEXTS,
): { sql: string; params: unknown[] } {
  const p = new SqlParams();
  const { ctes, columns } = listParts(p, scope, userId, query, walkRows);
  const sql = `WITH ${ctes}\n     SELECT ${columns.map(([name, sql]) => `${sql} AS ${name}`).join(',\n ')}`;
  return { sql: texts ? texts.intern(`page|${listShape(query, walkRows)}`, sql) : sql, params: p.values };
}

/**
 * The grants of an unrestricted membership: the optimistic form of checkedTaskListSql, whose statement
 * hands no page to a restricted member (they get taskListSql with their grants).
 */
const UNRESTRICTED: Membership = { role: 'member', restricted: false, folderIds: [], listIds: [], listFolderIds: [] };

/**
 * taskListSql for an unrestricted membership, with the workspace's access check in the same statement
 * (issue 37: one round trip): its access row `a` (AccessRepository's, with list `query.filters.listId`)
 * gates the page, which is computed only when the caller passes the route's check (allowedSql of
 * `workspace.read`), is not restricted, and the list filter, if any, names a list of the workspace.
 * Its one row (none when there is no such workspace) carries `listed` and, when listed, the page's columns;
 * otherwise `access`, the access row as JSON text, for the caller to answer from (with an error, or by
 * listing with the grants it found). `texts`: as taskListSql's.
 */
export function checkedTaskListSql(
  workspaceId: number,
  userId: number,
  query: TaskQuery,
  texts: StatementTexts | null = LIST_TEXTS,
): { sql: string; params: unknown[] } {
  const p = new SqlParams();
  const { ctes, columns, user, workspace } = listParts(p, { workspaceId, membership: UNRESTRICTED }, userId, query, WALK_ROWS);
  const listId = query.filters.listId;
  const list = listId === null ? 'NULL::int' : p.add(listId, 'int');
  const ok = `${allowedSql('workspace.read')} AND NOT COALESCE(a.is_restricted, false)${listId === null ? '' : ' AND a.list_found'}`;
  const sql = `WITH ${accessCte('workspace', workspace, user, list)}, ${ctes}
     SELECT CASE WHEN ${ok} THEN NULL ELSE row_to_json(a)::text END AS access, COALESCE(${ok}, false) AS listed,
            ${columns.map(([name, sql]) => `CASE WHEN ${ok} THEN ${sql} END AS ${name}`).join(',\n ')}
       FROM a`;
  return { sql: texts ? texts.intern(`checked|${listShape(query, WALK_ROWS)}`, sql) : sql, params: p.values };
}

/** The CTEs of a listing (`WITH` left out) and its result columns (name, SQL), with the user's and the workspace's placeholders. */
function listParts(
  p: SqlParams,
  scope: TaskListScope,
  userId: number,
  query: TaskQuery,
  walkRows: number,
): { ctes: string; columns: [string, string][]; user: string; workspace: string } {
  const grants = grantParams(p, scope.membership);
  const conditions = filterSql(p, scope, grants, query);
  const where = [...conditions.scope, ...conditions.narrowing].join('\n AND ');
  const keys = query.sort.map((s, i) => `${SORT_SQL[s.key].expr(s.desc)} AS k${i}`).join(', ');
  const user = p.add(userId, 'int');
  const workspace = p.add(scope.workspaceId, 'int');
  const limit = p.add(query.limit, 'int');

  if (query.mode === 'offset') {
    // D22: the scope is counted and paged by one statement. Unfiltered, it is not materialized:
    // the page walks the sort's index and stops at the limit. Filtered, it is: the count reads
    // every match anyway, and the page then sorts those few rows instead of walking the index
    // past all the others (the generic plan cannot know how few match).
    const offset = p.add((BigInt(query.page - 1) * BigInt(query.limit)).toString(), 'bigint');
    const items = taskPageSql('SELECT id FROM page', 'page p JOIN tasks t ON t.id = p.id', orderSql(query.sort, 'p'), user, grants, workspace);
    const ctes = `scope AS ${narrows(query.filters) ? 'MATERIALIZED' : 'NOT MATERIALIZED'} (
         SELECT t.id, ${keys} FROM tasks t WHERE ${where}
       ), page AS MATERIALIZED (
         SELECT * FROM scope ORDER BY ${orderSql(query.sort, 'scope')} LIMIT ${limit} OFFSET ${offset}
       ), ${items.ctes.join(',\n')}`;
    return {
      ctes,
      columns: [
        ['total', '(SELECT count(*)::int FROM scope)'],
        ['data', items.array],
      ],
      user,
      workspace,
    };
  }

  // D34 keyset page: one row more than asked tells whether a next page exists. The LIMIT is written as a
  // number (a validated integer, at most PAGE_LIMIT.max + 1 from a request), not a parameter: a generic plan
  // then knows that a page reads a few rows, and walks the sort's index with the filters instead of sorting
  // every match (issue 37).
  const pageRows = query.limit + 1;
  if (!Number.isSafeInteger(pageRows) || pageRows < 2) throw new Error(`taskListSql: bad limit ${query.limit}`);
  const items = taskPageSql(
    `SELECT id FROM page WHERE n <= ${limit}`,
    `page p JOIN tasks t ON t.id = p.id AND p.n <= ${limit}`,
    'p.n',
    user,
    grants,
    workspace,
  );
  const walks = conditions.narrowing.length > 0 && query.filters.parentId === null && walkRows > 0;
  const page = byPriorityFirst(query.sort)
    ? priorityFirstPageSql(p, query, conditions, pageRows, walks ? Math.floor(walkRows) : 0)
    : pageSql(p, query, conditions, pageRows, walks ? Math.floor(walkRows) : 0);
  const columns: [string, string][] = [
    ['data', items.array],
    ['next_key', `(SELECT p.next_key FROM page p WHERE p.n = ${limit} AND EXISTS (SELECT 1 FROM page m WHERE m.n > ${limit}))`],
  ];
  if (query.includeTotal) columns.push(['total', `(SELECT count(*)::int FROM tasks t WHERE ${where})`]);
  return { ctes: `${page}, ${items.ctes.join(',\n')}`, columns, user, workspace };
}

/** The filter conditions of taskListSql, split as filterSql gives them. */
type Conditions = ReturnType<typeof filterSql>;

/** `k0, k1, ..`: each sort key's expression as a column (named as orderSql's `alias` form reads them). */
const keyColumns = (sort: SortTerm[]) => sort.map((s, i) => `${SORT_SQL[s.key].expr(s.desc)} AS k${i}`).join(', ');

/**
 * The CTEs of a keyset page, the last one `page (id, n, next_key)`: the first `pageRows` rows after the cursor
 * in the sort's order, numbered. With `walkRows` (filtered pages), the page is first looked for among the
 * next `walkRows` rows of the scope in the sort's order: the subquery with its LIMIT is planned alone (a walk
 * of the sort's index), the filters test its rows as they come, and the walk stops when the page is full. It
 * also hands up its last row (the `walkRows`-th, `last`) when it gets there. Only when the walk ends without a
 * full page does the planned statement run, gated by a one-time filter, and only for the rows after the walk's
 * last one (issue 37: before, it read the walked rows again); when the walk ended before its last row, it read
 * the whole scope and nothing is planned. The walk's matches, then the planned rows after them: the first rows
 * after the cursor in the sort's order, the page one ordered statement gives.
 */
function pageSql(p: SqlParams, query: TaskQuery, c: Conditions, pageRows: number, walkRows: number): string {
  const keyset = query.after ? [afterSql(p, query.sort, query.after)] : [];
  const planned = (after: string[]) => `SELECT t.id, row_number() OVER (ORDER BY ${orderSql(query.sort)}) AS n, ${cursorValuesSql(query.sort)} AS next_key
         FROM tasks t WHERE ${[...c.scope, ...c.narrowing, ...after].join('\n AND ')}
        ORDER BY ${orderSql(query.sort)} LIMIT ${pageRows}`;
  if (!walkRows) return `page AS MATERIALIZED (\n       ${planned(keyset)}\n     )`;
  const walk = walkSql('walk', query.sort, 0, [...c.scope, ...keyset], c.walking, pageRows, walkRows);
  return `${walk.cte}, page AS MATERIALIZED (
       SELECT w.id, w.n, w.next_key FROM walk w WHERE w.hit
       UNION ALL
       SELECT * FROM (SELECT planned.id, planned.n + ${walk.found} AS n, planned.next_key FROM (${planned([walk.after])}) planned) planned
        WHERE planned.n <= ${pageRows} AND ${walk.more}
     )`;
}

/**
 * The walk of a filtered keyset page (see pageSql), CTE `name` of the matches among the first `walkRows` rows of
 * `where` in the order of `sort` from its key `first` on (the keys before it are equal on those rows), at most
 * `pageRows` of them, with their sort keys as columns `k0..`, `n` (their place), `next_key`, and `hit`; and the
 * walk's last row (the `walkRows`-th, `last`, `hit` when it matches) when the walk got there. Each filter is
 * written `last OR filter`, so PostgreSQL still tests the cheap ones first. Returns the CTE; `found`, the count of
 * its matches; `more`, whether rows after the walk are still wanted (the page is not full and the walk reached
 * its last row: otherwise it read every row of `where`); `after`, the condition on tasks `t` of being after the
 * walk's last row (its values read once, each an uncorrelated subquery).
 */
function walkSql(
  name: string,
  sort: SortTerm[],
  first: number,
  where: string[],
  walking: string[],
  pageRows: number,
  walkRows: number,
): { cte: string; found: string; more: string; after: string } {
  const within = sort.slice(first);
  const last = [...within.map((_, i) => `(SELECT w.k${first + i} FROM ${name} w WHERE w.last)`), `(SELECT w.id FROM ${name} w WHERE w.last)`];
  const found = `(SELECT count(*) FROM ${name} w WHERE w.hit)`;
  // `hit`: every row the walk hands up matches, but its last one: the filters are tested again on that one only.
  const cte = `${name} AS MATERIALIZED (
       SELECT t.id, ${sort.map((_, i) => `t.k${i}`).join(', ')}, t.walked = ${walkRows} AS last,
              (t.walked < ${walkRows} OR (${walking.join('\n AND ')})) AS hit,
              row_number() OVER (ORDER BY ${orderSql(within, 't', first)}) AS n, ${cursorValuesSql(sort)} AS next_key
         FROM (SELECT t.*, ${keyColumns(sort)}, row_number() OVER (ORDER BY ${orderSql(within)}) AS walked
                 FROM tasks t WHERE ${where.join('\n AND ')}
                ORDER BY ${orderSql(within)} LIMIT ${walkRows}) t
        WHERE ${walking.map((m) => `(${m} OR t.walked = ${walkRows})`).join('\n AND ')}
        ORDER BY ${orderSql(within, 't', first)} LIMIT ${pageRows}
     )`;
  return {
    cte,
    found,
    more: `${found} < ${pageRows} AND EXISTS (SELECT 1 FROM ${name} w WHERE w.last)`,
    after: afterValuesSql(within, last),
  };
}

/**
 * A branch's priority test. Only `title` has an index that holds the priority before it
 * (`tasks_workspace_top_priority_title_idx`): for it, the rank the index holds. For the other second keys,
 * the column compared with the priority's name, which no index serves: a plan can then only walk the second
 * key's index in order, testing each row, and stop at the page. With the rank, the generic plan (which takes a
 * workspace's size from the average over all workspaces) read the whole priority through the title index and
 * sorted it (issue 37).
 */
const rankTest = (second: SortKey, rank: number) => (second === 'title' ? `${SORT_SQL.priority.expr(false)} = ${rank}` : `t.priority = '${PRIORITIES[rank]}'`);

/** Whether the sort begins with priority and has more keys: the first key has five values, each a long run of rows. */
const byPriorityFirst = (sort: SortTerm[]) => sort.length > 1 && sort[0].key === 'priority';

/**
 * pageSql for a sort that begins with priority and has more keys (`-priority,title`). No index gives rows in
 * such an order: PostgreSQL read the whole first priority's rows and sorted them (134,621 at a million tasks,
 * issue 37). Here each priority from the cursor's on is one branch, `priority = <rank>` ordered by the other
 * keys, which the other key's index (or `tasks_workspace_top_priority_title_idx` for the title) gives in order,
 * limited to the page: a branch reads about a page, whatever the size of the workspace, and runs only when the
 * branches before it hold fewer than a page. The branches are then merged in the whole sort's order and the
 * first `pageRows` kept: the same rows as one ordered statement.
 * The cursor's priority (a signed, checked rank 0-4) decides which branches are written and is written as a
 * number, so a named statement keeps one plan per starting priority. Filtered, each branch first walks
 * `walkRows` rows of its priority, as pageSql does, and falls back on its own planned statement for the rows
 * after the walk when the walk did not fill a page: each branch then holds the first matches of its priority, so
 * the merge is exact.
 */
function priorityFirstPageSql(p: SqlParams, query: TaskQuery, c: Conditions, pageRows: number, walkRows: number): string {
  const [first, ...rest] = query.sort;
  const ranks = PRIORITIES.map((_, rank) => rank);
  if (first.desc) ranks.reverse();
  const after = query.after;
  const start = after ? ranks.indexOf(after[0] as number) : 0;
  if (start < 0) throw new Error('taskListSql: bad priority in cursor');
  // The rows after the cursor within the cursor's own priority: by the other keys, then the id.
  const restAfter = after ? afterSql(p, rest, after.slice(1)) : null;
  const columns = `t.id, ${keyColumns(query.sort)}, ${cursorValuesSql(query.sort)} AS next_key`;
  const ctes: string[] = [];
  const branches = ranks.slice(start).map((rank, i) => {
    const inRank = `${rankTest(rest[0].key, rank)}${i === 0 && restAfter ? `\n AND ${restAfter}` : ''}`;
    const planned = (after?: string) => `SELECT ${columns} FROM tasks t WHERE ${[...c.scope, ...c.narrowing, inRank, ...(after ? [after] : [])].join('\n AND ')}
        ORDER BY ${orderSql(rest)} LIMIT ${pageRows}`;
    if (!walkRows) return planned();
    const walk = walkSql(`walk${rank}`, query.sort, 1, [...c.scope, inRank], c.walking, pageRows, walkRows);
    ctes.push(walk.cte);
    return `SELECT w.id, ${query.sort.map((_, k) => `w.k${k}`).join(', ')}, w.next_key FROM walk${rank} w WHERE w.hit
       UNION ALL
       SELECT * FROM (${planned(walk.after)}) planned WHERE ${walk.more}`;
  });
  // A priority is read only when the ones before it hold fewer than the page's rows: its rows all come after
  // theirs, so they could not be on the page (a one-time filter: the branch's scans do not start).
  const names = branches.map((_, i) => `branch${i}`);
  branches.forEach((branch, i) => {
    const gate =
      i === 0
        ? ''
        : `\n        WHERE (${names
            .slice(0, i)
            .map((n) => `(SELECT count(*) FROM ${n})`)
            .join(' + ')}) < ${pageRows}`;
    ctes.push(`${names[i]} AS MATERIALIZED (\n       SELECT * FROM (${branch}) b${gate}\n     )`);
  });
  ctes.push(`page AS MATERIALIZED (
       SELECT b.id, row_number() OVER (ORDER BY ${orderSql(query.sort, 'b')}) AS n, b.next_key
         FROM (${names.map((n) => `SELECT * FROM ${n}`).join('\n       UNION ALL ')}) b
        ORDER BY ${orderSql(query.sort, 'b')} LIMIT ${pageRows}
     )`);
  return ctes.join(', ');
}
