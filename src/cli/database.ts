import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { readFileSync, rmSync, writeFileSync } from 'fs';
import { join } from 'path';
import { DataSource } from 'typeorm';

import { migrateAll, openDatabase } from '../common/database/data-source';
import { EmbeddedDatabase, startEmbeddedPostgres } from '../common/database/embedded';
import { processSettings } from '../config/settings';

/** Writes a log line to stderr: stdout carries only results (D32). */
export function logToStderr(line: string): void {
  process.stderr.write(line.endsWith('\n') ? line : line + '\n');
}

/** True when LOG_LEVEL asks for debug output. */
export function debugEnabled(): boolean {
  return ['debug', 'verbose', 'trace'].includes(processSettings().logLevel);
}

/** File name of the plain demo key inside the data directory (only its hash is in the database). */
export const DEMO_KEY_FILE = 'demo-key.txt';

/** File inside the data directory holding the port a running `npm start` serves on (for `cli demo`'s curl line). */
const SERVER_PORT_FILE = 'server-port';

/** Records the port the server of `dataDir` listens on; returns a function that removes the record. */
export function recordServerPort(dataDir: string, port: number): () => void {
  const file = join(dataDir, SERVER_PORT_FILE);
  writeFileSync(file, `${port}\n`);
  return () => rmSync(file, { force: true });
}

/** The port a server on `dataDir` recorded, if any. */
export function recordedServerPort(dataDir: string): number | undefined {
  try {
    const port = Number(readFileSync(join(dataDir, SERVER_PORT_FILE), 'utf8').trim());
    return Number.isInteger(port) && port > 0 ? port : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs pending migrations under a PostgreSQL advisory lock, so that several
 * processes starting at once (servers, the CLI) migrate one at a time.
 *
 * @returns names of the migrations applied now
 */
export async function migrateLocked(ds: DataSource): Promise<string[]> {
  const runner = ds.createQueryRunner();
  await runner.connect();
  try {
    await runner.query(`SELECT pg_advisory_lock(hashtext('work-tracking-api:migrations'))`);
    const applied = await migrateAll(ds);
    return applied.map((m) => m.name);
  } finally {
    await runner.query(`SELECT pg_advisory_unlock(hashtext('work-tracking-api:migrations'))`).catch(() => undefined);
    await runner.release();
  }
}

/**
 * The database a process works on (D32): `DATABASE_URL` when set, else the
 * embedded PostgreSQL of the data directory, started here.
 */
export async function resolveDatabase(log: (line: string) => void): Promise<{ url: string; embedded?: EmbeddedDatabase }> {
  const url = processSettings().databaseUrl;
  if (url) return { url };
  const embedded = await startEmbeddedPostgres({ log, postgresLog: debugEnabled() ? log : undefined });
  return { url: embedded.url, embedded };
}

/**
 * The CLI's database (D32): opened on first use, migrated unless
 * MIGRATIONS_RUN=false, and closed (embedded PostgreSQL stopped) when the
 * command's application context closes.
 */
@Injectable()
export class CliDatabase implements OnApplicationShutdown {
  private ds?: DataSource;
  private embedded?: EmbeddedDatabase;

  /** The open DataSource; `migrate: false` skips the automatic migration (the `migrate` command does its own). */
  async open(options: { migrate?: boolean } = {}): Promise<DataSource> {
    if (this.ds) return this.ds;
    const { url, embedded } = await resolveDatabase(logToStderr);
    this.embedded = embedded;
    this.ds = await openDatabase(url, false);
    if (options.migrate !== false && processSettings().migrationsRun) {
      const applied = await migrateLocked(this.ds);
      if (applied.length) logToStderr(`Applied migrations: ${applied.join(', ')}`);
    }
    return this.ds;
  }

  /**
   * The port of the server the demo curl line should name: PORT when set, else
   * the port a running `npm start` on this data directory recorded, else the default.
   */
  serverPort(): number {
    const { port, portSet } = processSettings();
    if (portSet) return port;
    return (this.embedded && recordedServerPort(this.embedded.dataDir)) || port;
  }

  /** Path of the demo key file when the CLI runs on the embedded database, else undefined. */
  demoKeyFile(): string | undefined {
    return this.embedded ? join(this.embedded.dataDir, DEMO_KEY_FILE) : undefined;
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.ds?.isInitialized) await this.ds.destroy();
    await this.embedded?.stop();
  }
}
