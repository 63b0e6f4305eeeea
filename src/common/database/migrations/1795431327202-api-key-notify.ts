import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 9: every change to an API key that can end its use (revoked, expiry,
 * scopes, hash or owner changed, row deleted, table truncated) sends a
 * notification on channel `api_keys` with the key's hash (`*` for a truncate),
 * so the in-process key caches of every server process drop it (api-key.cache.ts).
 * A trigger, not application code: CLI commands and direct SQL notify as well.
 * The once-a-minute `last_used_at` refresh does not notify.
 */
export class ApiKeyNotify1795431327202 implements MigrationInterface {
  name = 'ApiKeyNotify1795431327202';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION api_keys_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          PERFORM pg_notify('api_keys', '*');
        ELSE
          PERFORM pg_notify('api_keys', OLD.key_hash);
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER api_keys_notify_change AFTER UPDATE ON api_keys FOR EACH ROW
        WHEN ((OLD.key_hash, OLD.user_id, OLD.scopes, OLD.expires_at, OLD.revoked_at)
              IS DISTINCT FROM (NEW.key_hash, NEW.user_id, NEW.scopes, NEW.expires_at, NEW.revoked_at))
        EXECUTE FUNCTION api_keys_notify();
      CREATE TRIGGER api_keys_notify_delete AFTER DELETE ON api_keys FOR EACH ROW EXECUTE FUNCTION api_keys_notify();
      CREATE TRIGGER api_keys_notify_truncate AFTER TRUNCATE ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION api_keys_notify();
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER api_keys_notify_truncate ON api_keys;
      DROP TRIGGER api_keys_notify_delete ON api_keys;
      DROP TRIGGER api_keys_notify_change ON api_keys;
      DROP FUNCTION api_keys_notify();
    `);
  }
}
