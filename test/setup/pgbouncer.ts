import { execFileSync } from 'child_process';
import { accessSync, chmodSync, constants, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { connect } from 'net';
import { tmpdir } from 'os';
import { delimiter, join } from 'path';

import { freePort } from '../../src/common/database/embedded';
import { StartedProcess, startProcess } from './server-process';

/*
 * A PgBouncer process of a test's own, in front of the test
 * PostgreSQL server: transaction pooling, a small server pool so that
 * server connections really are shared between the app's connections.
 * CI installs Debian's `pgbouncer` package (.ci/run).
 */

/** Where the binary is looked for: PGBOUNCER (a path), Debian's /usr/sbin, then PATH. */
export function findPgBouncer(): string | null {
  const candidates = [process.env.PGBOUNCER, '/usr/sbin/pgbouncer', ...(process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'pgbouncer'))];
  for (const path of candidates) {
    if (!path) continue;
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not there
    }
  }
  return null;
}

/** [major, minor] of the PgBouncer at `binary` (`PgBouncer 1.18.0` on its first --version line). */
export function pgBouncerVersion(binary: string): [number, number] {
  const text = execFileSync(binary, ['--version'], { encoding: 'utf8' });
  const match = /PgBouncer (\d+)\.(\d+)/.exec(text);
  if (!match) throw new Error(`pgbouncer --version: unexpected answer ${JSON.stringify(text)}`);
  return [Number(match[1]), Number(match[2])];
}

export interface PgBouncer {
  /** `url` (a URL of the PostgreSQL server it fronts) with host and port of PgBouncer instead. */
  via(url: string): string;
  /** Everything PgBouncer logged so far (its stderr). */
  log(): string;
  /** Stops it (SIGINT, then SIGKILL after 5 s) and removes its files. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts PgBouncer on 127.0.0.1 and a free port in front of the server of
 * `serverUrl` (every database name maps to the same-named database there),
 * with client auth `trust`, `pool_mode = transaction`, `default_pool_size` =
 * `poolSize`, and the startup parameters the app sends (`statement_timeout`,
 * `options`) ignored. It does not keep prepared statements: from 1.21 on,
 * `max_prepared_statements = 0` says so (1.24 turned them on by default), as
 * before 1.21. Resolves once it accepts connections. As root it runs as
 * `nobody` (PgBouncer refuses root). Throws when the binary is missing.
 */
export async function startPgBouncer(serverUrl: string, poolSize = 2): Promise<PgBouncer> {
  const binary = findPgBouncer();
  if (!binary) throw new Error('pgbouncer not found (PGBOUNCER, /usr/sbin/pgbouncer, PATH): install it, e.g. `apt-get install -y pgbouncer` (.ci/run does)');
  const [major, minor] = pgBouncerVersion(binary);
  const server = new URL(serverUrl);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'pgbouncer-'));
  // PgBouncer reads its files after giving up root.
  chmodSync(dir, 0o755);
  const quote = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const target = [
    `host=${quote(server.hostname)}`,
    `port=${server.port || '5432'}`,
    `user=${quote(decodeURIComponent(server.username || 'postgres'))}`,
    ...(server.password ? [`password=${quote(decodeURIComponent(server.password))}`] : []),
  ].join(' ');
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = ${target}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 200',
      'ignore_startup_parameters = statement_timeout,options',
      ...(major > 1 || minor >= 21 ? ['max_prepared_statements = 0'] : []),
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  // trust: no password checked, but the user must be listed.
  writeFileSync(join(dir, 'users.txt'), `"${decodeURIComponent(server.username || 'postgres')}" ""\n`, { mode: 0o644 });

  const asRoot = process.getuid?.() === 0;
  let bouncer: StartedProcess;
  try {
    bouncer = await startProcess({
      name: `pgbouncer (${binary})`,
      command: binary,
      args: [...(asRoot ? ['-u', 'nobody'] : []), join(dir, 'pgbouncer.ini')],
      ready: () => accepts(port),
      timeoutMs: 10_000,
      pollMs: 50,
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  let stopped = false;
  const stop = async () => {
    if (!stopped) {
      stopped = true;
      await bouncer.stop('SIGINT', 5_000);
      rmSync(dir, { recursive: true, force: true });
    }
  };
  return {
    via(url: string) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    log: () => bouncer.output(),
    stop,
  };
}

/** True when something accepts TCP connections on 127.0.0.1:`port`. */
function accepts(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}
