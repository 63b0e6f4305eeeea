import 'reflect-metadata';

import autocannon from 'autocannon';
import { execFileSync } from 'child_process';
import { existsSync, mkdirSync, writeFileSync } from 'fs';
import { join, resolve } from 'path';
import { Client } from 'pg';

import { migrateLocked } from '../src/cli/database';
import { openDatabase } from '../src/common/database/data-source';
import { EmbeddedDatabase, startEmbeddedPostgres } from '../src/common/database/embedded';
import { readCursorSecret } from '../src/tasks/cursor-secret';
import { sealCursor, useCursorSecret } from '../src/tasks/task-cursor';
import { parseTaskQuery } from '../src/tasks/task-query';
import { deliveries } from './deliveries';
import { files } from './files';
import { keyedFlood } from './keyed-flood';
import { plans } from './plans';
import { fanout, pollers } from './pollers';
import { childrenOf, CLOCK_TICKS_PER_S, hasTaskset, processTable } from './proc';
import { reference } from './reference';
import { SERVER, startServer, stopServer } from './server';
import { BENCH_KEY, BenchWorld, ensureWorld } from './world';

/*
 * `npm run bench` (issue 9): what users feel at realistic size.
 *
 * - Database: DATABASE_URL when set, else an embedded PostgreSQL kept in
 *   BENCH_DATA_DIR (default ./.bench-data) and started with pg_stat_statements.
 *   The world (50,000 top-level tasks with subtasks, assignees, labels,
 *   custom-field values, 100,000 comments) is built once by the fixture loader and reused.
 * - Server: `node dist/main.js` (or BENCH_SERVER, to measure another build) in its
 *   own process, pinned to CPU 0 when running one process (taskset), with
 *   WEB_CONCURRENCY = each value of BENCH_PROCESSES (default "1,2").
 * - Load: autocannon from this process (pinned to CPU 1), BENCH_CONNECTIONS (32)
 *   connections, BENCH_DURATION seconds (10) per scenario after BENCH_WARMUP (3).
 * - Figures per scenario: req/s, p50 and p99 latency (ms), Node CPU ms per
 *   request (user + system time of the server processes, from /proc), and from
 *   pg_stat_statements when it is loaded: PostgreSQL ms per request (planning +
 *   execution), statements (round trips) and plans per request; otherwise n/a.
 * - Output: a progress line per scenario on stderr, a table on stdout, and
 *   bench/results/<time>-<label>.json (BENCH_LABEL, default "current").
 */

const DURATION = positive(process.env.BENCH_DURATION, 10);
const WARMUP = positive(process.env.BENCH_WARMUP, 3);
const CONNECTIONS = positive(process.env.BENCH_CONNECTIONS, 32);
const PROCESSES = (process.env.BENCH_PROCESSES ?? '1,2').split(',').map((n) => positive(n, 1));
const ONLY = process.env.BENCH_SCENARIOS?.split(',').map((s) => s.trim());
const LABEL = process.env.BENCH_LABEL ?? 'current';
const RESULTS_DIR = join(__dirname, 'results');

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

const log = (line: string) => process.stderr.write(line + '\n');

/** One load scenario: requests made by `request(world, i)` (i counts up); any answer but 2xx is an error. */
interface Scenario {
  name: string;
  request: (world: BenchWorld, i: number) => { method: 'GET' | 'POST' | 'PATCH'; path: string; body?: string };
}

