import autocannon from 'autocannon';
import { mkdirSync, writeFileSync } from 'fs';
import { createServer } from 'http';
import type { AddressInfo } from 'net';
import { join } from 'path';
import { Client } from 'pg';

import { migrateLocked } from '../src/cli/database';
import { SCOPES } from '../src/common/auth/scope';
import { openDatabase } from '../src/common/database/data-source';
import { EVENT_TYPES } from '../src/events/event-types';
import { loadFixture } from '../src/fixtures/fixture-loader';
import { startServer, stopServer } from './server';

/*
 * `npm run bench -- --pollers` (issue 31, D37): restricted feed pollers against writes.
 *
 * - Database: DATABASE_URL (required). A workspace `bench-feed-v1` with a
 *   restricted member (granted one folder) and FEED_EVENTS (500,000) events in
 *   a list she may not see, built once and reused.
 * - Server: `node dist/main.js` (one process, CPU 0 when taskset exists).
 * - Writes: create task in that workspace (each records an event, so writers
 *   and the feed share the workspace's event lock), BENCH_CONNECTIONS (16)
 *   autocannon connections for BENCH_DURATION (10) s after BENCH_WARMUP (3) s,
 *   once without pollers and once with BENCH_POLLERS (8): each walks the whole
 *   history page by page (limit=100), and starts again from 0 when caught up,
 *   the costliest way to poll (before D37's page bound, one page scanned the
 *   whole history under a lock every write waits for).
 * - Output: write req/s, p50, p99 in both runs and the pollers' pages/s, p50,
 *   p99; bench/results/<time>-pollers.json.
 */

const FEED_SLUG = 'bench-feed-v1';
const OWNER_KEY = 'svc_bench_feed_v1_owner_0123456789abcdef0123456789';
const RESTRICTED_KEY = 'svc_bench_feed_v1_erin_0123456789abcdef0123456789ab';
const FEED_EVENTS = 500_000;

const int = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};
const DURATION = int(process.env.BENCH_DURATION, 10);
const WARMUP = int(process.env.BENCH_WARMUP, 3);
const CONNECTIONS = int(process.env.BENCH_CONNECTIONS, 16);
const POLLERS = int(process.env.BENCH_POLLERS, 8);
const WEBHOOKS = int(process.env.BENCH_WEBHOOKS, 20);
const log = (line: string) => process.stderr.write(line + '\n');

interface FeedWorld {
  workspaceId: number;
  hiddenListId: number;
}

