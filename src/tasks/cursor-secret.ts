import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';

import type { AppEnv } from '../config/env';
import { InjectSettings } from '../config/settings';
import { useCursorSecret } from './task-cursor';

/** Something that runs SQL and returns rows (a DataSource, a QueryRunner). */
interface Queryable {
  query(sql: string): Promise<unknown[]>;
}

const UNDEFINED_TABLE = '42P01';

/** Start-up error when the database has no cursor secret yet: its migrations have not run. */
export const MISSING_CURSOR_SECRET = 'The database has no cursor secret: run the migrations (npm run cli -- migrate) or set CURSOR_SECRET';

/**
 * The secret that signs cursors: `configured` (CURSOR_SECRET) when set, else the random one the
 * migrations created in `server_secrets` (shared by every process on the database).
 *
 * @throws Error MISSING_CURSOR_SECRET when neither exists
 */
export async function readCursorSecret(db: Queryable, configured?: string): Promise<string> {
  if (configured !== undefined) return configured;
  const rows = (await db.query(`SELECT value FROM server_secrets WHERE name = 'cursor'`).catch((error: unknown) => {
    if ((error as { code?: string }).code === UNDEFINED_TABLE) return [];
    throw error;
  })) as { value: string }[];
  if (rows.length === 0) throw new Error(MISSING_CURSOR_SECRET);
  return rows[0].value;
}

/** Reads the cursor secret once when the application starts (after the migrations that run at start). */
@Injectable()
export class CursorSecretLoader implements OnModuleInit {
  constructor(
    private readonly db: DataSource,
    @InjectSettings() private readonly settings: AppEnv,
  ) {}

  async onModuleInit(): Promise<void> {
    useCursorSecret(await readCursorSecret(this.db, this.settings.cursorSecret));
  }
}
