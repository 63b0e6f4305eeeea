import { Injectable } from '@nestjs/common';

import type { Db } from '../common/database/request-db';
import { type WriteDb, writeStatement } from '../common/database/write-statement';
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

/** A new key's stored values (the plain key is never stored, D20). */
export interface NewKey {
  hash: string;
  last4: string;
  name: string | null;
  scopes: string[];
  /** undefined: the calling key's expiry; null: none. */
  expiresAt: string | null | undefined;
}

/** Why no API-key write records an event. */
const NO_EVENT = 'D37/D48 have no API-key events: keys belong to users, not to a workspace';

type CreateInput = { userId: number; callingKeyId: number | null; key: NewKey };

/**
 * ApiKeysRepository.create's statement: the expiry (`expiresAt` undefined: the calling key's; null: none)
 * must not be later than the calling key's (no calling key: an operator's command, the expiry as given);
 * then, holding the user's row lock (creates of one user queue there), the user's active keys are counted
 * afresh (api_keys_active_count) and the key is inserted only while they are fewer than MAX_ACTIVE_KEYS.
 */
const CREATE = writeStatement<CreateInput, CreateKeyResult>(
  'api_key.insert',
  () => '',
  (w) => {
    const calling = w.arg((i) => i.callingKeyId, 'int');
    const sent = w.arg((i) => i.key.expiresAt !== undefined, 'boolean');
    const expires = w.arg((i) => i.key.expiresAt ?? null, 'timestamptz');
    const user = w.arg((i) => i.userId, 'int');
    return w
      .access(
        'calling',
        `(SELECT expires_at FROM api_keys WHERE id = ${calling} AND revoked_at IS NULL
          UNION ALL SELECT NULL::timestamptz WHERE ${calling} IS NULL)`,
      )
      .check(
        'expiry',
        `(SELECT CASE WHEN ${sent} THEN ${expires} ELSE c.expires_at END AS expires_at,
                 ${sent} AND c.expires_at IS NOT NULL AND (${expires} IS NULL OR ${expires} > c.expires_at) AS too_late
            FROM calling c)`,
      )
      .lock('owner', 'users', `MATERIALIZED (SELECT u.id FROM users u, expiry e WHERE u.id = ${user} AND NOT e.too_late FOR NO KEY UPDATE OF u)`)
      .check('active', 'MATERIALIZED (SELECT api_keys_active_count(o.id) AS n FROM owner o)')
      .write(
        'k',
        `(INSERT INTO api_keys (user_id, key_hash, last4, name, scopes, expires_at)
          SELECT ${user}, ${w.arg((i) => i.key.hash, 'text')}, ${w.arg((i) => i.key.last4, 'text')}, ${w.arg((i) => i.key.name, 'text')},
                 ${w.arg((i) => i.key.scopes, 'text[]')}, e.expires_at
            FROM expiry e, active a WHERE a.n < ${MAX_ACTIVE_KEYS}
          RETURNING *)`,
      )
      .noEvent(NO_EVENT)
      .select(`(SELECT too_late FROM expiry) AS too_late, (SELECT n FROM active) AS active, (SELECT ${KEY_JSON} FROM k) AS key`);
  },
);

/** ApiKeysRepository.revoke's statement: an unrevoked key (of the user, when one is named) marked revoked; its hash. */
const REVOKE = writeStatement<{ userId: number | null; id: number }, { key_hash: string }>(
  'api_key.revoke',
  () => '',
  (w) => {
    const user = w.arg((i) => i.userId, 'int');
    return w
      .write(
        'k',
        `(UPDATE api_keys SET revoked_at = now()
           WHERE id = ${w.arg((i) => i.id, 'int')} AND (${user} IS NULL OR user_id = ${user}) AND revoked_at IS NULL
          RETURNING key_hash)`,
      )
      .noEvent(NO_EVENT)
      .select('key_hash FROM k');
  },
);

/** ApiKeysRepository.widenActive's statement. */
const WIDEN = writeStatement<{ hash: string; scopes: string[] }, { active: boolean }>(
  'api_key.widen',
  () => '',
  (w) => {
    const scopes = w.arg((i) => i.scopes, 'text[]');
    return w
      .check(
        'k',
        `MATERIALIZED (SELECT id FROM api_keys
          WHERE key_hash = ${w.arg((i) => i.hash, 'text')} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()))`,
      )
      .write('widened', `(UPDATE api_keys t SET scopes = ${scopes} FROM k WHERE t.id = k.id AND NOT t.scopes @> ${scopes} RETURNING 1)`)
      .noEvent(NO_EVENT)
      .select('EXISTS (SELECT 1 FROM k) AS active');
  },
);

/** The write statements of API keys. */
export const API_KEY_WRITES = [CREATE, REVOKE, WIDEN];

/** SQL of API keys (D46), for the API and the operator commands (D32) alike. */
@Injectable()
export class ApiKeysRepository {
  /**
   * D46 create, in one statement (see CREATE): for the key user `userId` through their calling key
   * `callingKeyId`, or (null) by an operator's command: then the expiry is `key.expiresAt` as given.
   * The user's active keys count either way. `active` null: no such user (or the expiry was refused).
   */
  async create(userId: number, callingKeyId: number | null, key: NewKey, db: WriteDb): Promise<CreateKeyResult> {
    return (await CREATE.run(db, { userId, callingKeyId, key }))[0];
  }

  /** D46 list: the user's unrevoked keys, expired ones included, by id, as JSON text. */
  async list(userId: number, db: Db): Promise<ApiKeyDto[]> {
    const rows = await db.rows<{ keys: ApiKeyDto[] }>(
      `SELECT COALESCE(json_agg(${KEY_JSON} ORDER BY k.id), '[]') AS keys FROM api_keys k WHERE k.user_id = $1 AND k.revoked_at IS NULL`,
      [userId],
    );
    return rows[0].keys;
  }

  /**
   * D46 revoke: marks the unrevoked key `id` of user `userId` (null: of any user, an operator's command)
   * revoked; its hash, or null when there is no such key (the api_keys trigger tells every process).
   */
  async revoke(userId: number | null, id: number, db: WriteDb): Promise<string | null> {
    return (await REVOKE.run(db, { userId, id }))[0]?.key_hash ?? null;
  }

  /**
   * Whether the key of hash `hash` is active (unrevoked, unexpired); when it is, its scopes become
   * `scopes` unless it holds them all already (the demo key saved by an earlier version, D32).
   */
  async widenActive(hash: string, scopes: string[], db: WriteDb): Promise<boolean> {
    return (await WIDEN.run(db, { hash, scopes }))[0].active;
  }
}