/** The feed world: built once (fixture loader, then the events in one statement), reused afterwards. */
async function ensureFeedWorld(url: string): Promise<FeedWorld> {
  const ds = await openDatabase(url, false);
  try {
    await migrateLocked(ds);
    let rows: Array<{ id: number }> = await ds.query(`SELECT id FROM workspaces WHERE slug = $1`, [FEED_SLUG]);
    if (!rows.length) {
      log(`Building the feed world (${FEED_EVENTS} events); built once, then reused`);
      await loadFixture(ds, {
        users: [
          { ref: 'owner', email: 'owner@bench-feed.test', name: 'Owner' },
          { ref: 'erin', email: 'erin@bench-feed.test', name: 'Erin' },
        ],
        api_keys: [
          { user: 'owner', key: OWNER_KEY, scopes: [...SCOPES] },
          { user: 'erin', key: RESTRICTED_KEY, scopes: [...SCOPES] },
        ],
        workspaces: [
          {
            ref: 'ws',
            name: 'Feed',
            slug: FEED_SLUG,
            owner: 'owner',
            members: [{ user: 'erin', role: 'member', restricted: true, folders: ['open'] }],
            statuses: [
              { ref: 'todo', name: 'To Do', category: 'pending' },
              { ref: 'done', name: 'Done', category: 'completed' },
            ],
            folders: [
              { ref: 'open', name: 'Open', lists: [{ ref: 'seen', name: 'Seen' }] },
              { ref: 'closed', name: 'Closed', lists: [{ ref: 'hidden', name: 'Hidden' }] },
            ],
          },
        ],
      });
      rows = await ds.query(`SELECT id FROM workspaces WHERE slug = $1`, [FEED_SLUG]);
      await ds.query(
        `INSERT INTO events (id, workspace_id, type, occurred_at, actor_user_id, data)
         SELECT nextval('events_id_seq'), $1, 'task.created', now(), w.owner_id,
                jsonb_build_object('task_id', g, 'list_id', (SELECT id FROM lists WHERE workspace_id = $1 AND name = 'Hidden'), 'parent_id', NULL)
           FROM generate_series(1, $2) g, workspaces w WHERE w.id = $1`,
        [rows[0].id, FEED_EVENTS],
      );
      await ds.query('VACUUM ANALYZE events');
    }
    const [world] = await ds.query(`SELECT $1::int AS "workspaceId", (SELECT id FROM lists WHERE workspace_id = $1 AND name = 'Hidden') AS "hiddenListId"`, [
      rows[0].id,
    ]);
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

/** `POLLERS` loops walking the feed as the restricted member until `stop` is set; the page latencies (ms). */
function startPollers(base: string, workspaceId: number): { stop: () => Promise<number[]>; errors: () => number } {
  let running = true;
  let errors = 0;
  const latencies: number[] = [];
  const loops = Array.from({ length: POLLERS }, async () => {
    let after = '0';
    while (running) {
      const started = performance.now();
      const res = await fetch(`${base}/api/v1/workspaces/${workspaceId}/events?after=${after}&limit=100`, {
        headers: { authorization: `Bearer ${RESTRICTED_KEY}` },
      });
      const page = (await res.json()) as { next_after: number };
      latencies.push(performance.now() - started);
      // A page refused (503: past the request deadline, as a page scanning the whole history could be) is counted.
      if (res.status !== 200) {
        errors++;
        continue;
      }
      after = String(page.next_after) === after ? '0' : String(page.next_after);
    }
  });
  return {
    errors: () => errors,
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return latencies;
    },
  };
}

/** Create task in the feed workspace for `seconds`; with `updateIds`, update task on those tasks instead (title and priority). */
function writes(base: string, world: FeedWorld, seconds: number, updateIds?: number[]): Promise<autocannon.Result> {
  let i = 0;
  const headers = { authorization: `Bearer ${OWNER_KEY}`, 'content-type': 'application/json' };
  const request = updateIds
    ? () => ({
        method: 'PATCH' as const,
        path: `/api/v1/tasks/${updateIds[i % updateIds.length]}`,
        body: JSON.stringify({ title: `Updated ${i++}`, priority: i % 2 ? 'high' : 'low' }),
      })
    : () => ({ method: 'POST' as const, path: '/api/v1/tasks', body: JSON.stringify({ list_id: world.hiddenListId, title: `Created ${i++}` }) });
  return autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [{ setupRequest: (r) => ({ ...r, ...request(), headers }) }],
  });
}

/**
 * `npm run bench -- --fanout` (issue 31, D38; update task: issue 37): create task, then update task, in the feed
 * workspace with no webhook, then with WEBHOOKS (20) active webhooks
 * subscribed to every type (to a loopback receiver that answers 200 at once),
 * each run with the webhook worker on (dispatch and deliveries in the server
 * process) and off (the write alone). Writes record their event only, so the
 * write's latency should not grow with the webhooks.
 */