const SCENARIOS: Scenario[] = [
  { name: 'get task', request: (w) => ({ method: 'GET', path: `/api/v1/tasks/${w.hotTaskId}` }) },
  { name: 'list tasks limit=50', request: (w) => ({ method: 'GET', path: `/api/v1/workspaces/${w.workspaceId}/tasks?limit=50` }) },
  {
    name: 'list tasks list_id limit=100',
    request: (w) => ({ method: 'GET', path: `/api/v1/workspaces/${w.workspaceId}/tasks?list_id=${w.listId}&limit=100` }),
  },
  {
    // Issue 11: "my open tasks due soon" (a member's tasks, two status categories, a 10-week due range).
    name: 'list tasks filtered limit=50',
    request: (w) => ({
      method: 'GET',
      path: `/api/v1/workspaces/${w.workspaceId}/tasks?assignee_id=${w.memberIds[0]}&status_category=pending,in_progress&due_after=2025-08-01&due_before=2025-10-10&limit=50`,
    }),
  },
  {
    // Issue 11: a keyset page 45,000 tasks deep (the cursor is signed as the server signs it: same secret).
    name: 'list tasks deep cursor limit=50',
    request: (w) => ({ method: 'GET', path: `/api/v1/workspaces/${w.workspaceId}/tasks?cursor=${deepCursor(w)}&limit=50` }),
  },
  {
    // Issue 19: the costliest valid search, 10 one-character terms (each matches nearly every task): within 5x of 'list tasks limit=50'.
    name: 'list tasks worst q limit=50',
    request: (w) => ({ method: 'GET', path: `/api/v1/workspaces/${w.workspaceId}/tasks?q=a+e+i+o+u+t+s+r+n+l&limit=50` }),
  },
  // Issue 37: a keyset first page per kind of filter and the title sort (their plans: `npm run bench -- --plans`).
  ...[
    'status_category=in_progress',
    'assignee_id=me',
    'assignee_id=me,none',
    'priority=urgent',
    'due_after=2025-06-01',
    'updated_after=2025-06-01',
    'q=task',
    'include_subtasks=true',
    'sort=title',
    'sort=-due_date',
  ].map((filter): Scenario => ({
    name: `list tasks ${filter.replace(/,/g, '+')} cursor limit=50`, // BENCH_SCENARIOS splits on commas
    request: (w) => ({ method: 'GET', path: `/api/v1/workspaces/${w.workspaceId}/tasks?${filter}&include_total=false&limit=50` }),
  })),
  { name: 'comments', request: (w) => ({ method: 'GET', path: `/api/v1/tasks/${w.hotTaskId}/comments` }) },
  { name: 'list folders', request: (w) => ({ method: 'GET', path: `/api/v1/workspaces/${w.workspaceId}/folders` }) },
  {
    name: 'update task',
    request: (w, i) => ({
      method: 'PATCH',
      path: `/api/v1/tasks/${w.updateTaskIds[i % w.updateTaskIds.length]}`,
      body: JSON.stringify({ title: `Updated ${i}`, priority: 'high', assignee_ids: pick(w.memberIds, i, 3) }),
    }),
  },
  {
    name: 'create task',
    request: (w, i) => ({
      method: 'POST',
      path: '/api/v1/tasks',
      body: JSON.stringify({
        list_id: w.inboxListId,
        title: `Created ${i}`,
        description: '<p>from the benchmark</p>',
        priority: 'medium',
        assignee_ids: pick(w.memberIds, i, 3),
        // The world's first four fields: text, number, text, money (world.ts FIELDS); typed values must fit them.
        custom_fields: w.fieldIds.slice(0, 4).map((id, k) => ({ id, value: k % 2 === 1 ? String(i % 100) : `v${i}-${k}` })),
      }),
    }),
  },
];

const deepCursors = new Map<BenchWorld, string>();

/** The cursor of the page after `world.deepKey` for the bench key's user, default filters and sort (D34). */
function deepCursor(world: BenchWorld): string {
  let cursor = deepCursors.get(world);
  if (!cursor) {
    cursor = sealCursor(parseTaskQuery([], { workspaceId: world.workspaceId, userId: world.ownerId }).binding, world.deepKey);
    deepCursors.set(world, cursor);
  }
  return cursor;
}

function pick(ids: number[], i: number, n: number): number[] {
  return Array.from({ length: n }, (_, k) => ids[(i + k * 5) % ids.length]);
}

/** Figures of one scenario. */
interface Figures {
  scenario: string;
  processes: number;
  requests: number;
  errors: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  nodeCpuMsPerReq: number;
  pgMsPerReq: number | null;
  statementsPerReq: number | null;
  plansPerReq: number | null;
}

