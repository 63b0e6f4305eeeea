import { writeFileSync } from 'fs';
import { Client } from 'pg';

import type { Membership } from '../src/common/access/access.policy';
import { queryPairs } from '../src/common/validation/query-pairs';
import { checkedTaskListSql, taskListSql } from '../src/tasks/task-list.sql';
import { parseTaskQuery } from '../src/tasks/task-query';

/*
 * `npm run bench -- --plans [--scale 20] [--generic]` (issue 37, see `plans` below):
 * the work each List tasks scenario costs PostgreSQL, read from EXPLAIN (ANALYZE, BUFFERS)
 * of the statement the server sends (checkedTaskListSql; taskListSql for a restricted member), not from wall-clock load: rows read
 * from `tasks` and its indexes, heap fetches of index-only scans, shared buffers touched,
 * and the plan's shape. These hold on a busy machine, where req/s do not.
 *
 * The database is a loaded bench world (`npm run bench -- --reference` builds bench_svc,
 * `--scale 20` its ×20 copy): the scenarios run in its big workspace ("bench-corp")
 * as its member user (unrestricted; `restricted` scenarios as the restricted member).
 * `--generic` explains the plan the server keeps for a named statement after its first
 * executions (plan_cache_mode = force_generic_plan) instead of the plan for the values.
 */

/** One scenario: a List tasks query string (placeholders filled from the world, see `bind`). */
interface PlanScenario {
  name: string;
  query: string;
  restricted?: boolean;
}

/** The unfiltered cursor page every filtered first page is compared with (issue 37: within 5x). */
export const BASE_SCENARIO = 'cursor page';

export const PLAN_SCENARIOS: PlanScenario[] = [
  { name: BASE_SCENARIO, query: 'include_total=false' },
  { name: 'offset page with exact total', query: '' },
  { name: 'deep cursor (middle of the workspace)', query: 'include_total=false&cursor={deep}' },
  { name: 'status_id (most common)', query: 'include_total=false&status_id={status_common}' },
  { name: 'status_id (least common)', query: 'include_total=false&status_id={status_rare}' },
  { name: 'status_category=pending,in_progress', query: 'include_total=false&status_category=pending,in_progress' },
  { name: 'status_category=cancelled', query: 'include_total=false&status_category=cancelled' },
  { name: 'assignee_id=me', query: 'include_total=false&assignee_id=me' },
  { name: 'assignee_id=none', query: 'include_total=false&assignee_id=none' },
  { name: 'assignee_id=me,none', query: 'include_total=false&assignee_id=me,none' },
  { name: 'label_id', query: 'include_total=false&label_id={label}' },
  { name: 'label_id (two)', query: 'include_total=false&label_id={label},{label2}' },
  { name: 'priority=urgent', query: 'include_total=false&priority=urgent' },
  { name: 'priority=high,low', query: 'include_total=false&priority=high,low' },
  { name: 'due range (10 weeks)', query: 'include_total=false&due_after=2025-03-01&due_before=2025-05-10' },
  { name: 'due_after', query: 'include_total=false&due_after=2025-06-01' },
  { name: 'due_before', query: 'include_total=false&due_before=2024-03-01' },
  { name: 'created_after', query: 'include_total=false&created_after=2025-01-01' },
  { name: 'updated_after', query: 'include_total=false&updated_after=2025-01-01' },
  { name: 'q one word', query: 'include_total=false&q=review' },
  { name: 'q worst (10 one-character terms)', query: 'include_total=false&q=a+e+i+o+u+t+s+r+n+l' },
  { name: 'parent_id', query: 'include_total=false&parent_id={parent}' },
  { name: 'include_subtasks=true', query: 'include_total=false&include_subtasks=true' },
  {
    name: 'my open tasks due soon',
    query: 'include_total=false&assignee_id=me&status_category=pending,in_progress&due_after=2025-08-01&due_before=2025-10-10',
  },
  ...['title', '-title', 'created_at', 'updated_at', '-updated_at', 'due_date', '-due_date', 'priority', '-priority', 'identifier', '-identifier'].map((s) => ({
    name: `sort=${s}`,
    query: `include_total=false&sort=${s}`,
  })),
  { name: 'sort=-priority,title', query: 'include_total=false&sort=-priority,title' },
  // Sorts that begin with priority are paged one priority at a time (issue 37).
  ...['priority,-created_at', '-priority,due_date,title', 'priority,identifier'].map((s) => ({ name: `sort=${s}`, query: `include_total=false&sort=${s}` })),
  { name: 'label_id, sort=-priority,title', query: 'include_total=false&label_id={label}&sort=-priority,title' },
  { name: 'restricted member cursor page', query: 'include_total=false', restricted: true },
];

