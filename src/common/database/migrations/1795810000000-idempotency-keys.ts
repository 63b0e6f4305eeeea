import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * D35: Idempotency-Key claims and stored answers, per API key. A row is claimed
 * (committed on its own) before the request runs: `token` names the claimant,
 * `status` is null while it runs. The answer is written over the claim, for a
 * 2xx in the same transaction as the write it reports. `expires_at` is when the
 * row stops counting (IDEMPOTENCY_TTL_SECONDS after the claim, then after the
 * answer was stored); expired rows are pruned in the background.
 */
export class IdempotencyKeys1795810000000 implements MigrationInterface {
  name = 'IdempotencyKeys1795810000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE idempotency_keys (
        api_key_id  integer NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
        key         text NOT NULL,
        fingerprint bytea NOT NULL,
        token       uuid NOT NULL,
        claimed_at  timestamptz NOT NULL,
        expires_at  timestamptz NOT NULL,
        status      smallint,
        body        text,
        etag        text,
        PRIMARY KEY (api_key_id, key)
      );
      -- The background prune deletes by age.
      CREATE INDEX idempotency_keys_expires_at_idx ON idempotency_keys (expires_at);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE idempotency_keys`);
  }
}
