import { MigrationInterface, QueryRunner } from 'typeorm';

/** Tables whose index-only scans (counts, assignee and label probes) need a visibility map kept up to date. */
const TABLES = ['tasks', 'task_assignees', 'task_labels'];

/**
 * Issue 37: the exact `total` of List tasks and the assignee and label filters are index-only scans;
 * they stay so only while the visibility map marks the table's pages all-visible, which VACUUM does.
 * PostgreSQL's defaults vacuum a table after inserts of 20% of its rows, or dead rows of 20%: in a
 * workspace of a million tasks, 200,000 new tasks, and until then every page written since the last
 * vacuum costs the count a heap fetch per row (65,932 measured at ×20 after a burst of creates).
 * Here autovacuum visits these tables after about 0.5% new rows (plus 1,000) or 1% dead rows (plus
 * 50), and analyzes them after 1% changed rows: a vacuum of a table that is nearly all-visible skips
 * its all-visible pages and, with few dead rows, its indexes (it also merges the trigram index's
 * pending list, which `q` reads). Takes effect only where autovacuum runs (on by default).
 */
export class TaskAutovacuum1795970000001 implements MigrationInterface {
  name = 'TaskAutovacuum1795970000001';

  async up(q: QueryRunner): Promise<void> {
    for (const table of TABLES) {
      await q.query(`ALTER TABLE ${table} SET (autovacuum_vacuum_insert_scale_factor = 0.005, autovacuum_vacuum_insert_threshold = 1000,
        autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 50, autovacuum_analyze_scale_factor = 0.01)`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of TABLES) {
      await q.query(`ALTER TABLE ${table} RESET (autovacuum_vacuum_insert_scale_factor, autovacuum_vacuum_insert_threshold,
        autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold, autovacuum_analyze_scale_factor)`);
    }
  }
}