/**
 * `--priority-sorts`: every sort D34 allows that begins with priority and has a second key (20), unfiltered,
 * filtered (a label: the walk) and as the restricted member (issue 37: their generic plans).
 */
export const PRIORITY_SORT_SCENARIOS: PlanScenario[] = ['priority', '-priority'].flatMap((first) =>
  ['created_at', 'updated_at', 'due_date', 'identifier', 'title'].flatMap((key) =>
    [key, `-${key}`].flatMap((second) => {
      const sort = `${first},${second}`;
      return [
        { name: `sort=${sort}`, query: `include_total=false&sort=${sort}` },
        { name: `label_id, sort=${sort}`, query: `include_total=false&label_id={label}&sort=${sort}` },
        { name: `restricted, sort=${sort}`, query: `include_total=false&sort=${sort}`, restricted: true },
      ];
    }),
  ),
);

/** Ids of the big workspace the scenarios name. */
interface WorldIds {
  workspaceId: number;
  memberId: number;
  restrictedId: number;
  restrictedGrants: { listIds: number[]; folderIds: number[] };
  values: Record<string, string>;
}

async function worldIds(db: Client, slug: string): Promise<WorldIds> {
  const one = async (sql: string, params: unknown[] = []) => (await db.query(sql, params)).rows[0];
  const { ws } = await one(`SELECT id AS ws FROM workspaces WHERE slug = $1`, [slug]);
  const member = await one(
    `SELECT m.user_id FROM workspace_members m WHERE m.workspace_id = $1 AND m.role = 'member' AND NOT m.is_restricted ORDER BY m.user_id LIMIT 1`,
    [ws],
  );
  const restricted = await one(`SELECT user_id FROM workspace_members WHERE workspace_id = $1 AND is_restricted ORDER BY user_id LIMIT 1`, [ws]);
  const statuses = (
    await db.query(
      `SELECT t.status_id, count(*) FROM tasks t WHERE t.workspace_id = $1 AND t.parent_id IS NULL AND t.status_id IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1`,
      [ws],
    )
  ).rows;
  const labels = (await db.query(`SELECT id FROM labels WHERE workspace_id = $1 ORDER BY id LIMIT 2`, [ws])).rows;
  const { parent } = await one(
    `SELECT parent_id AS parent FROM tasks WHERE workspace_id = $1 AND parent_id IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
    [ws],
  );
  const grants = restricted
    ? await one(
        `SELECT COALESCE((SELECT array_agg(list_id) FROM member_list_grants WHERE workspace_id = $1 AND user_id = $2), '{}') AS list_ids,
                COALESCE((SELECT array_agg(folder_id) FROM member_folder_grants WHERE workspace_id = $1 AND user_id = $2), '{}') AS folder_ids`,
        [ws, restricted.user_id],
      ).catch(() => ({ list_ids: [], folder_ids: [] }))
    : { list_ids: [], folder_ids: [] };
  return {
    workspaceId: ws,
    memberId: member.user_id,
    restrictedId: restricted?.user_id ?? member.user_id,
    restrictedGrants: { listIds: grants.list_ids, folderIds: grants.folder_ids },
    values: {
      status_common: String(statuses[0].status_id),
      status_rare: String(statuses[statuses.length - 1].status_id),
      label: String(labels[0].id),
      label2: String(labels[1].id),
      parent: String(parent),
    },
  };
}

/** Figures read from one EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON). */
export interface PlanFigures {
  scenario: string;
  /** Execution time of the whole statement (the page's rows and their task objects). */
  ms: number;
  /** Time of the part that finds the page (the `walk` (`walk0`..`walk4`: one per priority) and `page` CTEs; offset pages: `scope`, `page` and the count). */
  pageMs: number;
  /** Rows the scans of tasks and of its link tables returned while finding the page (actual rows × loops). */
  rowsRead: number;
  /** Rows those scans read and dropped by a filter or a recheck (× loops). */
  rowsFiltered: number;
  /** Heap fetches of index-only scans while finding the page. */
  heapFetches: number;
  /** Shared buffers touched while finding the page (hit + read). */
  pageBuffers: number;
  /** Shared buffers touched by the whole statement. */
  sharedBuffers: number;
  /** The scans that find the page, outermost first. */
  shape: string;
}

type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };
const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];
const SCANNED = /^(tasks|task_assignees|task_labels|statuses)$/;
const buffers = (n: PlanNode) => Number(n['Shared Hit Blocks'] ?? 0) + Number(n['Shared Read Blocks'] ?? 0);

/** The figures of the part of the plan that finds the page, and a one-line shape of its scans. */
export function figures(scenario: string, explained: { Plan: PlanNode; 'Execution Time': number }): PlanFigures {
  const all = nodes(explained.Plan);
  // What finds the page: the `page` CTE (the `walk` and `scope` CTEs run inside it, and their own nodes repeat
  // those figures) and the count of the total; the rest builds the task objects of the page's rows.
  const count = (n: PlanNode) =>
    String(n['Subplan Name']).startsWith('InitPlan') && n['Node Type'] === 'Aggregate' && JSON.stringify(n.Output ?? []).includes('count(');
  const page = all.find((n) => n['Subplan Name'] === 'CTE page');
  const finding = page ? [page, ...all.filter(count).filter((n) => !nodes(page).includes(n))] : [explained.Plan];
  // Scans: each once, wherever its CTE is defined.
  const inPage = [...new Set([...finding, ...all.filter((n) => /^CTE (walk\d*|branch\d+|scope)$/.test(String(n['Subplan Name'])))].flatMap(nodes))];
  const scans = inPage.filter((n) => typeof n['Relation Name'] === 'string' && SCANNED.test(n['Relation Name'] as string) && Number(n['Actual Loops']) > 0);
  const num = (n: PlanNode, key: string) => Number(n[key] ?? 0) * Number(n['Actual Loops'] ?? 1);
  return {
    scenario,
    ms: explained['Execution Time'],
    pageMs: finding.reduce((s, n) => s + num(n, 'Actual Total Time') / Number(n['Actual Loops'] ?? 1), 0),
    rowsRead: scans.reduce((s, n) => s + num(n, 'Actual Rows'), 0),
    rowsFiltered: scans.reduce((s, n) => s + num(n, 'Rows Removed by Filter') + num(n, 'Rows Removed by Index Recheck'), 0),
    heapFetches: scans.reduce((s, n) => s + Number(n['Heap Fetches'] ?? 0), 0),
    pageBuffers: finding.reduce((s, n) => s + buffers(n), 0),
    sharedBuffers: buffers(explained.Plan),
    shape: scans
      .map(
        (n) =>
          `${n['Node Type']} ${n['Index Name'] ?? n['Relation Name']} (${Math.round(num(n, 'Actual Rows'))}${Number(n['Actual Loops'] ?? 1) > 1 ? ` in ${n['Actual Loops']} loops` : ''})`,
      )
      .join('; '),
  };
}

/** A parameter as an SQL literal for EXECUTE (its cast in the statement gives the type). */
function literal(db: Client, value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (Array.isArray(value))
    return db.escapeLiteral(`{${value.map((v) => (typeof v === 'number' ? String(v) : `"${String(v).replace(/["\\]/g, '\\$&')}"`)).join(',')}}`);
  return db.escapeLiteral(String(value));
}

/** EXPLAIN (ANALYZE, BUFFERS) of each scenario's statement, custom plans (or generic ones). */
export async function explainScenarios(
  db: Client,
  options: { generic?: boolean; only?: string[]; slug?: string; text?: boolean; scenarios?: PlanScenario[] } = {},
): Promise<PlanFigures[]> {
  const ids = await worldIds(db, options.slug ?? 'bench-corp');
  const member: Membership = { role: 'member', restricted: false, folderIds: [], listIds: [] };
  const restricted: Membership = { role: 'member', restricted: true, ...ids.restrictedGrants };
  const out: PlanFigures[] = [];
  if (options.generic) await db.query('SET plan_cache_mode = force_generic_plan');
  for (const scenario of (options.scenarios ?? PLAN_SCENARIOS).filter((s) => !options.only || options.only.includes(s.name))) {
    const userId = scenario.restricted ? ids.restrictedId : ids.memberId;
    const context = { workspaceId: ids.workspaceId, userId };
    const scope = { workspaceId: ids.workspaceId, membership: scenario.restricted ? restricted : member };
    let text = scenario.query.replace(/\{(\w+)\}/g, (_, k: string) => ids.values[k] ?? `{${k}}`);
    let query = parseTaskQuery(queryPairs(`?${text.replace('&cursor={deep}', '')}`), context);
    if (text.includes('{deep}')) {
      // The position in the middle of the workspace's top-level tasks, in the default order.
      const [{ key }] = (
        await db.query(
          `SELECT json_build_array(to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), id) AS key FROM tasks
            WHERE workspace_id = $1 AND parent_id IS NULL ORDER BY created_at DESC, id DESC
           OFFSET (SELECT count(*) / 2 FROM tasks WHERE workspace_id = $1 AND parent_id IS NULL) LIMIT 1`,
          [ids.workspaceId],
        )
      ).rows;
      query = { ...query, after: key };
      text = text.replace('{deep}', '<middle>');
    }
    // The statement the server sends: with the access check for an unrestricted member (issue 37), the page with the grants found for a restricted one.
    const { sql, params } = scenario.restricted ? taskListSql(scope, userId, query) : checkedTaskListSql(ids.workspaceId, userId, query);
    let explained: any; // eslint-disable-line @typescript-eslint/no-explicit-any
    if (options.generic) {
      await db.query(`PREPARE plans_stmt AS ${sql}`);
      try {
        const { rows } = await db.query(
          `EXPLAIN (ANALYZE, BUFFERS, VERBOSE, FORMAT ${options.text ? 'TEXT' : 'JSON'}) EXECUTE plans_stmt(${params.map((v) => literal(db, v)).join(', ')})`,
        );
        explained = options.text ? rows : rows[0]['QUERY PLAN'][0];
      } finally {
        await db.query('DEALLOCATE plans_stmt');
      }
    } else {
      const { rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS, VERBOSE, FORMAT ${options.text ? 'TEXT' : 'JSON'}) ${sql}`, params);
      explained = options.text ? rows : rows[0]['QUERY PLAN'][0];
    }
    if (options.text) {
      process.stderr.write(`\n=== ${scenario.name} (${text})\n${(explained as Array<{ 'QUERY PLAN': string }>).map((r) => r['QUERY PLAN']).join('\n')}\n`);
      continue;
    }
    out.push(figures(scenario.name, explained));
    process.stderr.write(`${scenario.name} (${text}): ${out[out.length - 1].ms.toFixed(1)} ms\n`);
  }
  return out;
}

