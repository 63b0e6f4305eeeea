import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { createServer } from 'http';
import type { AddressInfo } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';
import { Client } from 'pg';

import { migrateLocked } from '../src/cli/database';
import { SCOPES } from '../src/common/auth/scope';
import { openDatabase } from '../src/common/database/data-source';
import { EVENT_TYPES } from '../src/events/event-types';
import { loadFixture } from '../src/fixtures/fixture-loader';
import { CLOCK_TICKS_PER_S, processTable } from './proc';
import { startServer, stopServer } from './server';

/*
 * `npm run bench -- --deliveries` (issue 37 item 3, D38): webhook delivery
 * throughput of one server process to a loopback receiver answering 204.
 *
 * - Database: DATABASE_URL (required). A workspace `bench-deliveries-v1` with
 *   BACKLOG (2,000) events, built once and reused.
 * - For each case (1 webhook; 20 webhooks), the webhooks are subscribed to
 *   every type with their dispatch cursor behind those events, then the server
 *   (`node dist/main.js`, WEBHOOK_WORKER=true) starts and dispatches and
 *   delivers the backlog: BACKLOG attempts per webhook, at most
 *   BENCH_DELIVERIES_MAX (4,000) in all, or what arrives within 60 s.
 * - Figures: deliveries per second (first to last delivery received), and SQL
 *   round trips per delivery (every `query` call of the server process, counted
 *   by bench/count-queries.js, over the deliveries; the job queue's polls and
 *   the dispatcher included).
 *   Node CPU ms per delivery: CPU time of the server's processes (/proc,
 *   10 ms ticks) from the first delivery to the last, over the deliveries.
 * - Output: bench/results/<time>-deliveries.json.
 */

const SLUG = 'bench-deliveries-v1';
const OWNER_KEY = 'svc_bench_deliveries_v1_owner_0123456789abcdef0123456';
const BACKLOG = 2_000;
const int = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};
const MAX = int(process.env.BENCH_DELIVERIES_MAX, 4_000);
const WAIT_MS = 60_000;
const log = (line: string) => process.stderr.write(line + '\n');

/** The workspace and its BACKLOG events: built once, reused. */
async function ensureWorld(url: string): Promise<{ workspaceId: number; lastEvent: string }> {
  const ds = await openDatabase(url, false);
  try {
    await migrateLocked(ds);
    let rows: Array<{ id: number }> = await ds.query(`SELECT id FROM workspaces WHERE slug = $1`, [SLUG]);
    if (!rows.length) {
      await loadFixture(ds, {
        users: [{ ref: 'owner', email: 'owner@bench-deliveries.test', name: 'Owner' }],
        api_keys: [{ user: 'owner', key: OWNER_KEY, scopes: [...SCOPES] }],
        workspaces: [{ ref: 'ws', name: 'Deliveries', slug: SLUG, owner: 'owner', folders: [{ ref: 'f', name: 'F', lists: [{ ref: 'l', name: 'L' }] }] }],
      });
      rows = await ds.query(`SELECT id FROM workspaces WHERE slug = $1`, [SLUG]);
      await ds.query(
        `INSERT INTO events (id, workspace_id, type, occurred_at, actor_user_id, data)
         SELECT nextval('events_id_seq'), $1, 'task.created', now(), w.owner_id,
                jsonb_build_object('task_id', g, 'list_id', (SELECT id FROM lists WHERE workspace_id = $1 LIMIT 1), 'parent_id', NULL)
           FROM generate_series(1, $2) g, workspaces w WHERE w.id = $1`,
        [rows[0].id, BACKLOG],
      );
    }
    const [last] = await ds.query(`SELECT max(id)::text AS id FROM events WHERE workspace_id = $1`, [rows[0].id]);
    return { workspaceId: rows[0].id, lastEvent: last.id };
  } finally {
    await ds.destroy();
  }
}

