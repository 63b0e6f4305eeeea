import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { BACKGROUND_STATEMENT } from '../background/periodic';
import { isScope, type Scope } from './scope';

/** A stored API key as the guard needs it. */
export interface StoredApiKey {
  id: number;
  user_id: number;
  /** The key's scopes that the service knows (a stored name it does not know grants nothing). */
  scopes: readonly Scope[];
  expired: boolean;
  revoked: boolean;
  /** Milliseconds until `expires_at` by the database clock (negative when past); null when it never expires. */
  ms_left: number | null;
}

/** SQL for API keys. */
@Injectable()
export class AuthRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * The key with this SHA-256 hash, or null. One round trip: the lookup uses
   * the unique hash index, and `last_used_at` is refreshed in the same
   * statement at most once a minute (no write per request).
   */
  async findByHash(hash: string): Promise<StoredApiKey | null> {
    const rows: (Omit<StoredApiKey, 'scopes'> & { scopes: string[] })[] = await this.db.query(
      `WITH k AS (
         SELECT id, user_id, scopes, last_used_at,
                expires_at IS NOT NULL AND expires_at <= now() AS expired,
                (extract(epoch FROM expires_at - now()) * 1000)::float8 AS ms_left,
                revoked_at IS NOT NULL AS revoked
           FROM api_keys WHERE key_hash = $1
       ), touch AS (
         UPDATE api_keys SET last_used_at = now()
          WHERE id = (SELECT id FROM k WHERE NOT k.expired AND NOT k.revoked)
            AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
       )
       SELECT id, user_id, scopes, expired, revoked, ms_left FROM k`,
      [hash],
    );
    const row = rows[0];
    // Read once per lookup, so that a key answered from memory is not filtered again on every request.
    return row ? { ...row, scopes: row.scopes.filter(isScope) } : null;
  }

  /**
   * D46: sets `last_used_at` of keys `ids` to the request starts `at` (ISO timestamps, same order)
   * where that is later than the stored one. One statement for any number of keys; the
   * api_keys trigger does not notify for this column.
   */
  async touch(ids: number[], at: string[]): Promise<void> {
    await this.db.query(
      `${BACKGROUND_STATEMENT} WITH t AS (UPDATE api_keys k SET last_used_at = v.at FROM unnest($1::int[], $2::timestamptz[]) v(id, at)
                   WHERE k.id = v.id AND (k.last_used_at IS NULL OR k.last_used_at < v.at) RETURNING 1)
       SELECT count(*)::int AS n FROM t`,
      [ids, at],
    );
  }
}
