import { Injectable } from '@nestjs/common';

import type { Db } from '../common/database/request-db';
import { SqlParams } from '../common/database/sql-params';
import type { ApiKeyDto } from './api-keys.dto';

/** D46: the most unrevoked, unexpired keys a user may hold. */
export const MAX_ACTIVE_KEYS = 100;

/** D46: the key object of `k` (api_keys), scopes ascending (byte order). */
const KEY_JSON = `json_build_object('id', k.id, 'name', k.name, 'last4', k.last4,
  'scopes', ARRAY(SELECT s FROM unnest(k.scopes) s ORDER BY s COLLATE "C"),
  'expires_at', api_ts(k.expires_at), 'created_at', api_ts(k.created_at), 'last_used_at', api_ts(k.last_used_at))`;

/** What a create statement found and did. */
export interface CreateKeyResult {
  /** The calling key is gone (revoked or deleted meanwhile): null. Else whether the requested expiry is later than the calling key's. */
  too_late: boolean | null;
  /** The user's active keys before this one (null when the statement stopped before counting). */
  active: number | null;
  key: ApiKeyDto | null;
}

/** SQL of API keys through the API (D46). */
@Injectable()
export class ApiKeysRepository {
  /**
   * D46 create, in one statement: the expiry (`expiresAt` undefined: the calling key's; null: none) must
   * not be later than the calling key's; then, holding the user's row lock (creates of one user queue
   * there), the user's active keys are counted afresh (api_keys_active_count) and the key is inserted
   * only while they are fewer than MAX_ACTIVE_KEYS.
   */
  async create(
    userId: number,
    callingKeyId: number,
    key: { hash: string; last4: string; name: string; scopes: string[]; expiresAt: string | null | undefined },
    db: Db,
  ): Promise<CreateKeyResult> {
    const p = new SqlParams();
    const sent = p.add(key.expiresAt !== undefined, 'boolean');
    const expires = p.add(key.expiresAt ?? null, 'timestamptz');
    const user = p.add(userId, 'int');
    const sql = `WITH
      calling AS (SELECT expires_at FROM api_keys WHERE id = ${p.add(callingKeyId, 'int')} AND revoked_at IS NULL),
      expiry AS (SELECT CASE WHEN ${sent} THEN ${expires} ELSE c.expires_at END AS expires_at,
                        ${sent} AND c.expires_at IS NOT NULL AND (${expires} IS NULL OR ${expires} > c.expires_at) AS too_late
                   FROM calling c),
      owner AS MATERIALIZED (SELECT u.id FROM users u, expiry e WHERE u.id = ${user} AND NOT e.too_late FOR NO KEY UPDATE OF u),
      active AS MATERIALIZED (SELECT api_keys_active_count(o.id) AS n FROM owner o),
      k AS (INSERT INTO api_keys (user_id, key_hash, last4, name, scopes, expires_at)
            SELECT ${user}, ${p.add(key.hash, 'text')}, ${p.add(key.last4, 'text')}, ${p.add(key.name, 'text')}, ${p.add(key.scopes, 'text[]')}, e.expires_at
              FROM expiry e, active a WHERE a.n < ${MAX_ACTIVE_KEYS}
            RETURNING *)
      SELECT (SELECT too_late FROM expiry) AS too_late, (SELECT n FROM active) AS active, (SELECT ${KEY_JSON} FROM k) AS key`;
    return (await db.rows<CreateKeyResult>(sql, p.values))[0];
  }

  /** D46 list: the user's unrevoked keys, expired ones included, by id, as JSON text. */
  async list(userId: number, db: Db): Promise<ApiKeyDto[]> {
    const rows = await db.rows<{ keys: ApiKeyDto[] }>(
      `SELECT COALESCE(json_agg(${KEY_JSON} ORDER BY k.id), '[]') AS keys FROM api_keys k WHERE k.user_id = $1 AND k.revoked_at IS NULL`,
      [userId],
    );
    return rows[0].keys;
  }

  /** D46 revoke: marks the user's unrevoked key `id` revoked; its hash, or null when there is no such key (the api_keys trigger tells every process). */
  async revoke(userId: number, id: number, db: Db): Promise<string | null> {
    const rows = await db.rows<{ key_hash: string }>(
      `WITH k AS (UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL RETURNING key_hash) SELECT key_hash FROM k`,
      [id, userId],
    );
    return rows[0]?.key_hash ?? null;
  }
}
