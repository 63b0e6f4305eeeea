import autocannon from 'autocannon';
import { mkdirSync, writeFileSync } from 'fs';
import { join } from 'path';

import { migrateLocked } from '../src/cli/database';
import { SCOPES } from '../src/common/auth/scope';
import { openDatabase } from '../src/common/database/data-source';
import { loadFixture } from '../src/fixtures/fixture-loader';
import { childrenOf, CLOCK_TICKS_PER_S, processTable } from './proc';
import { startServer, stopServer } from './server';

/*
 * `npm run bench -- --keyed-flood` (issue 31 item 2): one API key floods keyed
 * POSTs that answer 4xx (create task on another tenant's list), while another
 * key's get task is measured.
 *
 * - Database: DATABASE_URL (required). Two users, each with a workspace, a list
 *   and a task (`bench-flood-v1`), built once and reused.
 * - Server: `node dist/main.js` (one process, CPU 0 when taskset exists),
 *   DB_POOL_SIZE as set (default 10), no rate limit (the default).
 * - Measured user: get task, one request at a time, BENCH_DURATION (5) s idle,
 *   then the same while the flood runs: BENCH_FLOOD (50) autocannon connections,
 *   each POST with an Idempotency-Key of its own.
 * - Output: the measured user's p50/p99 idle and during the flood, the flood's
 *   req/s and statuses, the pool's figures sampled from /metrics every 20 ms
 *   (connections in use, requests waiting: mean and max), and the server's CPU
 *   (busy share of one core, CPU ms per flood request); bench/results/<time>-keyed-flood.json.
 */

const FLOOD_SLUG = 'bench-flood-v1';
const FLOODER_KEY = 'svc_bench_flood_v1_flooder_0123456789abcdef01234567';
const READER_KEY = 'svc_bench_flood_v1_reader_0123456789abcdef012345678';

const int = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};
const DURATION = int(process.env.BENCH_DURATION, 5);
const FLOOD = int(process.env.BENCH_FLOOD, 50);
const log = (line: string) => process.stderr.write(line + '\n');

/** The flood world: built once by the fixture loader. */
async function ensureFloodWorld(url: string): Promise<{ theirListId: number; theirTaskId: number }> {
  const ds = await openDatabase(url, false);
  try {
    await migrateLocked(ds);
    const exists: unknown[] = await ds.query(`SELECT 1 FROM workspaces WHERE slug = $1`, [`${FLOOD_SLUG}-theirs`]);
    if (!exists.length) {
      await loadFixture(ds, {
        users: [
          { ref: 'flooder', email: 'flooder@bench-flood.test', name: 'Flooder' },
          { ref: 'reader', email: 'reader@bench-flood.test', name: 'Reader' },
        ],
        api_keys: [
          { user: 'flooder', key: FLOODER_KEY, scopes: [...SCOPES] },
          { user: 'reader', key: READER_KEY, scopes: [...SCOPES] },
        ],
        workspaces: [
          { ref: 'mine', name: 'Mine', slug: `${FLOOD_SLUG}-mine`, owner: 'flooder', lists: [{ ref: 'my_list', name: 'Mine' }] },
          {
            ref: 'theirs',
            name: 'Theirs',
            slug: `${FLOOD_SLUG}-theirs`,
            owner: 'reader',
            lists: [{ ref: 'their_list', name: 'Theirs' }],
            tasks: [{ ref: 'their_task', list: 'their_list', title: 'Theirs' }],
          },
        ],
      });
    }
    const [world] = await ds.query(
      `SELECT l.id AS "theirListId", (SELECT t.id FROM tasks t WHERE t.list_id = l.id LIMIT 1) AS "theirTaskId"
         FROM lists l JOIN workspaces w ON w.id = l.workspace_id WHERE w.slug = $1`,
      [`${FLOOD_SLUG}-theirs`],
    );
    return world;
  } finally {
    await ds.destroy();
  }
}

/** Percentile `q` (0-1) of `values` (ms). */
function percentile(values: number[], q: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** Get task by the reader, one at a time, for `seconds`: latencies (ms) and non-200 count. */
async function reads(base: string, taskId: number, seconds: number): Promise<{ ms: number[]; errors: number }> {
  const ms: number[] = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const started = performance.now();
    const res = await fetch(`${base}/api/v1/tasks/${taskId}`, { headers: { authorization: `Bearer ${READER_KEY}` } });
    await res.arrayBuffer();
    ms.push(performance.now() - started);
    if (res.status !== 200) errors++;
  }
  return { ms, errors };
}

