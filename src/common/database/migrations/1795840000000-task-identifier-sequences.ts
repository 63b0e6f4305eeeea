import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 16, D15: each workspace's task identifiers come from a sequence of its
 * own (`task_identifier_<workspace id>`) instead of the `task_counter` column.
 * The column's UPDATE held the workspace row locked until the create committed,
 * so the creates of one workspace ran one at a time, commit included; nextval
 * is not rolled back and holds no lock until commit, so they now run side by
 * side. Identifiers stay unique and are never handed out again; a create that
 * fails after drawing one leaves a gap.
 *
 * A trigger creates the sequence with the workspace and drops it with it.
 * `task_identifier_sequence(workspace_id)` names it for nextval and setval.
 */
export class TaskIdentifierSequences1795840000000 implements MigrationInterface {
  name = 'TaskIdentifierSequences1795840000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION task_identifier_sequence(workspace_id integer) RETURNS regclass
        LANGUAGE sql STABLE AS $$ SELECT format('task_identifier_%s', workspace_id)::regclass $$;

      CREATE FUNCTION workspaces_identifier_sequence() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          EXECUTE format('CREATE SEQUENCE %I AS integer', 'task_identifier_' || NEW.id);
        ELSE
          EXECUTE format('DROP SEQUENCE IF EXISTS %I', 'task_identifier_' || OLD.id);
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER workspaces_identifier_sequence AFTER INSERT OR DELETE ON workspaces
        FOR EACH ROW EXECUTE FUNCTION workspaces_identifier_sequence();

      DO $$
      DECLARE w record;
      BEGIN
        FOR w IN SELECT id, task_counter FROM workspaces LOOP
          EXECUTE format('CREATE SEQUENCE %I AS integer', 'task_identifier_' || w.id);
          IF w.task_counter > 0 THEN PERFORM setval(task_identifier_sequence(w.id), w.task_counter); END IF;
        END LOOP;
      END $$;
      ALTER TABLE workspaces DROP COLUMN task_counter;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE workspaces ADD COLUMN task_counter integer NOT NULL DEFAULT 0;
      DO $$
      DECLARE w record;
      BEGIN
        FOR w IN SELECT id FROM workspaces LOOP
          UPDATE workspaces SET task_counter = COALESCE(pg_sequence_last_value(task_identifier_sequence(w.id)), 0) WHERE id = w.id;
          EXECUTE format('DROP SEQUENCE %I', 'task_identifier_' || w.id);
        END LOOP;
      END $$;
      DROP TRIGGER workspaces_identifier_sequence ON workspaces;
      DROP FUNCTION workspaces_identifier_sequence();
      DROP FUNCTION task_identifier_sequence(integer);
    `);
  }
}
