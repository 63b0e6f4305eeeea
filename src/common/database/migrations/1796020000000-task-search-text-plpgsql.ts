import { MigrationInterface, QueryRunner } from 'typeorm';

/** The search text of a task (a `q` term is matched against it): the title and the description's text outside tags, lower-cased. */
const BODY = `lower(title || E'\\n' || COALESCE(
                 replace(replace(replace(replace(regexp_replace(description, '<[^>]*>', '', 'g'),
                   '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&amp;', '&'), ''))`;

/**
 * Issue 37 (create and update task's cost in PostgreSQL): `task_search_text`, the
 * expression of the generated column `tasks.search_text`, becomes a PL/pgSQL
 * function with the same result. As an SQL function PostgreSQL inlined it into
 * the column's expression, parsing and planning its body again each time a
 * statement that writes tasks started (about 150,000 instructions, 3% of a
 * create); PL/pgSQL plans it once per connection. Stored values stay valid: the
 * function gives the same text for the same title and description.
 */
export class TaskSearchTextPlpgsql1796020000000 implements MigrationInterface {
  name = 'TaskSearchTextPlpgsql1796020000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION task_search_text(title text, description text) RETURNS text
        LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$ BEGIN RETURN ${BODY}; END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION task_search_text(title text, description text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT ${BODY} $$`);
  }
}
