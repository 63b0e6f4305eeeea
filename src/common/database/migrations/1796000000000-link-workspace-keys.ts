import { MigrationInterface, QueryRunner } from 'typeorm';

/** The task link tables whose `workspace_id` copies their task's. */
const LINK_TABLES = ['task_assignees', 'task_labels', 'task_custom_field_values'] as const;

/**
 * Issue 37 (create task's cost in PostgreSQL): the link tables' `workspace_id`
 * (a copy of the task's) loses its foreign key and its index. The key checked
 * nothing the task's own key does not (a link row goes with its task, and its
 * task with the workspace, by cascade), yet every assignee, label and value
 * written paid a key check (a row lock on the workspace) and an index insert:
 * 7 of each for the benchmark's create with 3 assignees and 4 values. The
 * column stays; the statements that filter by it also filter by an indexed
 * column (`user_id`, `field_id`).
 */
export class LinkWorkspaceKeys1796000000000 implements MigrationInterface {
  name = 'LinkWorkspaceKeys1796000000000';

  async up(q: QueryRunner): Promise<void> {
    for (const table of LINK_TABLES) {
      await q.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_workspace_id_fkey`);
      await q.query(`DROP INDEX ${table}_workspace_id_idx`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of LINK_TABLES) {
      await q.query(`ALTER TABLE ${table} ADD CONSTRAINT ${table}_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE`);
      await q.query(`CREATE INDEX ${table}_workspace_id_idx ON ${table} (workspace_id)`);
    }
  }
}