/** user + system CPU ms of process `pid` and its descendants (Linux /proc). */
function treeCpuMs(pid: number): number {
  const table = processTable();
  const ticks = (p: number): number => (table.get(p)?.cpuTicks ?? 0) + childrenOf(p, table).reduce((sum, c) => sum + ticks(c), 0);
  return (ticks(pid) * 1000) / CLOCK_TICKS_PER_S;
}

/** Totals of pg_stat_statements for the database, or null when it is not loaded. */
async function pgTotals(db: Client): Promise<{ ms: number; calls: number; plans: number } | null> {
  try {
    const { rows } = await db.query(
      `SELECT COALESCE(sum(total_exec_time + total_plan_time), 0)::float8 AS ms, COALESCE(sum(calls), 0)::float8 AS calls,
              COALESCE(sum(plans), 0)::float8 AS plans
         FROM pg_stat_statements s
        WHERE s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND s.userid = (SELECT oid FROM pg_roles WHERE rolname = current_user)
          AND s.query NOT LIKE '%pg_stat_statements%'`,
    );
    return rows[0];
  } catch (error) {
    if (!pgTotalsFailed) log(`PostgreSQL figures n/a: ${(error as Error).message}`);
    pgTotalsFailed = true;
    return null;
  }
}
let pgTotalsFailed = false;

/** Runs autocannon for `seconds` against one scenario. */
function load(base: string, world: BenchWorld, scenario: Scenario, seconds: number): Promise<autocannon.Result> {
  let i = 0;
  const headers = { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' };
  return autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        setupRequest: (request) => {
          const r = scenario.request(world, i++);
          return { ...request, method: r.method, path: r.path, body: r.body, headers };
        },
      },
    ],
  });
}

async function measure(base: string, pid: number, stats: Client, world: BenchWorld, scenario: Scenario, processes: number): Promise<Figures> {
  await load(base, world, scenario, WARMUP);
  const cpu0 = treeCpuMs(pid);
  const pg0 = await pgTotals(stats);
  const result = await load(base, world, scenario, DURATION);
  const cpu1 = treeCpuMs(pid);
  const pg1 = await pgTotals(stats);
  const requests = result.requests.total;
  const per = (value: number) => (requests ? value / requests : 0);
  return {
    scenario: scenario.name,
    processes,
    requests,
    errors: result.errors + result.timeouts + result.non2xx,
    reqPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    nodeCpuMsPerReq: per(cpu1 - cpu0),
    pgMsPerReq: pg0 && pg1 ? per(pg1.ms - pg0.ms) : null,
    statementsPerReq: pg0 && pg1 ? per(pg1.calls - pg0.calls) : null,
    plansPerReq: pg0 && pg1 ? per(pg1.plans - pg0.plans) : null,
  };
}

const fixed = (n: number | null, digits: number) => (n === null ? 'n/a' : n.toFixed(digits));

