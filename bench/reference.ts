import { ChildProcess, spawn } from 'child_process';
import { createHash } from 'crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'fs';
import { createServer } from 'net';
import { cpus } from 'os';
import { join, resolve } from 'path';
import { Client } from 'pg';

import { freePort } from '../src/common/database/embedded';
import { VARIABLES } from '../src/config/env';
import { CLOCK_TICKS_PER_S, hasTaskset, processTable } from './proc';
import { scaleServiceWorld } from './scale';

/*
 * `npm run bench -- --reference` (issue 16): the service side by side with the
 * reference server of ../shared/bench-reference (a plain Fastify + pg server
 * answering the task routes; read its README.md). Its scripts are called where
 * they are; nothing of it is copied into this repository.
 *
 * 1. World: its gen-world.mjs writes bench/out/world.json (+ world.meta.json) once.
 * 2. Databases on the server of BENCH_PG_URL: bench_ref (its baseline/load.mjs) and
 *    bench_svc (this service's `cli migrate` + `cli seed`), then VACUUM ANALYZE (again at each reuse); a
 *    table bench_world in each holds the world's SHA-256, so later runs reuse them.
 *    `--db-prefix` names them otherwise (`<prefix>_ref`, `<prefix>_svc`).
 *    `--scale N` (issue 37): copies of both (`..._xN`), their big workspace scaled ×N by SQL
 *    (the service's by bench/scale.ts, the reference's by its scale/scale-baseline.sql),
 *    built once and reused while the world and N are the same; the ids files serve both sizes.
 * 3. Servers: the reference (with BASELINE_FEATURES=1, the same operational work as the
 *    service: request id, security headers, log line, metrics, deadline; `--bare` without)
 *    and `node dist/main.js` with production settings (JSON
 *    logs to bench/out/service.log), both pinned to CPU 1; its run-ab.sh loads them
 *    in turn (load generator on CPU 0), --rounds rounds of --duration seconds,
 *    raw results in bench/out/ab-raw.json.
 * 4. Costs: per scenario one more short run (--measure-duration seconds) between
 *    two readings of PostgreSQL time (pg_stat_statements when the server loads it,
 *    else pg_stat_database.active_time), the CPU time of each database's client
 *    backends (/proc, when PostgreSQL runs on this machine: active_time also counts
 *    a backend waiting for a CPU) and SQL round trips (the reference's
 *    /__baseline/stats; for the service a second instance whose database
 *    connections go through the reference's pg-roundtrips.mjs proxy), divided by
 *    the requests the servers counted (/__baseline/stats, /metrics).
 * 5. A markdown table on stdout and bench/results/<time>-reference.json.
 */

const ROOT = resolve(__dirname, '..');
const OUT = join(ROOT, 'bench', 'out');
const WORLD = join(OUT, 'world.json');
const WORLD_META = join(OUT, 'world.meta.json');
/** The ids a loaded database gave the world's refs (its ×N copies keep them). */
const idsFile = (baseDb: string) => join(OUT, `ids-${baseDb}.json`);
const RAW = join(OUT, 'ab-raw.json');
const RESULTS_DIR = join(__dirname, 'results');
const WORLD_TASKS = 50_000;
/** PostgreSQL 15+ publishes a busy backend's pg_stat_database counters at most once a second, an idle one's within 10 s. */
const STATS_FLUSH_MS = 11_000;
/** run-ab.sh options passed through as given. */
const PASS_THROUGH = ['--scenarios', '--warmup', '--connections', '--role', '--loadgen'];
/**
 * Seconds of load per scenario and server before the first round (`--warmup`; run-ab.sh's own default is 3).
 * Both servers are still compiling their hot code for the first 6-10 s of a scenario (req/s per 2 s window
 * from a fresh start, create task: reference 448, 531, 623, 775; service 370, 506, 564, 748): rounds should
 * measure the servers as they serve for hours, not their start.
 */
const WARMUP_S = 10;

/** Servers on CPU 1, the load generator (run-ab.sh) on CPU 0. */
const PIN = hasTaskset && cpus().length > 1;

/**
 * Database connections of each server: the service's DB_POOL_SIZE (its default unless set), given
 * to the reference as PG_POOL_MAX (its own default is 8), so that both run as many statements at
 * once: on 2 cores, two more busy backends cost each statement CPU (context switches), on both sides alike.
 */