/** The figures as a markdown table, with each scenario's ms relative to the unfiltered cursor page. */
export function planTable(rows: PlanFigures[]): string {
  const base = rows.find((r) => r.scenario === BASE_SCENARIO)?.ms;
  return [
    '| scenario | statement ms | × cursor page | finding the page: ms | rows read | rows filtered out | heap fetches | buffers | plan of the page (scans) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${r.ms.toFixed(1)} | ${base ? (r.ms / base).toFixed(1) : 'n/a'} | ${r.pageMs.toFixed(1)} | ${Math.round(r.rowsRead)} | ${Math.round(r.rowsFiltered)} | ${r.heapFetches} | ${r.pageBuffers} | ${r.shape} |`,
    ),
  ].join('\n');
}

/**
 * `npm run bench -- --plans [--scale N] [--db-prefix bench] [--generic] [--priority-sorts] [--only 'name|name'] [--json file] [--text]`:
 * the table above for the service's bench database on the server of BENCH_PG_URL (`<prefix>_svc`,
 * or its ×N copy `<prefix>_svc_xN`, as `npm run bench -- --reference [--scale N]` builds them).
 */
export async function plans(argv: string[]): Promise<void> {
  const value = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
  const scale = Number(value('--scale') ?? 1);
  const prefix = value('--db-prefix') ?? 'bench';
  const url = new URL(process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/${prefix}_svc${scale > 1 ? `_x${scale}` : ''}`;
  const only = value('--only')?.split('|'); // names hold commas
  const generic = argv.includes('--generic');
  const scenarios = argv.includes('--priority-sorts') ? PRIORITY_SORT_SCENARIOS : PLAN_SCENARIOS;
  const db = new Client({ connectionString: url.toString() });
  await db.connect().catch((error: Error) => {
    throw new Error(`${url.pathname.slice(1)}: ${error.message} (built by npm run bench -- --reference${scale > 1 ? ` --scale ${scale}` : ''})`);
  });
  try {
    // A first pass warms the cache (the figures are of a warm server), the second is measured.
    if (argv.includes('--text')) {
      // The plans as text on stderr, for reading one scenario.
      await explainScenarios(db, { only, generic, text: true, scenarios });
      return;
    }
    await explainScenarios(db, { only, generic, scenarios });
    const rows = await explainScenarios(db, { only, generic, scenarios });
    process.stdout.write(`\n${planTable(rows)}\n\n(${url.pathname.slice(1)}, ${generic ? 'generic plans' : 'plans for the values'})\n`);
    const json = value('--json');
    if (json) writeFileSync(json, JSON.stringify({ database: url.pathname.slice(1), generic, at: new Date().toISOString(), results: rows }, null, 2) + '\n');
  } finally {
    await db.end();
  }
}
