import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 37: `sort=title` over top-level tasks (the default rows of List tasks) walks an index of
 * top-level tasks only. The title index of migration 1795500000000 holds subtasks too (it serves
 * `include_subtasks=true`); in the benchmark world scaled ×20 their titles sort first, so the first
 * page of `sort=title` read 333,320 subtasks before the first row (0.8-1.5 s); with this index it
 * reads the page's rows only. Other sort keys interleave subtasks with top-level tasks and skip a
 * third of their rows at most; they keep their one index.
 */
export class TaskTopLevelTitleIndex1795970000000 implements MigrationInterface {
  name = 'TaskTopLevelTitleIndex1795970000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX tasks_workspace_top_title_idx ON tasks (workspace_id, lower(title COLLATE "C"), id) WHERE parent_id IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX tasks_workspace_top_title_idx`);
  }
}