const POOL_SIZE = process.env.DB_POOL_SIZE ?? VARIABLES.DB_POOL_SIZE.default;

const log = (line: string) => process.stderr.write(line + '\n');
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Command-line options of the side-by-side mode (defaults in parseOptions). */
interface Options {
  rounds: number;
  duration: number;
  measureDuration: number;
  servicePort: number;
  referencePort: number;
  referenceDir: string;
  pgUrl: string;
  passThrough: string[];
  /** Whether the reference does the service's operational work too (BASELINE_FEATURES=1); `--bare`: no. */
  features: boolean;
  /** `--scale`: the big workspace ×N (1: the 50k world as loaded). */
  scale: number;
  serviceDb: string;
  referenceDb: string;
}

/** Options without a value. */
const FLAGS = ['--bare'];

function parseOptions(argv: string[]): Options {
  const given = new Map<string, string>();
  const flags = new Set(argv.filter((a) => FLAGS.includes(a)));
  argv = argv.filter((a) => !FLAGS.includes(a));
  for (let i = 0; i < argv.length; i += 2) {
    const [name, value] = [argv[i], argv[i + 1]];
    if (!name.startsWith('--') || value === undefined) throw new Error(`bad option ${name} (options take a value: --name value)`);
    given.set(name, value);
  }
  const known = [
    '--rounds',
    '--duration',
    '--measure-duration',
    '--service-port',
    '--reference-port',
    '--reference-dir',
    '--scale',
    '--db-prefix',
    ...PASS_THROUGH,
  ];
  const unknown = [...given.keys()].filter((name) => !known.includes(name));
  if (unknown.length) throw new Error(`unknown option ${unknown.join(', ')}; known: --reference ${[...known, ...FLAGS].join(' ')}`);
  const prefix = given.get('--db-prefix') ?? 'bench';
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(prefix)) throw new Error(`--db-prefix must be a lower-case SQL name, not ${prefix}`);
  const count = (name: string, fallback: number): number => {
    const value = given.get(name);
    if (value === undefined) return fallback;
    if (!/^[1-9]\d*$/.test(value)) throw new Error(`${name} must be a positive integer, not ${value}`);
    return Number(value);
  };
  const duration = count('--duration', 10);
  const scale = count('--scale', 1);
  const suffix = scale > 1 ? `_x${scale}` : '';
  return {
    features: !flags.has('--bare'),
    scale,
    serviceDb: `${prefix}_svc${suffix}`,
    referenceDb: `${prefix}_ref${suffix}`,
    rounds: count('--rounds', 5),
    duration,
    measureDuration: count('--measure-duration', Math.min(3, duration)),
    servicePort: count('--service-port', 3300),
    referencePort: count('--reference-port', 3400),
    referenceDir: resolve(ROOT, given.get('--reference-dir') ?? join('..', 'shared', 'bench-reference')),
    pgUrl: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    passThrough: [
      ...PASS_THROUGH.flatMap((name) => (given.has(name) ? [name, given.get(name)!] : [])),
      ...(given.has('--warmup') ? [] : ['--warmup', String(WARMUP_S)]),
    ],
  };
}

/** Runs a command to its end, its stdout on our stderr (stdout carries only the table); throws unless it exits 0. */
function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: options.cwd ?? ROOT, env: options.env ?? process.env, stdio: ['ignore', 2, 'inherit'] });
    child.once('error', fail);
    child.once('exit', (code, signal) => (code === 0 ? done() : fail(new Error(`${command} ${args.join(' ')}: ${signal ?? `exit code ${code}`}`))));
  });
}

/** Child processes to stop at the end, on error and on Ctrl-C. */
const running = new Set<ChildProcess>();

/** Starts `node args` pinned to CPU 1 (taskset execs node: the pid is node's), stdout appended to `logFile`. */
function startNode(args: string[], env: NodeJS.ProcessEnv, logFile: string): ChildProcess {
  const stdio: ['ignore', number, 'inherit'] = ['ignore', openSync(logFile, 'a'), 'inherit'];
  const child = PIN
    ? spawn('taskset', ['-c', '1', process.execPath, ...args], { cwd: ROOT, env, stdio })
    : spawn(process.execPath, args, { cwd: ROOT, env, stdio });
  closeSync(stdio[1]);
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** Throws when something listens on `port` already (it would answer our health checks). */
function assertFree(port: number): Promise<void> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', () => fail(new Error(`port ${port} is in use (options --service-port, --reference-port)`)));
    server.listen(port, '127.0.0.1', () => server.close(() => done()));
  });
}

