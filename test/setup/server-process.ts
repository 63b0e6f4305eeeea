import { ChildProcess, spawn } from 'child_process';
import { join } from 'path';
import { freePort } from '../../src/common/database/embedded';
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
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'main.js')], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${out}\n${err}`);
    try {
      if ((await fetch(`${url}/health/ready`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server not ready within ${timeoutMs} ms:\n${out}\n${err}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port,
    child,
    stdout: () => out,
    stderr: () => err,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
