import { ChildProcess, spawn } from 'child_process';
import { join, resolve } from 'path';

import { freePort } from '../src/common/database/embedded';
import { childrenOf, hasTaskset } from './proc';
import { BENCH_KEY } from './world';

/** The server the benchmark runs: `node dist/main.js`, or BENCH_SERVER to measure another build. */
export const SERVER = resolve(process.env.BENCH_SERVER ?? join(__dirname, '..', 'dist', 'main.js'));

/** Starts the server with `processes` workers and waits until it answers. */
export async function startServer(
  url: string,
  processes: number,
  extraEnv: NodeJS.ProcessEnv = {},
  key = BENCH_KEY,
): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const env = {
    ...process.env,
    DATABASE_URL: url,
    PORT: String(port),
    HOST: '127.0.0.1',
    MIGRATIONS_RUN: 'false',
    LOG_LEVEL: 'error',
    WEB_CONCURRENCY: String(processes),
    ...extraEnv,
  };
  // One process: pinned to CPU 0 (the load runs on CPU 1). Two: both CPUs, shared with the load.
  const child =
    processes === 1 && hasTaskset
      ? spawn('taskset', ['-c', '0', process.execPath, SERVER], { env, stdio: ['ignore', 'ignore', 'inherit'] })
      : spawn(process.execPath, [SERVER], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with code ${child.exitCode}`);
    try {
      const res = await fetch(`${base}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
      // Workers start one after the other: wait for the others too, and for their start-up to finish.
      if (res.status === 200 && (processes === 1 || childrenOf(child.pid!).length >= processes)) {
        if (processes > 1) await new Promise((done) => setTimeout(done, 3000));
        return { child, base };
      }
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error('server did not answer within 30 s');
}

/** Stops a server started by startServer (SIGTERM) and waits for it to exit. */
export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
}
