import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomBytes } from 'crypto';
import { chmodSync, mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { performance } from 'perf_hooks';
import { buildApp } from '../app.setup';
import { SCOPES } from '../common/auth/scope';
import { openDatabase } from '../common/database/data-source';
import { EmbeddedDatabase, startEmbeddedPostgres } from '../common/database/embedded';
import { loadFixture } from '../fixtures/fixture-loader';
import type { FixtureTask, FixtureWorld } from '../fixtures/fixture.types';

/*
 * `npm run bench`: latency and throughput of the task routes (issue 4).
 * Against DATABASE_URL when set (adds one uniquely named workspace; nothing is
 * deleted), else a throw-away embedded PostgreSQL in a temporary directory.
 * Seeds ~1000 tasks with the fixture loader, boots the app (buildApp) on a
 * random local port and runs bounded loops with Node's fetch:
 * BENCH_REQUESTS (default 500) requests per scenario, BENCH_CONCURRENCY (10) at a time.
 */

const REQUESTS = positive(process.env.BENCH_REQUESTS, 500);
const CONCURRENCY = positive(process.env.BENCH_CONCURRENCY, 10);
const TOP_LEVEL = 700;
const SUBTASKS = 300;
const WARMUP = 20;

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

const log = (line: string) => process.stderr.write(line + '\n');

/** A workspace of ~1000 tasks with assignees, labels, custom-field values and subtasks; refs prefixed by a run tag. */
function benchWorld(tag: string, key: string): FixtureWorld {
  const members = Array.from({ length: 10 }, (_, i) => `m${i}`);
  const tasks: FixtureTask[] = [];
  for (let i = 0; i < TOP_LEVEL; i++) {
    tasks.push({
      ref: `t${i}`,
      list: `l${i % 4}`,
      title: `Task ${i}`,
      description: `<p>Benchmark task <strong>${i}</strong></p>`,
      priority: (['urgent', 'high', 'medium', 'low', 'none'] as const)[i % 5],
      created_at: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString(),
      assignees: [members[i % 10], members[(i + 3) % 10]],
      labels: [`lb${i % 4}`],
      custom_fields: [{ field: 'f_text', value: `note ${i}` }, { field: 'f_num', value: i }],
    });
  }
  for (let i = 0; i < SUBTASKS; i++) {
    tasks.push({ ref: `s${i}`, parent: `t${i}`, list: `l${i % 4}`, title: `Subtask ${i}`, assignees: [members[i % 10]] });
  }
  return {
    users: [
      { ref: 'owner', email: `owner-${tag}@bench.test`, name: 'Bench owner' },
      ...members.map((m) => ({ ref: m, email: `${m}-${tag}@bench.test`, name: `Member ${m}` })),
    ],
    api_keys: [{ user: 'owner', key, scopes: [...SCOPES] }],
    workspaces: [
      {
        ref: 'ws', name: 'Bench', slug: `bench-${tag}`, owner: 'owner',
        members: members.map((user) => ({ user, role: 'member' as const })),
        labels: Array.from({ length: 4 }, (_, i) => ({ ref: `lb${i}`, name: `Label ${i}` })),
        folders: [
          { ref: 'f0', name: 'Eng', lists: [{ ref: 'l0', name: 'Backlog' }, { ref: 'l1', name: 'Sprint' }] },
          { ref: 'f1', name: 'Ops', lists: [{ ref: 'l2', name: 'Inbox' }, { ref: 'l3', name: 'Done' }] },
        ],
        custom_fields: [
          { ref: 'f_text', name: 'Notes', type: 'text', position: 1 },
          { ref: 'f_num', name: 'Estimate', type: 'number', position: 2, is_scope_restricted: true, granted_folders: ['f0'] },
          { ref: 'f_stars', name: 'Stars', type: 'rating', position: 3, config: { iconName: 'star', color: 'orange' } },
        ],
        tasks,
      },
    ],
  };
}

interface Result {
  name: string;
  requests: number;
  errors: number;
  p50: number;
  p95: number;
  max: number;
  perSecond: number;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Sends `count` requests made by `request(i)`, `CONCURRENCY` at a time; latency per request, throughput over the whole loop. */
async function run(name: string, count: number, expected: number, request: (i: number) => Promise<Response>): Promise<Result> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const t0 = performance.now();
      const res = await request(i);
      await res.arrayBuffer();
      latencies.push(performance.now() - t0);
      if (res.status !== expected) errors++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count) }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { name, requests: count, errors, p50: percentile(latencies, 50), p95: percentile(latencies, 95), max: latencies[latencies.length - 1] ?? 0, perSecond: count / seconds };
}

