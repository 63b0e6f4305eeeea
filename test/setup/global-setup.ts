import { chmodSync, mkdtempSync } from 'fs';
import { tmpdir, userInfo } from 'os';
import { join } from 'path';
import { Client } from 'pg';

import { openDatabase } from '../../src/common/database/data-source';
import { freePort, startEmbeddedPostgres } from '../../src/common/database/embedded';
import { withDatabase } from './database';
import { ensureBuilt } from './server-process';

/** What the teardown needs of an embedded server this setup started. */
export interface EmbeddedRun {
  stop(): Promise<void>;
  /** The temporary directory that holds its cluster, removed after it stopped. */
  dir: string;
}

/**
 * Locales tried, in order, for the UTF-8 template database: PostgreSQL 17's built-in one (no OS locale
 * needed), then the OS's usual UTF-8 locales, then C (byte order, ASCII-only case folding).
 */
const TEMPLATE_LOCALES = [
  "LOCALE_PROVIDER builtin BUILTIN_LOCALE 'C.UTF-8' LOCALE 'C'",
  "LOCALE 'C.UTF-8'",
  "LOCALE 'C.utf8'",
  "LOCALE 'en_US.UTF-8'",
  "LOCALE 'C'",
];

/**
 * Creates `name` as an empty UTF-8 database, whatever the server's default encoding is
 * (a cluster initialised with SQL_ASCII or LATIN1 would otherwise store and compare text in it).
 */
export async function createUtf8Database(admin: Client, name: string): Promise<void> {
  let last: unknown;
  for (const locale of TEMPLATE_LOCALES) {
    try {
      await admin.query(`CREATE DATABASE ${name} ENCODING 'UTF8' ${locale} TEMPLATE template0`);
      return;
    } catch (error) {
      last = error; // this locale is unknown to the server (or too old a server): try the next
    }
  }
  throw last;
}

/**
 * Jest global setup: the PostgreSQL server of the run is `DATABASE_URL` when
 * set, else an embedded one started here with the code `npm start` uses
 * (src/common/database/embedded.ts: run as the OS user `postgres` only when we
 * are root), its cluster in a new temporary directory of this run. A UTF-8
 * template database is migrated once; each test file clones it
 * (test/setup/database.ts). With several workers, dist/ is brought up to date
 * here, once: files that run the built server would otherwise each compile it
 * at the same time into the same place.
 */
export default async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
  if (globalConfig.maxWorkers > 1) ensureBuilt();
  let url = process.env.DATABASE_URL;
  if (!url) {
    const dir = mkdtempSync(join(tmpdir(), 'wt-test-pg-'));
    // As root, PostgreSQL runs as the OS user `postgres`, which must enter this directory (made 0700).
    if (userInfo().uid === 0) chmodSync(dir, 0o755);
    const db = await startEmbeddedPostgres({ dataDir: dir, port: await freePort() });
    (globalThis as { __EMBEDDED_PG__?: EmbeddedRun }).__EMBEDDED_PG__ = { stop: () => db.stop(), dir };
    url = withDatabase(db.url, 'postgres');
  }
  process.env.TEST_PG_ADMIN_URL = url;
  // One template per run, so concurrent runs on one server do not clobber each other.
  const template = `wt_test_template_${process.pid}`;
  process.env.TEST_PG_TEMPLATE_DB = template;

  const admin = new Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await createUtf8Database(admin, template);
  } finally {
    await admin.end();
  }

  const ds = await openDatabase(withDatabase(url, template), true);
  await ds.destroy();
}