/** Resolves once GET `url` answers 200; throws when `child` exits first or after 60 s. */
async function waitFor(url: string, child: ChildProcess, name: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}); see bench/out/*.log`);
    const ok = await fetch(url).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`${name} did not answer ${url} within 60 s`);
}

/** SIGTERM, then SIGKILL after 15 s. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

const stopAll = () => Promise.all([...running].map(stop));

/** A running server under test. */
interface Server {
  child: ChildProcess;
  base: string;
}

/** The service (`node dist/main.js`) with production settings: default log level, JSON logs, metrics on, no rate limit. */
async function startService(databaseUrl: string, port: number, logName: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<Server> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_FORMAT: 'json',
    DB_POOL_SIZE: POOL_SIZE,
    ...extraEnv,
  };
  for (const name of ['LOG_LEVEL', 'METRICS_ENABLED', 'RATE_LIMIT_PER_MINUTE', 'WEB_CONCURRENCY']) delete env[name];
  await assertFree(port);
  const child = startNode([join(ROOT, 'dist', 'main.js')], env, join(OUT, logName));
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/health`, child, 'the service');
  return { child, base };
}

async function startReference(dir: string, databaseUrl: string, port: number, features: boolean): Promise<Server> {
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    HOST: '127.0.0.1',
    PORT: String(port),
    BASELINE_FEATURES: features ? '1' : '',
    PG_POOL_MAX: POOL_SIZE,
  };
  await assertFree(port);
  const child = startNode([join(dir, 'baseline', 'server.mjs')], env, join(OUT, 'reference.log'));
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/health`, child, 'the reference');
  return { child, base };
}

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withClient<T>(url: string, work: (db: Client) => Promise<T>): Promise<T> {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    return await work(db);
  } finally {
    await db.end();
  }
}

/** Creates and loads database `name` (via `load`) unless it holds this world already (table bench_world) and `idsFile` exists. */
async function ensureDatabase(
  admin: Client,
  serverUrl: string,
  name: string,
  worldSha: string,
  idsFile: string,
  load: (url: string) => Promise<void>,
): Promise<string> {
  const url = databaseUrl(serverUrl, name);
  const loaded = await withClient(
    url,
    async (db) => (await db.query('SELECT sha256, tasks FROM bench_world')).rows[0] as { sha256: string; tasks: string } | undefined,
  ).catch(() => undefined);
  if (loaded?.sha256 === worldSha && existsSync(idsFile)) {
    // Every create-task run (and any profiling of it) adds tasks to the big workspace, on one side more than
    // on the other: they go, and past GROWN_TASKS (what else grew it) the world is loaded again. Earlier
    // runs' creates and updates also left dead rows and cleared visibility bits: both sides start clean.
    const tasks = await withClient(url, async (db) => {
      await deleteCreatedTasks(db).catch((error: Error) => log(`Database ${name}: the created tasks stay (${error.message})`));
      await db.query('VACUUM ANALYZE');
      return liveTasks(db);
    });
    const grown = tasks / Number(loaded.tasks) - 1;
    if (grown <= GROWN_TASKS) {
      log(`Database ${name}: already loaded, reused (vacuumed)`);
      return url;
    }
    log(`Database ${name}: ${tasks - Number(loaded.tasks)} tasks created by earlier runs (+${Math.round(grown * 100)}%), loading the world again`);
  } else {
    log(`Database ${name}: loading the world`);
  }
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await load(url);
  await withClient(url, async (db) => {
    await db.query('VACUUM ANALYZE');
    await db.query('CREATE TABLE bench_world (sha256 text NOT NULL, tasks bigint NOT NULL)');
    await db.query('INSERT INTO bench_world (sha256, tasks) VALUES ($1, $2)', [worldSha, await liveTasks(db)]);
  });
  return url;
}