function table(results: Result[]): string {
  const rows = [
    ['scenario', 'requests', 'errors', 'p50 ms', 'p95 ms', 'max ms', 'req/s'],
    ...results.map((r) => [r.name, String(r.requests), String(r.errors), r.p50.toFixed(1), r.p95.toFixed(1), r.max.toFixed(1), r.perSecond.toFixed(0)]),
  ];
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  const line = (row: string[]) => row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ');
  return [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

async function main(): Promise<void> {
  Logger.overrideLogger(['error', 'warn']);
  let embedded: EmbeddedDatabase | undefined;
  let tempDir: string | undefined;
  let app: NestFastifyApplication | undefined;
  try {
    let url = process.env.DATABASE_URL;
    if (!url) {
      tempDir = mkdtempSync(join(tmpdir(), 'wt-bench-'));
      // As root, PostgreSQL runs as the OS user `postgres`, which must reach the cluster inside.
      chmodSync(tempDir, 0o755);
      log(`No DATABASE_URL: starting a throw-away embedded PostgreSQL in ${tempDir}`);
      embedded = await startEmbeddedPostgres({ dataDir: tempDir, log });
      url = embedded.url;
    }
    const ds = await openDatabase(url, true);
    const tag = randomBytes(4).toString('hex');
    const key = `svc_bench_${tag}`;
    const seedStarted = performance.now();
    const ids = await loadFixture(ds, benchWorld(tag, key));
    log(`Seeded ${TOP_LEVEL + SUBTASKS} tasks in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
    await ds.destroy();

    process.env.DATABASE_URL = url;
    app = await buildApp();
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.getHttpServer().address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const get = (path: string) => fetch(base + path, { headers });
    const taskId = (i: number) => ids[`t${(i * 7919) % TOP_LEVEL}`];
    const pages = Math.ceil(TOP_LEVEL / 100);
    const createBody = (i: number) =>
      JSON.stringify({
        list_id: ids[`l${i % 4}`],
        title: `Created ${i}`,
        description: '<p>bench</p>',
        assignee_ids: [ids.m0, ids.m1],
        label_ids: [ids.lb0],
        custom_fields: [{ id: ids.f_text, value: 'x' }],
      });

    const scenarios: Array<[string, number, (i: number) => Promise<Response>]> = [
      ['GET /tasks/:id', 200, (i) => get(`/api/v1/tasks/${taskId(i)}`)],
      ['GET /workspaces/:id/tasks?limit=100', 200, (i) => get(`/api/v1/workspaces/${ids.ws}/tasks?limit=100&page=${1 + (i % pages)}`)],
      ['POST /tasks', 201, (i) => fetch(base + '/api/v1/tasks', { method: 'POST', headers, body: createBody(i) })],
    ];
    const results: Result[] = [];
    for (const [name, expected, request] of scenarios) {
      await run(`${name} (warm-up)`, WARMUP, expected, request);
      log(`Running ${name}: ${REQUESTS} requests, concurrency ${CONCURRENCY}`);
      results.push(await run(name, REQUESTS, expected, request));
    }
    process.stdout.write(`\n${table(results)}\n\n(${TOP_LEVEL + SUBTASKS} seeded tasks, concurrency ${CONCURRENCY}, pool ${process.env.DB_POOL_SIZE ?? 10})\n`);
    if (results.some((r) => r.errors > 0)) process.exitCode = 1;
  } finally {
    if (app) await app.close();
    if (embedded) await embedded.stop();
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
