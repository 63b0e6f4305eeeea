import { ChildProcess, spawn } from 'child_process';
import { join } from 'path';

import { generateApiKey } from '../../src/common/auth/api-key';
import { SCOPES } from '../../src/common/auth/scope';
import { freePort } from '../../src/common/database/embedded';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { createTestDatabase, TestDatabase } from './database';
import { ROOT } from './paths';

export { freePort, ROOT };

/*
 * The built server (`node dist/main.js`, as `npm run start:prod` runs it) as
 * a child process, for tests that need real processes: several servers on one
 * database (scale-out), the README's curl lines. dist/ is rebuilt first when a
 * source changed (scripts/build-if-stale.js), so these tests run this tree.
 */

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildIfStale } = require(join(ROOT, 'scripts', 'build-if-stale.js')) as { buildIfStale: () => number };

/** Builds dist/ when stale; throws when the build fails. */
export function ensureBuilt(): void {
  if (buildIfStale() !== 0) throw new Error('npm run build failed');
}

/** A child process started by `startProcess`. */
export interface StartedProcess {
  child: ChildProcess;
  /** Everything the process wrote so far: stdout, stderr, and both as they came. */
  stdout(): string;
  stderr(): string;
  output(): string;
  /** Its exit code once it exits (null when killed by a signal). */
  exited: Promise<number | null>;
  /** `signal` (SIGTERM) unless it has exited, SIGKILL after `killAfterMs` (none when undefined); then the exit code. Safe to call twice. */
  stop(signal?: NodeJS.Signals, killAfterMs?: number): Promise<number | null>;
}

/** How `startProcess` starts a process and tells that it is up. */
export interface StartOptions {
  /** Named in errors. */
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  /** The whole environment of the process (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** True once the process is up; asked every `pollMs` (100) until `timeoutMs` (30 s) runs out. */
  ready: (p: StartedProcess) => boolean | Promise<boolean>;
  timeoutMs?: number;
  pollMs?: number;
}

/** Processes still running when the test process exits, whatever happened: killed then. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * The one way tests start a process and wait for it (servers, PgBouncer):
 * spawns `command`, collects its output, and resolves once `ready` says so.
 * @throws Error with the process's output when it exits or is not ready within `timeoutMs` (it is killed then)
 */
export async function startProcess(options: StartOptions): Promise<StartedProcess> {
  const { name, timeoutMs = 30_000, pollMs = 100 } = options;
  const child = spawn(options.command, options.args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let out = '';
  let err = '';
  let both = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    both += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    both += d.toString();
  });
  const exited = new Promise<number | null>((done) =>
    child.once('exit', (code) => {
      running.delete(child);
      done(code);
    }),
  );
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const p: StartedProcess = {
    child,
    stdout: () => out,
    stderr: () => err,
    output: () => both,
    exited,
    async stop(signal = 'SIGTERM', killAfterMs) {
      if (!gone()) child.kill(signal);
      const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (gone()) throw new Error(`${name} exited with ${child.exitCode ?? child.signalCode}:\n${both}`);
    if (await options.ready(p)) return p;
    if (Date.now() > deadline) {
      await p.stop('SIGKILL');
      throw new Error(`${name} not ready within ${timeoutMs} ms:\n${both}`);
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** True when `url` answers with status 200 (false while nothing listens there). */
export async function answers200(url: string): Promise<boolean> {
  return fetch(url).then(
    (r) => r.status === 200,
    () => false,
  );
}

export interface ServerProcess {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything the process wrote so far. */
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then the exit code (null when killed by a signal). */
  stop(): Promise<number | null>;
}

/**
 * Starts `node dist/main.js` with `env` added to this process's environment
 * (PORT: a free one unless given) and resolves once `/health/ready` answers 200.
 */
export async function startServer(env: Record<string, string>, timeoutMs = 30_000): Promise<ServerProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const url = `http://127.0.0.1:${port}`;
  const p = await startProcess({
    name: 'server',
    command: process.execPath,
    args: [join(ROOT, 'dist', 'main.js')],
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: String(port) },
    ready: () => answers200(`${url}/health/ready`),
    timeoutMs,
  });
  return { url, port, child: p.child, stdout: p.stdout, stderr: p.stderr, stop: () => p.stop() };
}

/** What useServerProcesses sets up, filled in by its beforeAll. */
export interface ServerProcesses {
  /** An API key of the owner with every scope. */
  key: string;
  db: TestDatabase;
  servers: ServerProcess[];
  /** The fixture's ids: `owner`, `ws`, `f` (a folder), `l` (its list) and the labels' refs. */
  ids: Record<string, number>;
}

/**
 * Two built servers (`node dist/main.js`) on one fresh database, for promises
 * kept across processes: an owner with an all-scope key and a workspace `ws`
 * (slug `slug`) with folder `f`, list `l` and `labels`. Registers the file's
 * beforeAll (build, database, fixture, servers) and afterAll (both exit 0, the
 * database dropped); read the fields inside tests.
 */
export function useServerProcesses(options: { slug: string; labels?: Array<{ ref: string; name: string }>; env?: Record<string, string> }): ServerProcesses {
  const procs = { key: generateApiKey() } as ServerProcesses;
  beforeAll(async () => {
    ensureBuilt();
    procs.db = await createTestDatabase();
    procs.ids = await loadFixture(procs.db.ds, {
      users: [{ ref: 'owner', email: `owner@${options.slug}.test`, name: 'Owner' }],
      api_keys: [{ user: 'owner', key: procs.key, scopes: [...SCOPES] }],
      workspaces: [
        {
          ref: 'ws',
          name: 'Procs',
          slug: options.slug,
          owner: 'owner',
          labels: options.labels ?? [],
          folders: [{ ref: 'f', name: 'F', lists: [{ ref: 'l', name: 'L' }] }],
        },
      ],
    });
    const env = { DATABASE_URL: procs.db.url, MIGRATIONS_RUN: 'false', ...options.env };
    procs.servers = await Promise.all([startServer(env), startServer(env)]);
  }, 120_000);
  afterAll(async () => {
    if (procs.servers) expect(await Promise.all(procs.servers.map((s) => s.stop()))).toEqual([0, 0]);
    await procs.db?.drop();
  });
  return procs;
}