/** The title of the tasks the create-task scenario makes (run-ab.sh's body). */
const CREATED_TITLE = 'Benchmark task';

/** Deletes the tasks the create-task scenario made, in whichever schema holds `tasks`. */
async function deleteCreatedTasks(db: Client): Promise<void> {
  const { rows } = await db.query<{ schema: string }>(
    `SELECT quote_ident(n.nspname) AS schema FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname = 'tasks' AND c.relkind = 'r'`,
  );
  for (const { schema } of rows) await db.query(`DELETE FROM ${schema}.tasks WHERE title = $1`, [CREATED_TITLE]);
}

/** How much a reused database's tasks may have grown since it was loaded (0.05: 5%). */
const GROWN_TASKS = 0.05;

/** The rows of the `tasks` table, whichever schema holds it, as the last VACUUM ANALYZE counted them. */
async function liveTasks(db: Client): Promise<number> {
  const { rows } = await db.query<{ n: string | null }>(`SELECT sum(reltuples)::bigint::text AS n FROM pg_class WHERE relname = 'tasks' AND relkind = 'r'`);
  return Number(rows[0].n ?? 0);
}

/**
 * The ×N copy `name` of the loaded database `base`, scaled by `scale` (issue 37), unless it holds
 * this world at this factor already (bench_world, `tag` = world SHA-256 + factor): scaling a
 * million tasks takes minutes of CPU, so it is done once.
 */