function table(rows: Figures[]): string {
  const lines = [
    ['scenario', 'procs', 'req/s', 'p50 ms', 'p99 ms', 'node cpu ms/req', 'pg ms/req', 'stmts/req', 'plans/req', 'errors'],
    ...rows.map((r) => [
      r.scenario,
      String(r.processes),
      r.reqPerSec.toFixed(0),
      fixed(r.p50Ms, 1),
      fixed(r.p99Ms, 1),
      fixed(r.nodeCpuMsPerReq, 3),
      fixed(r.pgMsPerReq, 3),
      fixed(r.statementsPerReq, 2),
      fixed(r.plansPerReq, 2),
      String(r.errors),
    ]),
  ];
  const widths = lines[0].map((_, c) => Math.max(...lines.map((l) => l[c].length)));
  const line = (l: string[]) => l.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ');
  return [line(lines[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.slice(1).map(line)].join('\n');
}

async function main(): Promise<void> {
  if (hasTaskset) {
    try {
      execFileSync('taskset', ['-pc', '1', String(process.pid)], { stdio: 'ignore' });
    } catch {
      // a single-CPU machine: load and server share it
    }
  }
  let embedded: EmbeddedDatabase | undefined;
  let url = process.env.DATABASE_URL;
  if (!url) {
    const dataDir = resolve(process.env.BENCH_DATA_DIR ?? '.bench-data');
    log(`No DATABASE_URL: embedded PostgreSQL in ${dataDir} (kept for the next run)`);
    embedded = await startEmbeddedPostgres({
      dataDir,
      log,
      settings: ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track_planning=on', 'max_connections=200'],
    });
    url = embedded.url;
  }
  const stats = new Client({ connectionString: url });
  await stats.connect();
  try {
    const ds = await openDatabase(url, false);
    let world: BenchWorld;
    try {
      await migrateLocked(ds);
      // Cursors are signed as the server signs them: the same secret, read the same way.
      useCursorSecret(await readCursorSecret(ds));
      world = await ensureWorld(ds, log);
    } finally {
      await ds.destroy();
    }
    await stats.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements').catch(() => undefined);
    await pgTotals(stats);
    log(`World: ${world.tasks} tasks; server ${SERVER}; ${CONNECTIONS} connections, ${DURATION} s per scenario after ${WARMUP} s of warm-up`);

    const scenarios = SCENARIOS.filter((s) => !ONLY || ONLY.includes(s.name));
    const rows: Figures[] = [];
    for (const processes of PROCESSES) {
      const { child, base } = await startServer(url, processes);
      try {
        for (const scenario of scenarios) {
          const figures = await measure(base, child.pid!, stats, world, scenario, processes);
          rows.push(figures);
          log(
            `[${LABEL}] ${scenario.name} (${processes} proc): ${figures.reqPerSec.toFixed(0)} req/s, p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms, ` +
              `node ${fixed(figures.nodeCpuMsPerReq, 3)} ms/req, pg ${fixed(figures.pgMsPerReq, 3)} ms/req, ` +
              `${fixed(figures.statementsPerReq, 2)} stmts/req, ${fixed(figures.plansPerReq, 2)} plans/req, ${figures.errors} errors`,
          );
        }
      } finally {
        await stopServer(child);
        // New tasks go to the Inbox list; removed so every run sees the same world.
        await stats.query(`DELETE FROM tasks WHERE list_id = $1`, [world.inboxListId]);
      }
    }
    process.stdout.write(`\n${table(rows)}\n\n(${world.tasks} tasks, ${CONNECTIONS} connections, ${DURATION} s per scenario, label ${LABEL})\n`);
    mkdirSync(RESULTS_DIR, { recursive: true });
    const file = join(RESULTS_DIR, `${new Date().toISOString().replace(/[:.]/g, '-')}-${LABEL}.json`);
    const meta = {
      label: LABEL,
      server: SERVER,
      connections: CONNECTIONS,
      durationS: DURATION,
      warmupS: WARMUP,
      tasks: world.tasks,
      cpus: hasTaskset ? 'server on CPU 0 (1 process), load on CPU 1' : 'unpinned',
    };
    writeFileSync(file, JSON.stringify({ ...meta, at: new Date().toISOString(), results: rows }, null, 2) + '\n');
    log(`Results written to ${file}`);
    if (rows.some((r) => r.errors > 0)) process.exitCode = 1;
  } finally {
    await stats.end();
    if (embedded && existsSync(embedded.dataDir)) await embedded.stop();
  }
}

// `npm run bench -- --reference [options]`: the side-by-side mode (reference.ts); `-- --pollers`: feed pollers against writes, `-- --fanout`:
// create task with and without webhooks (pollers.ts); `--deliveries`: webhook deliveries per second and round trips per delivery
// (deliveries.ts); `--plans`: EXPLAIN figures per scenario (plans.ts); `--files [--only <ids>]`:
// attachment uploads and downloads beside a plain stream copy (files.ts); `--keyed-flood`: another key's reads while one key
// floods keyed 4xx POSTs (keyed-flood.ts).
const args = process.argv.slice(2);
const mode = args.includes('--reference')
  ? () => reference(args.filter((a) => a !== '--reference'))
  : args.includes('--pollers')
    ? pollers
    : args.includes('--fanout')
      ? fanout
      : args.includes('--deliveries')
        ? deliveries
        : args.includes('--plans')
          ? () => plans(args)
          : args.includes('--files')
            ? () => files(args)
            : args.includes('--keyed-flood')
              ? keyedFlood
              : main;
mode().catch((error) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
