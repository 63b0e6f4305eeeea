import cluster, { Worker } from 'node:cluster';

import { processSettingsOrExit } from './config/settings';

/*
 * Worker processes for the server: `WEB_CONCURRENCY` processes share
 * the listening port through node:cluster; default 1, which runs the server in
 * this very process (no primary at all).
 *
 * Workers start one after the other (the next once the previous listens), so
 * migrations and the embedded PostgreSQL start happen once, in the first.
 * SIGTERM or SIGINT to the primary: the workers are asked to drain, all at
 * once (with the embedded PostgreSQL, the first, which owns it, after the others); the primary
 * exits with the worst exit code. A worker that dies after it listened is
 * replaced; one that fails to start stops them all.
 */

const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

/** Runs `serve` in this process, or, with WEB_CONCURRENCY > 1, in that many workers managed from here. */
export function runWorkers(serve: () => void): void {
  const settings = processSettingsOrExit();
  const count = settings.webConcurrency;
  if (count <= 1 || !cluster.isPrimary) return serve();
  const embedded = !settings.databaseUrl;

  const workers: Worker[] = [];
  let stopping = false;
  let exitCode = 0;

  const fork = (index: number): Promise<void> =>
    new Promise((ready) => {
      const worker = cluster.fork();
      workers[index] = worker;
      let listening = false;
      worker.once('listening', () => {
        listening = true;
        ready();
      });
      worker.once('exit', (code) => {
        if (code) exitCode = Math.max(exitCode, code);
        ready();
        if (stopping) return;
        // One that never listened failed to start (its error is logged): the others would fail alike.
        if (!listening) return void stop('SIGTERM');
        process.stderr.write(`Worker ${worker.process.pid} exited (code ${code}): starting another\n`);
        void fork(index);
      });
    });

  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const drain = (group: Worker[]) =>
      Promise.all(
        group
          .filter((worker) => worker && !worker.isDead())
          .map((worker) => {
            const exited = new Promise((done) => worker.once('exit', done));
            worker.process.kill(signal);
            return exited;
          }),
      );
    // All at once (each answers readiness 503 for SHUTDOWN_DELAY_MS, then drains); with the embedded
    // PostgreSQL (no DATABASE_URL), the first worker, which runs it, once the others have exited.
    const [first, ...others] = workers;
    if (embedded) {
      await drain(others);
      await drain([first]);
    } else {
      await drain(workers);
    }
    process.exit(exitCode);
  };
  for (const signal of SIGNALS) process.on(signal, (s) => void stop(s));

  void (async () => {
    for (let i = 0; i < count && !stopping; i++) await fork(i);
  })();
}