async function ensureScaled(admin: Client, serverUrl: string, base: string, name: string, tag: string, scale: (url: string) => Promise<void>): Promise<string> {
  const url = databaseUrl(serverUrl, name);
  const loaded = await withClient(url, async (db) => (await db.query('SELECT sha256 FROM bench_world')).rows[0]?.sha256).catch(() => undefined);
  if (loaded === tag) {
    await withClient(url, (db) => db.query('VACUUM ANALYZE'));
    log(`Database ${name}: already scaled, reused (vacuumed)`);
    return url;
  }
  log(`Database ${name}: a copy of ${base}, scaled (minutes of CPU; done once)`);
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${base}`);
  await scale(url);
  await withClient(url, async (db) => {
    await db.query('VACUUM ANALYZE');
    await db.query('UPDATE bench_world SET sha256 = $1', [tag]);
  });
  return url;
}

/** Where PostgreSQL time per database comes from; null: not available. */
type PgSource = 'pg_stat_statements' | 'pg_stat_database.active_time' | null;

async function pgSource(admin: Client): Promise<PgSource> {
  const { rows } = await admin.query(`SELECT current_setting('shared_preload_libraries') AS libraries`);
  if (/\bpg_stat_statements\b/.test(rows[0].libraries)) {
    try {
      await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      return 'pg_stat_statements';
    } catch (error) {
      log(`pg_stat_statements: ${(error as Error).message}`);
    }
  }
  try {
    await admin.query('SELECT active_time FROM pg_stat_database LIMIT 1'); // PostgreSQL 14+
    return 'pg_stat_database.active_time';
  } catch {
    return null;
  }
}

/** PostgreSQL ms spent so far per database name (planning + execution, or time in active state). */
async function pgMs(admin: Client, source: PgSource, names: string[]): Promise<Record<string, number>> {
  if (!source) return {};
  const sql =
    source === 'pg_stat_statements'
      ? `SELECT d.datname, COALESCE(sum(s.total_exec_time + s.total_plan_time), 0)::float8 AS ms
           FROM pg_database d LEFT JOIN pg_stat_statements s ON s.dbid = d.oid WHERE d.datname = ANY($1) GROUP BY d.datname`
      : `SELECT datname, active_time::float8 AS ms FROM pg_stat_database WHERE datname = ANY($1)`;
  const { rows } = await admin.query(sql, [names]);
  return Object.fromEntries(rows.map((r) => [r.datname, r.ms]));
}

/**
 * CPU ms (user + system, from /proc) used so far by the client backends of each database, per database
 * name; empty when PostgreSQL is not on this machine or its processes cannot be read. Unlike
 * `active_time`, a backend waiting for a CPU adds nothing; a backend that ends between two readings
 * loses its share (the servers keep their connections open).
 */
async function pgCpuMs(admin: Client, names: string[]): Promise<Record<string, number>> {
  const { rows } = await admin.query<{ datname: string; pid: number }>(
    `SELECT datname, pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND datname = ANY($1)`,
    [names],
  );
  const table = processTable();
  const cpu: Record<string, number> = {};
  for (const { datname, pid } of rows) {
    const stat = table.get(pid);
    if (stat) cpu[datname] = (cpu[datname] ?? 0) + (stat.cpuTicks * 1000) / CLOCK_TICKS_PER_S;
  }
  return cpu;
}

/** Counters read before and after a measuring run. */
interface Reading {
  pgMs: Record<string, number>;
  pgCpuMs: Record<string, number>;
  serviceRequests: number;
  serviceRoundTrips: number | null;
  referenceRequests: number;
  referenceQueries: number;
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  return (await res.json()) as T;
}

/** /api requests the service answered (its /metrics counter). */
async function serviceRequests(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  let total = 0;
  for (const m of text.matchAll(/^work_tracking_http_requests_total\{[^}]*route="\/api\/[^"]*"[^}]*\} (\S+)$/gm)) total += Number(m[1]);
  return total;
}

/** Per scenario: PostgreSQL ms and SQL round trips per request of each side. */
interface Costs {
  service: { pgMsPerReq: number | null; pgCpuMsPerReq: number | null; roundTripsPerReq: number | null };
  reference: { pgMsPerReq: number | null; pgCpuMsPerReq: number | null; roundTripsPerReq: number | null };
}

/**
 * One short extra run per scenario (step 4 above) against a second service
 * instance behind the round-trip proxy and the running reference.
 */
async function measureCosts(
  o: Options,
  admin: Client,
  urls: { service: string; reference: string },
  reference: Server,
  abArgs: (a: Server) => string[],
  scenarios: string[],
): Promise<{ source: PgSource; costs: Map<string, Costs> }> {
  const source = await pgSource(admin);
  log(`PostgreSQL time per request: ${source ?? 'n/a (neither pg_stat_statements nor pg_stat_database.active_time)'}`);
  const pg = new URL(o.pgUrl);
  let proxyControl: string | null = null;
  let serviceUrl = urls.service;
  if (['127.0.0.1', 'localhost'].includes(pg.hostname)) {
    const [listen, control] = [await freePort(), await freePort()];
    const proxy = startNode(
      [join(o.referenceDir, 'pg-roundtrips.mjs'), String(listen), pg.port || '5432', String(control)],
      process.env,
      join(OUT, 'proxy.log'),
    );
    proxyControl = `http://127.0.0.1:${control}`;
    await waitFor(proxyControl, proxy, 'the round-trip proxy');
    const proxied = new URL(urls.service);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(listen);
    serviceUrl = proxied.toString();
  } else {
    log('Service round trips: n/a (the round-trip proxy needs PostgreSQL on 127.0.0.1)');
  }
  // Without its webhook worker: the job queue's polls (about ten statements a second, busy or idle)
  // are no request's round trips, and over a few hundred list requests they added 0.4 to 1.1 per request.
  const counted = await startService(serviceUrl, await freePort(), 'service-counted.log', { WEBHOOK_WORKER: 'false' });
  // The backends' CPU is read around a second run against an instance connected directly: the proxy splits
  // the service's messages into more reads for its backends (about 0.05 ms more CPU per get task).
  const direct = await startService(urls.service, await freePort(), 'service-direct.log', { WEBHOOK_WORKER: 'false' });
  const settle = () => sleep(source === 'pg_stat_database.active_time' ? STATS_FLUSH_MS : 1000);
  const read = async (service = counted): Promise<Reading> => {
    const stats = await getJson<{ routes: Record<string, { requests: number; queries: number }> }>(`${reference.base}/__baseline/stats`);
    const routes = Object.values(stats.routes);
    return {
      pgMs: await pgMs(admin, source, [o.serviceDb, o.referenceDb]),
      pgCpuMs: await pgCpuMs(admin, [o.serviceDb, o.referenceDb]),
      serviceRequests: await serviceRequests(service.base),
      serviceRoundTrips: proxyControl ? (await getJson<{ roundtrips: number }>(proxyControl)).roundtrips : null,
      referenceRequests: routes.reduce((n, r) => n + r.requests, 0),
      referenceQueries: routes.reduce((n, r) => n + r.queries, 0),
    };
  };
  const costs = new Map<string, Costs>();
  try {
    if (source === 'pg_stat_database.active_time') log(`Waiting ${STATS_FLUSH_MS / 1000} s after each run for PostgreSQL's statistics`);
    await settle();
    let before = await read();
    for (const scenario of scenarios) {
      log(`Measuring costs: ${scenario}, ${o.measureDuration} s per side`);
      const only = ['--scenarios', scenario, '--rounds', '1', '--warmup', '0', '--duration', String(o.measureDuration)];
      await run(join(o.referenceDir, 'run-ab.sh'), [...abArgs(counted), ...o.passThrough, ...only]);
      await settle();
      const after = await read();
      const per = (value: number | null | undefined, requests: number) => (value == null || !requests ? null : value / requests);
      const delta = (db: string) => (db in after.pgMs && db in before.pgMs ? after.pgMs[db] - before.pgMs[db] : null);
      const serviceRequests = after.serviceRequests - before.serviceRequests;
      const referenceRequests = after.referenceRequests - before.referenceRequests;
      costs.set(scenario, {
        service: {
          pgMsPerReq: per(delta(o.serviceDb), serviceRequests),
          pgCpuMsPerReq: null,
          roundTripsPerReq: per(after.serviceRoundTrips === null ? null : after.serviceRoundTrips - before.serviceRoundTrips!, serviceRequests),
        },
        reference: {
          pgMsPerReq: per(delta(o.referenceDb), referenceRequests),
          pgCpuMsPerReq: null,
          roundTripsPerReq: per(after.referenceQueries - before.referenceQueries, referenceRequests),
        },
      });
      before = after;
    }

    // The direct instance's connections opened (and their start-up's CPU spent) before its first reading.
    const warm = ['--scenarios', scenarios.join(','), '--rounds', '1', '--warmup', '0', '--duration', '1'];
    await run(join(o.referenceDir, 'run-ab.sh'), [...abArgs(direct), ...o.passThrough, ...warm]);
    for (const scenario of scenarios) {
      log(`Measuring PostgreSQL CPU: ${scenario}, ${o.measureDuration} s per side`);
      const only = ['--scenarios', scenario, '--rounds', '1', '--warmup', '0', '--duration', String(o.measureDuration)];
      const cpuBefore = await read(direct);
      await run(join(o.referenceDir, 'run-ab.sh'), [...abArgs(direct), ...o.passThrough, ...only]);
      const cpuAfter = await read(direct);
      const cpu = (db: string, requests: number) =>
        db in cpuAfter.pgCpuMs && db in cpuBefore.pgCpuMs && requests ? (cpuAfter.pgCpuMs[db] - cpuBefore.pgCpuMs[db]) / requests : null;
      const cost = costs.get(scenario)!;
      cost.service.pgCpuMsPerReq = cpu(o.serviceDb, cpuAfter.serviceRequests - cpuBefore.serviceRequests);
      cost.reference.pgCpuMsPerReq = cpu(o.referenceDb, cpuAfter.referenceRequests - cpuBefore.referenceRequests);
    }
  } finally {
    await Promise.all([stop(counted.child), stop(direct.child)]);
  }
  return { source, costs };
}