export async function fanout(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('--fanout needs DATABASE_URL');
  const world = await ensureFeedWorld(url);
  const receiver = createServer((request, response) => request.resume().on('end', () => response.end()));
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const db = new Client({ connectionString: url });
  await db.connect();
  const rows: Array<Record<string, number | string>> = [];
  try {
    for (const worker of ['false', 'true']) {
      for (const hooks of [0, WEBHOOKS]) {
        await db.query(`DELETE FROM webhooks WHERE workspace_id = $1`, [world.workspaceId]);
        await db.query(
          `INSERT INTO webhooks (workspace_id, url, events, secret, dispatched_through)
           SELECT $1, $2, $3, 'whsec_' || repeat('A', 43) || '=', (SELECT last_value FROM events_id_seq) FROM generate_series(1, $4)`,
          [world.workspaceId, hookUrl, EVENT_TYPES, hooks],
        );
        const { child, base } = await startServer(url, 1, { WEBHOOK_WORKER: worker, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_ALLOW_HTTP: 'true' }, OWNER_KEY);
        try {
          await writes(base, world, WARMUP);
          const created = await writes(base, world, DURATION);
          // Update task on tasks the creates just wrote (hundreds: few writes wait for each other's row lock).
          const updateIds = (await db.query(`SELECT id FROM tasks WHERE list_id = $1 ORDER BY id DESC LIMIT 500`, [world.hiddenListId])).rows.map(
            (r: { id: number }) => r.id,
          );
          await writes(base, world, WARMUP, updateIds);
          const updated = await writes(base, world, DURATION, updateIds);
          for (const [write, r] of [
            ['create task', created],
            ['update task', updated],
          ] as const) {
            rows.push({
              write,
              worker,
              webhooks: hooks,
              reqPerSec: r.requests.average,
              p50Ms: r.latency.p50,
              p99Ms: r.latency.p99,
              errors: r.errors + r.non2xx,
            });
            log(
              `[fanout] ${write} worker=${worker} webhooks=${hooks}: ${r.requests.average.toFixed(1)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms`,
            );
          }
        } finally {
          await stopServer(child);
        }
      }
    }
  } finally {
    await db.query(`DELETE FROM webhooks WHERE workspace_id = $1`, [world.workspaceId]);
    await db.query(`DELETE FROM tasks WHERE list_id = $1`, [world.hiddenListId]);
    await db.end();
    receiver.close();
  }
  process.stdout.write('\n' + rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const dir = join(__dirname, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-fanout.json`),
    JSON.stringify({ at: new Date().toISOString(), connections: CONNECTIONS, durationS: DURATION, rows }, null, 2) + '\n',
  );
}

/** The pollers benchmark (see the comment at the top of this file). */
export async function pollers(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('--pollers needs DATABASE_URL');
  const world = await ensureFeedWorld(url);
  const { child, base } = await startServer(url, 1, { WEBHOOK_WORKER: 'false' }, OWNER_KEY);
  const figures: Record<string, number> = {};
  try {
    await writes(base, world, WARMUP);
    const alone = await writes(base, world, DURATION);
    const polling = startPollers(base, world.workspaceId);
    await new Promise((done) => setTimeout(done, 1000));
    const together = await writes(base, world, DURATION);
    const pages = await polling.stop();
    Object.assign(figures, {
      writesAlonePerSec: alone.requests.average,
      writesAloneP50Ms: alone.latency.p50,
      writesAloneP99Ms: alone.latency.p99,
      writesWithPollersPerSec: together.requests.average,
      writesWithPollersP50Ms: together.latency.p50,
      writesWithPollersP99Ms: together.latency.p99,
      pollerPagesPerSec: pages.length / (DURATION + 1),
      pollerPageP50Ms: percentile(pages, 0.5),
      pollerPageP99Ms: percentile(pages, 0.99),
      errors: alone.errors + alone.non2xx + together.errors + together.non2xx,
      pollerErrors: polling.errors(),
    });
  } finally {
    await stopServer(child);
    const db = new Client({ connectionString: url });
    await db.connect();
    // The tasks written go; the events stay (the history grows a little each run).
    await db.query(`DELETE FROM tasks WHERE list_id = $1`, [world.hiddenListId]).finally(() => db.end());
  }
  const f = (n: number) => n.toFixed(1);
  process.stdout.write(
    `\ncreate task, ${CONNECTIONS} connections, ${DURATION} s, ${FEED_EVENTS} events in the workspace\n` +
      `  without pollers: ${f(figures.writesAlonePerSec)} req/s, p50 ${f(figures.writesAloneP50Ms)} ms, p99 ${f(figures.writesAloneP99Ms)} ms\n` +
      `  with ${POLLERS} restricted pollers: ${f(figures.writesWithPollersPerSec)} req/s, p50 ${f(figures.writesWithPollersP50Ms)} ms, p99 ${f(figures.writesWithPollersP99Ms)} ms` +
      ` (p99 ratio ${(figures.writesWithPollersP99Ms / figures.writesAloneP99Ms).toFixed(2)})\n` +
      `  pollers: ${f(figures.pollerPagesPerSec)} pages/s, page p50 ${f(figures.pollerPageP50Ms)} ms, p99 ${f(figures.pollerPageP99Ms)} ms, ${figures.pollerErrors} pages refused; ${figures.errors} write errors\n`,
  );
  const dir = join(__dirname, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-pollers.json`),
    JSON.stringify(
      { at: new Date().toISOString(), connections: CONNECTIONS, durationS: DURATION, pollers: POLLERS, events: FEED_EVENTS, ...figures },
      null,
      2,
    ) + '\n',
  );
  if (figures.errors > 0) process.exitCode = 1;
}
