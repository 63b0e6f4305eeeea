// First: V8 settings that must hold before the app allocates anything.
import './v8-tuning';
import 'reflect-metadata';

import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AddressInfo } from 'net';
import { join } from 'path';

import { buildApp } from './app.setup';
import { DEMO_KEY_FILE, migrateLocked, recordServerPort, resolveDatabase } from './cli/database';
import { runWorkers } from './cluster';
import { openDatabase } from './common/database/data-source';
import { type EmbeddedDatabase, resolveDataDir } from './common/database/embedded';
import { describeCut, requestsInFlight } from './common/http/in-flight';
import { nestLogger, rootLogger } from './common/logging/logger';
import { processSettingsOrExit } from './config/settings';
import { ensureDemo, readyBlock } from './fixtures/demo';
import { markShuttingDown } from './health/shutdown-state';

/*
 * Server entry (D32). `npm start` without DATABASE_URL: embedded PostgreSQL
 * in DATA_DIR (default ./.data), migrations, the demo world on first start,
 * the demo key and a curl line on stdout. `npm run start:prod`: DATABASE_URL,
 * migrations unless MIGRATIONS_RUN=false. Serves on HOST:PORT. SIGTERM or
 * SIGINT: readiness answers 503 (still serving for SHUTDOWN_DELAY_MS, 0 by
 * default), then stop accepting, finish requests in flight (up to SHUTDOWN_TIMEOUT_MS,
 * 10 s), close the app and its pool, stop the embedded PostgreSQL, exit 0; when
 * requests had to be cut, log them and exit 1.
 */

const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((done) => (timer = setTimeout(() => done('timeout'), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function main(): Promise<void> {
  // The configuration is checked first (one line and exit 1 when bad); logs are pino's from here on.
  const env = processSettingsOrExit();
  Logger.overrideLogger(nestLogger(rootLogger(env)));
  const logger = new Logger('Main');
  const drainMs = env.timeouts.shutdown;
  const { port, host } = env;

  let embedded: EmbeddedDatabase | undefined;
  let app: NestFastifyApplication | undefined;
  let shuttingDown = false;

  // A second signal during SHUTDOWN_DELAY_MS ends the delay at once.
  let endDelay: (() => void) | undefined;
  const shutdown = async (signal: string): Promise<void> => {
    if (shuttingDown) {
      endDelay?.();
      return;
    }
    shuttingDown = true;
    markShuttingDown();
    const delayMs = app ? env.timeouts.shutdownDelay : 0;
    if (delayMs > 0) {
      // Readiness answers 503 from now on while everything else is still served: a load balancer's probe sees it
      // and stops routing here before the listener closes.
      logger.log(`${signal} received: readiness answers 503; still serving for ${delayMs} ms, then finishing requests in flight and stopping`);
      await new Promise<void>((done) => {
        const timer = setTimeout(done, delayMs);
        endDelay = () => {
          clearTimeout(timer);
          done();
        };
      });
    } else {
      logger.log(`${signal} received: finishing requests in flight, then stopping`);
    }
    let code = 0;
    try {
      if (app) {
        // Fastify stops accepting and waits for requests in flight; the pool closes only after.
        const fastify = app.getHttpAdapter().getInstance();
        const drained = await withTimeout(fastify.close(), drainMs);
        if (drained === 'timeout') {
          logger.error(describeCut(requestsInFlight(fastify), drainMs));
          fastify.server.closeAllConnections();
          code = 1;
        }
        await withTimeout(app.close(), 5_000);
      }
    } catch (error) {
      logger.error(`Error while closing the app: ${(error as Error).message}`);
      code = 1;
    }
    await embedded?.stop().catch((error: Error) => logger.error(`Error while stopping PostgreSQL: ${error.message}`));
    process.exit(code);
  };
  for (const signal of SIGNALS) process.on(signal, (s) => void shutdown(s));

  try {
    const database = await resolveDatabase((line) => logger.log(line));
    embedded = database.embedded;

    let demoKey: string | undefined;
    const migrate = env.migrationsRun;
    if (migrate || embedded) {
      const ds = await openDatabase(database.url, false);
      try {
        if (migrate) {
          const applied = await migrateLocked(ds);
          if (applied.length) logger.log(`Applied migrations: ${applied.join(', ')}`);
        }
        if (embedded) {
          // D32: the demo world on first start (no users yet); later starts reprint its key.
          const demo = await ensureDemo(ds, { keyFile: join(embedded.dataDir, DEMO_KEY_FILE), onlyIfEmpty: true });
          if (demo?.seeded) logger.log('Seeded the demo workspace');
          if (demo) demoKey = demo.key;
        }
      } finally {
        await ds.destroy();
      }
    }
    if (shuttingDown) return;

    // This process owns SIGTERM and SIGINT (the drain above): handlers the app installs are removed.
    const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
    app = await buildApp({ ...env, databaseUrl: database.url });
    for (const s of SIGNALS) {
      for (const listener of process.listeners(s)) if (!before.get(s)!.has(listener)) process.removeListener(s, listener);
    }
    await app.listen(port, host);
    // The port actually bound (PORT=0 picks one): for the log, the curl line, and `cli demo` on the same data directory.
    const bound = (app.getHttpServer().address() as AddressInfo).port;
    logger.log(`Listening on http://${host}:${bound}`);
    if (embedded) process.once('exit', recordServerPort(embedded.dataDir, bound));
    if (embedded) {
      // The closing block comes last: the log lines gathered so far are written first.
      rootLogger(env).flush();
      const asked = resolveDataDir(env.dataDir);
      process.stdout.write(readyBlock({ key: demoKey, port: bound, docs: env.docsEnabled, dataDir: embedded.dataDir, askedDataDir: asked }));
    }
  } catch (error) {
    logger.error(`Startup failed: ${(error as Error).message}`);
    if (app) await app.close().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    process.exit(1);
  }
}

// WEB_CONCURRENCY > 1: that many worker processes, each running main() (cluster.ts).
runWorkers(
  () =>
    void main().catch((error: Error) => {
      new Logger('Main').error(`Startup failed: ${error.message}`);
      process.exit(1);
    }),
);
