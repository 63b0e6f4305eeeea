import { rmSync } from 'fs';
import { Client } from 'pg';

import type { EmbeddedRun } from './global-setup';

/** Jest global teardown: drops this run's template, then stops and removes the embedded PostgreSQL the setup started, if any. */
export default async function globalTeardown(): Promise<void> {
  const url = process.env.TEST_PG_ADMIN_URL;
  const template = process.env.TEST_PG_TEMPLATE_DB;
  if (url && template) {
    const admin = new Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await admin.end();
  }
  const pg = (globalThis as { __EMBEDDED_PG__?: EmbeddedRun }).__EMBEDDED_PG__;
  if (pg) {
    await pg.stop();
    rmSync(pg.dir, { recursive: true, force: true });
  }
}
