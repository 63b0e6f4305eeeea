import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 19: secrets the server creates for itself, one row per name, shared by
 * every process on the database. `cursor` signs task-listing cursors when
 * CURSOR_SECRET is not set (tasks/cursor-secret.ts): 64 hex digits made of two
 * `gen_random_uuid()` (PostgreSQL's strong random source, built in since 13,
 * no extension needed), i.e. 244 random bits, created once here, never a constant.
 */
export class ServerSecrets1795600000000 implements MigrationInterface {
  name = 'ServerSecrets1795600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE server_secrets (
        name text PRIMARY KEY,
        value text NOT NULL CHECK (length(value) >= 32)
      );
      INSERT INTO server_secrets (name, value)
        VALUES ('cursor', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE server_secrets`);
  }
}