/** CPU ms (user + system) used so far by the server process `pid` and its children. */
function serverCpuMs(pid: number): number {
  const table = processTable();
  const ticks = [pid, ...childrenOf(pid, table)].reduce((sum, p) => sum + (table.get(p)?.cpuTicks ?? 0), 0);
  return (ticks * 1000) / CLOCK_TICKS_PER_S;
}

/** Samples the pool gauges of /metrics every 20 ms until stopped: in use and waiting, mean and max. */
function samplePool(base: string): () => Promise<{ inUseMean: number; inUseMax: number; waitingMean: number; waitingMax: number; samples: number }> {
  let running = true;
  const inUse: number[] = [];
  const waiting: number[] = [];
  const gauge = (text: string, name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  const loop = (async () => {
    while (running) {
      const text = await (await fetch(`${base}/metrics`)).text();
      inUse.push(gauge(text, 'work_tracking_db_pool_connections_in_use'));
      waiting.push(gauge(text, 'work_tracking_db_pool_requests_waiting'));
      await new Promise((done) => setTimeout(done, 20));
    }
  })();
  const mean = (v: number[]) => Math.round((v.reduce((a, b) => a + b, 0) / Math.max(1, v.length)) * 10) / 10;
  return async () => {
    running = false;
    await loop;
    return { inUseMean: mean(inUse), inUseMax: Math.max(...inUse), waitingMean: mean(waiting), waitingMax: Math.max(...waiting), samples: inUse.length };
  };
}

/** The keyed-flood scenario (see the header). */
export async function keyedFlood(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('--keyed-flood needs DATABASE_URL');
  const world = await ensureFloodWorld(url);
  const { child, base } = await startServer(url, 1, {}, READER_KEY);
  try {
    await reads(base, world.theirTaskId, 1);
    const idleSample = samplePool(base);
    const idle = await reads(base, world.theirTaskId, DURATION);
    const idlePool = await idleSample();
    let n = 0;
    const statuses: Record<string, number> = {};
    const floodSample = samplePool(base);
    const flood = autocannon({
      url: base,
      connections: FLOOD,
      duration: DURATION + 1,
      requests: [
        {
          method: 'POST',
          path: '/api/v1/tasks',
          headers: { authorization: `Bearer ${FLOODER_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ list_id: world.theirListId, title: 'Not mine' }),
          setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'idempotency-key': `flood-${process.pid}-${Date.now()}-${n++}` } }),
          onResponse: (status: number) => void (statuses[status] = (statuses[status] ?? 0) + 1),
        },
      ],
    });
    await new Promise((done) => setTimeout(done, 500));
    const cpuBefore = serverCpuMs(child.pid!);
    const wallBefore = performance.now();
    const requestsBefore = n;
    const during = await reads(base, world.theirTaskId, DURATION);
    const cpuMs = serverCpuMs(child.pid!) - cpuBefore;
    const wallMs = performance.now() - wallBefore;
    const floodRequests = n - requestsBefore;
    const floodPool = await floodSample();
    const floodResult = await flood;
    const row = (r: { ms: number[]; errors: number }) => ({
      requests: r.ms.length,
      errors: r.errors,
      p50: +percentile(r.ms, 0.5).toFixed(1),
      p99: +percentile(r.ms, 0.99).toFixed(1),
    });
    const result = {
      pool_size: Number(process.env.DB_POOL_SIZE ?? 10),
      reader_idle: row(idle),
      reader_during_flood: row(during),
      flood: { connections: FLOOD, req_per_s: Math.round(floodResult.requests.average), p50: floodResult.latency.p50, p99: floodResult.latency.p99, statuses },
      server_cpu_during_flood: { busy_share: +(cpuMs / wallMs).toFixed(2), cpu_ms_per_flood_request: +(cpuMs / Math.max(1, floodRequests)).toFixed(2) },
      pool_idle: idlePool,
      pool_during_flood: floodPool,
    };
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    const dir = join(__dirname, 'results');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-keyed-flood-${process.env.BENCH_LABEL ?? 'current'}.json`);
    writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), ...result }, null, 2) + '\n');
    log(`Results written to ${file}`);
  } finally {
    await stopServer(child);
  }
}