/** CPU ticks of process `pid` and all its descendants (Linux /proc). */
function treeCpuTicks(pid: number): number {
  const table = processTable();
  const tree = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [child, stat] of table) {
      if (!tree.has(child) && tree.has(stat.ppid)) {
        tree.add(child);
        grew = true;
      }
    }
  }
  return [...tree].reduce((sum, p) => sum + (table.get(p)?.cpuTicks ?? 0), 0);
}

/** The deliveries benchmark (see the comment at the top of this file). */
export async function deliveries(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('--deliveries needs DATABASE_URL');
  const world = await ensureWorld(url);
  let received = 0;
  let first = 0;
  let last = 0;
  const receiver = createServer((request, response) =>
    request.resume().on('end', () => {
      last = performance.now();
      if (received++ === 0) first = last;
      response.writeHead(204).end();
    }),
  );
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const db = new Client({ connectionString: url });
  await db.connect();
  const rows: Array<Record<string, number>> = [];
  const countDir = join(tmpdir(), `bench-deliveries-${process.pid}`);
  try {
    for (const hooks of [1, 20]) {
      const perHook = Math.min(BACKLOG, Math.floor(MAX / hooks));
      await db.query(`DELETE FROM webhooks WHERE workspace_id = $1`, [world.workspaceId]);
      await db.query(`DELETE FROM graphile_worker._private_jobs`);
      await db.query(
        `INSERT INTO webhooks (workspace_id, url, events, secret, dispatched_through)
         SELECT $1, $2, $3, 'whsec_' || repeat('A', 43) || '=', $5::bigint - $6 FROM generate_series(1, $4)`,
        [world.workspaceId, hookUrl, EVENT_TYPES, hooks, world.lastEvent, perHook],
      );
      const expected = perHook * hooks;
      received = 0;
      rmSync(countDir, { recursive: true, force: true });
      mkdirSync(countDir, { recursive: true });
      const { child } = await startServer(
        url,
        1,
        {
          WEBHOOK_WORKER: 'true',
          WEBHOOK_ALLOW_PRIVATE: 'true',
          WEBHOOK_ALLOW_HTTP: 'true',
          NODE_OPTIONS: `--require ${join(__dirname, 'count-queries.js')}`,
          BENCH_QUERY_COUNT_FILE: join(countDir, 'queries'),
        },
        OWNER_KEY,
      );
      const deadline = Date.now() + WAIT_MS;
      let cpuFirst: number | undefined;
      let cpuLast = 0;
      try {
        while (received < expected && Date.now() < deadline) {
          if (cpuFirst === undefined && received > 0) cpuFirst = treeCpuTicks(child.pid!);
          await new Promise((done) => setTimeout(done, 10));
        }
        cpuLast = treeCpuTicks(child.pid!);
      } finally {
        await stopServer(child);
      }
      const queries = readdirSync(countDir).reduce((sum, file) => sum + Number(readFileSync(join(countDir, file), 'utf8')), 0);
      const seconds = Math.max(last - first, 1) / 1000;
      const row = {
        webhooks: hooks,
        expected,
        delivered: received,
        deliveriesPerSec: received / seconds,
        roundTripsPerDelivery: queries / Math.max(received, 1),
        nodeCpuMsPerDelivery: ((cpuLast - (cpuFirst ?? cpuLast)) * 1000) / CLOCK_TICKS_PER_S / Math.max(received, 1),
      };
      rows.push(row);
      log(
        `[deliveries] webhooks=${hooks}: ${received}/${expected} delivered, ${row.deliveriesPerSec.toFixed(1)}/s, ${row.roundTripsPerDelivery.toFixed(2)} SQL round trips per delivery, ${row.nodeCpuMsPerDelivery.toFixed(2)} Node CPU ms per delivery`,
      );
    }
  } finally {
    await db.query(`DELETE FROM webhooks WHERE workspace_id = $1`, [world.workspaceId]);
    await db.end();
    receiver.close();
    rmSync(countDir, { recursive: true, force: true });
  }
  process.stdout.write('\n' + rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const dir = join(__dirname, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-deliveries.json`),
    JSON.stringify({ at: new Date().toISOString(), backlog: BACKLOG, rows }, null, 2) + '\n',
  );
}
