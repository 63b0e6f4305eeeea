import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 36 (D47): attachments get their bytes.
 *
 * - `storage_key`: the object's random key in the storage driver (never the
 *   file name); null for rows without bytes (fixtures).
 * - `expires_at`: a pending (unconfirmed) upload's deadline; a pending row with
 *   none (a fixture's) counts as expired. Expired pending rows are invisible
 *   everywhere and reaped in the background.
 * - `attachment_removals`: the durable queue of objects whose bytes must go.
 *   An AFTER DELETE trigger on `attachments` fills it, so every way a row
 *   goes (attachment delete, the cascades of task, list, folder and workspace
 *   deletes, the reaper) queues its bytes in the same transaction: a rollback
 *   queues nothing, a commit cannot lose the removal. The trigger also wakes
 *   the job queue (graphile-worker `attachment_removals`), which removes the
 *   bytes after the commit, and never those a row still points at. Rows with
 *   a later `due_at` are intents: bytes written before their row commits, removed
 *   only if no row came to point at them.
 * - `files` server secret: signs the local driver's `/files/` links.
 */
export class AttachmentStorage1795960000000 implements MigrationInterface {
  name = 'AttachmentStorage1795960000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE attachments ADD COLUMN storage_key text, ADD COLUMN expires_at timestamptz;
      CREATE UNIQUE INDEX attachments_storage_key_key ON attachments (storage_key);
      -- The reaper: pending rows by deadline.
      CREATE INDEX attachments_pending_expires_idx ON attachments (expires_at) WHERE NOT confirmed;

      CREATE TABLE attachment_removals (
        id           bigserial PRIMARY KEY,
        storage_key  text NOT NULL,
        due_at       timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX attachment_removals_due_idx ON attachment_removals (due_at, id);
      CREATE INDEX attachment_removals_storage_key_idx ON attachment_removals (storage_key);

      CREATE FUNCTION attachments_queue_removal() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO attachment_removals (storage_key)
          SELECT o.storage_key FROM old_rows o WHERE o.storage_key IS NOT NULL;
        IF FOUND THEN
          PERFORM graphile_worker.add_job('attachment_removals', '{}'::json, job_key := 'attachment_removals');
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER attachments_removal AFTER DELETE ON attachments
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION attachments_queue_removal();

      INSERT INTO server_secrets (name, value)
        VALUES ('files', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DELETE FROM server_secrets WHERE name = 'files';
      DROP TRIGGER attachments_removal ON attachments;
      DROP FUNCTION attachments_queue_removal();
      DROP TABLE attachment_removals;
      DROP INDEX attachments_pending_expires_idx;
      DROP INDEX attachments_storage_key_key;
      ALTER TABLE attachments DROP COLUMN storage_key, DROP COLUMN expires_at;
    `);
  }
}
