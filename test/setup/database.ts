import { randomBytes } from 'crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';

import { openDatabase } from '../../src/common/database/data-source';

/** Name of this run's migrated template database, which every test file's database is cloned from. */
export function templateDb(): string {
  const name = process.env.TEST_PG_TEMPLATE_DB;
  if (!name) throw new Error('TEST_PG_TEMPLATE_DB is not set: run the tests through jest (global setup)');
  return name;
}

/** Admin URL of the test PostgreSQL server, set by the global setup. */
export function adminUrl(): string {
  const url = process.env.TEST_PG_ADMIN_URL;
  if (!url) throw new Error('TEST_PG_ADMIN_URL is not set: run the tests through jest (global setup)');
  return url;
}

/** `url` with its database name replaced by `db`. */
export function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = '/' + db;
  return u.toString();
}

/** Runs `fn` on a short-lived admin connection. */
export async function withAdmin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  /** Connection URL of this file's own database. */
  url: string;
  /** An open DataSource on it (migrated: cloned from the template). */
  ds: DataSource;
  /** Closes the DataSource and drops the database. */
  drop(): Promise<void>;
}

/** A fresh, migrated database of its own for one test file (a clone of the template). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `wt_test_${randomBytes(6).toString('hex')}`;
  await withAdmin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${templateDb()}`));
  const url = withDatabase(adminUrl(), name);
  const ds = await openDatabase(url, false);
  return {
    url,
    ds,
    async drop() {
      if (ds.isInitialized) await ds.destroy();
      await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