/** One run of run-ab.sh's raw output (side A: the service, B: the reference). */
interface AbRun {
  round: number;
  scenario: string;
  side: 'A' | 'B';
  rps: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  non2xx: number;
  server_cpu_ms_per_req: number | null;
}

function median(values: (number | null)[]): number | null {
  const sorted = values.filter((v): v is number => v !== null).sort((a, b) => a - b);
  if (!sorted.length) return null;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Figures of one side for one scenario: medians over rounds, then costs per request. */
interface SideFigures {
  reqPerSec: number | null;
  p50Ms: number | null;
  p99Ms: number | null;
  nodeCpuMsPerReq: number | null;
  pgMsPerReq: number | null;
  /** CPU of the database's backends per request (/proc), null when unreadable. */
  pgCpuMsPerReq: number | null;
  roundTripsPerReq: number | null;
  errors: number;
}

/** A row of the final table; ratio = median over rounds of service req/s / reference req/s. */
interface Row {
  scenario: string;
  ratio: number | null;
  ratioRange: [number, number] | null;
  service: SideFigures;
  reference: SideFigures;
}

function rowOf(scenario: string, runs: AbRun[], costs: Costs | undefined): Row {
  const of = (side: 'A' | 'B') => runs.filter((r) => r.scenario === scenario && r.side === side);
  const side = (s: 'A' | 'B', cost: Costs['service'] | undefined): SideFigures => ({
    reqPerSec: median(of(s).map((r) => r.rps)),
    p50Ms: median(of(s).map((r) => r.p50_ms)),
    p99Ms: median(of(s).map((r) => r.p99_ms)),
    nodeCpuMsPerReq: median(of(s).map((r) => r.server_cpu_ms_per_req)),
    pgMsPerReq: cost?.pgMsPerReq ?? null,
    pgCpuMsPerReq: cost?.pgCpuMsPerReq ?? null,
    roundTripsPerReq: cost?.roundTripsPerReq ?? null,
    errors: of(s).reduce((n, r) => n + r.errors + r.non2xx, 0),
  });
  const ratios = of('A').flatMap((a) => {
    const b = of('B').find((r) => r.round === a.round);
    return b && b.rps ? [a.rps / b.rps] : [];
  });
  return {
    scenario,
    ratio: median(ratios),
    ratioRange: ratios.length ? [Math.min(...ratios), Math.max(...ratios)] : null,
    service: side('A', costs?.service),
    reference: side('B', costs?.reference),
  };
}

function markdown(rows: Row[]): string {
  const f = (n: number | null, digits: number) => (n === null ? 'n/a' : n.toFixed(digits));
  const pair = (row: Row, key: keyof SideFigures, digits: number) => `${f(row.service[key], digits)} / ${f(row.reference[key], digits)}`;
  const lines = [
    '| scenario | req/s service / reference | ratio (range) | p50 ms | p99 ms | Node CPU ms/req | PostgreSQL ms/req | PostgreSQL CPU ms/req | round trips/req | errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows
      .map((r) =>
        [
          r.scenario,
          pair(r, 'reqPerSec', 0),
          `${f(r.ratio, 2)} (${r.ratioRange ? r.ratioRange.map((x) => x.toFixed(2)).join('-') : 'n/a'})`,
          pair(r, 'p50Ms', 2),
          pair(r, 'p99Ms', 2),
          pair(r, 'nodeCpuMsPerReq', 3),
          pair(r, 'pgMsPerReq', 3),
          pair(r, 'pgCpuMsPerReq', 3),
          pair(r, 'roundTripsPerReq', 2),
          pair(r, 'errors', 0),
        ].join(' | '),
      )
      .map((line) => `| ${line} |`),
  ];
  return lines.join('\n');
}

/** `npm run bench -- --reference [options]`: see the comment at the top. */
export async function reference(argv: string[]): Promise<void> {
  const o = parseOptions(argv);
  if (!existsSync(join(o.referenceDir, 'run-ab.sh'))) throw new Error(`no reference at ${o.referenceDir} (option --reference-dir)`);
  const onSignal = (signal: string) => {
    log(`${signal}: stopping the servers`);
    void stopAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  mkdirSync(OUT, { recursive: true });
  if (!existsSync(WORLD) || !existsSync(WORLD_META)) {
    await run(process.execPath, [join(o.referenceDir, 'gen-world.mjs'), '--tasks', String(WORLD_TASKS), '--out', WORLD]);
  }
  if (!existsSync(join(o.referenceDir, 'baseline', 'node_modules'))) await run('npm', ['ci'], { cwd: join(o.referenceDir, 'baseline') });
  const worldSha = createHash('sha256').update(readFileSync(WORLD)).digest('hex');

  const admin = new Client({ connectionString: o.pgUrl });
  await admin.connect();
  try {
    const referenceBase = o.referenceDb.replace(/_x\d+$/, '');
    const serviceBase = o.serviceDb.replace(/_x\d+$/, '');
    const [IDS_REFERENCE, IDS_SERVICE] = [idsFile(referenceBase), idsFile(serviceBase)];
    let referenceUrl = await ensureDatabase(admin, o.pgUrl, referenceBase, worldSha, IDS_REFERENCE, (url) =>
      run(process.execPath, [join(o.referenceDir, 'baseline', 'load.mjs'), WORLD, url, '--out', IDS_REFERENCE]),
    );
    let serviceUrl = await ensureDatabase(admin, o.pgUrl, serviceBase, worldSha, IDS_SERVICE, async (url) => {
      const env = { ...process.env, DATABASE_URL: url };
      await run('npm', ['run', '--silent', 'cli', '--', 'migrate'], { env });
      await run('npm', ['run', '--silent', 'cli', '--', 'seed', '--file', WORLD, '--out', IDS_SERVICE], { env });
    });
    if (o.scale > 1) {
      referenceUrl = await ensureScaled(admin, o.pgUrl, referenceBase, o.referenceDb, `${worldSha}x${o.scale}`, (url) =>
        run('psql', ['-X', '-q', '-d', url, '-v', `factor=${o.scale}`, '-f', join(o.referenceDir, 'scale', 'scale-baseline.sql')]),
      );
      serviceUrl = await ensureScaled(admin, o.pgUrl, serviceBase, o.serviceDb, `${worldSha}x${o.scale}`, (url) =>
        withClient(url, (db) => scaleServiceWorld(db, o.scale)).then(() => undefined),
      );
      // The service's schema moves on: a copy made before a migration gets it too.
      await run('npm', ['run', '--silent', 'cli', '--', 'migrate'], { env: { ...process.env, DATABASE_URL: serviceUrl } });
    }

    const referenceServer = await startReference(o.referenceDir, referenceUrl, o.referencePort, o.features);
    const service = await startService(serviceUrl, o.servicePort, 'service.log');
    log(
      `Service ${service.base} (pid ${service.child.pid}), reference ${referenceServer.base} (pid ${referenceServer.child.pid})${PIN ? ', both on CPU 1' : ''}`,
    );
    const abArgs = (a: Server) => [
      '--a',
      a.base,
      '--a-ids',
      IDS_SERVICE,
      '--a-pid',
      String(a.child.pid),
      '--b',
      referenceServer.base,
      '--b-ids',
      IDS_REFERENCE,
      '--b-pid',
      String(referenceServer.child.pid),
      '--meta',
      WORLD_META,
    ];
    const timing = ['--rounds', String(o.rounds), '--duration', String(o.duration), '--out', RAW];
    await run(join(o.referenceDir, 'run-ab.sh'), [...abArgs(service), ...timing, ...o.passThrough]);
    await stop(service.child);

    const runs = (JSON.parse(readFileSync(RAW, 'utf8')) as { runs: AbRun[] }).runs;
    const scenarios = [...new Set(runs.map((r) => r.scenario))];
    const { source, costs } = await measureCosts(o, admin, { service: serviceUrl, reference: referenceUrl }, referenceServer, abArgs, scenarios);
    const rows = scenarios.map((s) => rowOf(s, runs, costs.get(s)));

    const at = new Date().toISOString();
    const file = join(RESULTS_DIR, `${at.replace(/[:.]/g, '-')}-reference.json`);
    const meta = {
      label: 'reference',
      at,
      rounds: o.rounds,
      durationS: o.duration,
      measureDurationS: o.measureDuration,
      passThrough: o.passThrough,
      worldTasks: WORLD_TASKS,
      scale: o.scale,
      referenceFeatures: o.features ? 'BASELINE_FEATURES=1' : 'bare',
      cpus: PIN ? 'servers on CPU 1, load generator on CPU 0' : 'unpinned',
      poolSize: Number(POOL_SIZE),
      pgTime: source ?? 'n/a',
    };
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(file, JSON.stringify({ ...meta, results: rows }, null, 2) + '\n');
    process.stdout.write(
      `\n${markdown(rows)}\n\nService / reference (${meta.referenceFeatures}); world ×${o.scale}; ${meta.poolSize} database connections each; ratio: median over ${o.rounds} round(s) of ${o.duration} s of the per-round req/s ratio. ` +
        `PostgreSQL time from ${meta.pgTime}; PostgreSQL CPU: user + system time of each database's client backends (/proc).\n`,
    );
    log(`Results written to ${file}`);
    if (rows.some((r) => r.service.errors || r.reference.errors)) process.exitCode = 1;
  } finally {
    await stopAll();
    await admin.end();
  }
}
