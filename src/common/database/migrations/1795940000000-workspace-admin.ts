import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 35, D40, D46: what writing workspaces and API keys through the API needs.
 *
 * - Workspace slugs are unique ignoring ASCII case (D40): the unique index is on
 *   `lower(slug COLLATE "C")` (the "C" collation lowers A-Z only; slugs written
 *   through the API are ASCII). Its name stays `workspaces_slug_key`.
 * - `api_keys.last4`: the key's last 4 characters, recorded when a key is made
 *   (API, CLI, fixtures); null for keys made before (their plain text was never seen).
 * - `api_keys_active_count(user)`: a user's unrevoked, unexpired keys (D46: at most
 *   100). VOLATILE, so that in READ COMMITTED it reads a snapshot of its own, taken
 *   when it is called: a create that first locks the user's row and then counts
 *   sees every key committed by the create it waited for (the statement's own
 *   snapshot, taken before the wait, would not).
 */
export class WorkspaceAdmin1795940000000 implements MigrationInterface {
  name = 'WorkspaceAdmin1795940000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX workspaces_slug_key;
      CREATE UNIQUE INDEX workspaces_slug_key ON workspaces (lower(slug COLLATE "C"));
      ALTER TABLE api_keys ADD COLUMN last4 text;
      CREATE FUNCTION api_keys_active_count(owner integer) RETURNS integer LANGUAGE sql VOLATILE AS $$
        SELECT count(*)::int FROM api_keys WHERE user_id = owner AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
      $$;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP FUNCTION api_keys_active_count(integer);
      ALTER TABLE api_keys DROP COLUMN last4;
      DROP INDEX workspaces_slug_key;
      CREATE UNIQUE INDEX workspaces_slug_key ON workspaces (slug);
    `);
  }
}
