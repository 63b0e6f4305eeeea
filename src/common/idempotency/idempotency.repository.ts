import { Injectable, Logger, OnModuleInit } from '@nestjs/common';

import type { AppEnv } from '../../config/env';
import { InjectSettings } from '../../config/settings';
import { inBatches, ScheduledTasks } from '../background/scheduled-tasks';
import type { Db } from '../database/request-db';
import { Sql } from '../database/sql';

/** A stored answer to replay. */
export interface StoredAnswer {
  status: number;
  body: string;
  etag: string | null;
}

/** What claiming a key found (D35). */
export type Claim = { kind: 'claimed' } | { kind: 'other-request' } | { kind: 'in-progress' } | { kind: 'stored'; answer: StoredAnswer };

/** When expired keys are deleted (cron: every minute, by one process). */
const PRUNE_CRON = '* * * * *';
/** How long one pruning run goes on at most (the next one continues). */
const PRUNE_BUDGET_MS = 50_000;
/** How often a claim is tried when racing claims keep changing the row under it. */
const CLAIM_ATTEMPTS = 5;
/** Rows one statement of a pruning run deletes at most. */
const PRUNE_BATCH = 5_000;

/**
 * One statement: claims (api key, key) for `token` when the key is unused, its
 * answer expired, or its claim is stale (no answer REQUEST_TIMEOUT_MS after it
 * was claimed: its request died); else returns the row as it is. A claim
 * expires no sooner than it turns stale, so a short TTL never frees a running one. The second
 * branch reads the statement's snapshot, which misses a row committed after it
 * began: then no row comes back and the claim is tried again.
 */
const CLAIM_SQL = `
  WITH claim AS (
    INSERT INTO idempotency_keys AS k (api_key_id, key, fingerprint, token, claimed_at, expires_at)
    VALUES ($1, $2, $3, $4, now(), now() + make_interval(secs => greatest($5::float8, $6::float8)))
    ON CONFLICT (api_key_id, key) DO UPDATE
       SET fingerprint = EXCLUDED.fingerprint, token = EXCLUDED.token, claimed_at = EXCLUDED.claimed_at,
           expires_at = EXCLUDED.expires_at, status = NULL, body = NULL, etag = NULL
     WHERE k.expires_at <= now() OR (k.status IS NULL AND k.claimed_at <= now() - make_interval(secs => $6::float8))
    RETURNING 1)
  SELECT true AS claimed, NULL::bytea AS fingerprint, NULL::smallint AS status, NULL::text AS body, NULL::text AS etag FROM claim
  UNION ALL
  SELECT false, k.fingerprint, k.status, k.body, k.etag FROM idempotency_keys k
   WHERE k.api_key_id = $1 AND k.key = $2 AND NOT EXISTS (SELECT 1 FROM claim)`;

/** Idempotency-Key claims and stored answers (D35), in PostgreSQL so that every process sees them. */
@Injectable()
export class IdempotencyRepository implements OnModuleInit {
  private readonly logger = new Logger(IdempotencyRepository.name);
  private readonly ttlSeconds: number;
  private readonly staleSeconds: number;

  constructor(
    private readonly sql: Sql,
    private readonly scheduled: ScheduledTasks,
    @InjectSettings() env: AppEnv,
  ) {
    this.ttlSeconds = env.idempotencyTtlSeconds;
    this.staleSeconds = env.timeouts.request / 1000;
  }

  /** Claims `key` of API key `apiKeyId` for the request `fingerprint`, or says why not. One round trip (more when it races other claims). */
  async claim(apiKeyId: number, key: string, fingerprint: Buffer, token: string): Promise<Claim> {
    for (let attempt = 1; ; attempt++) {
      const rows: { claimed: boolean; fingerprint: Buffer | null; status: number | null; body: string | null; etag: string | null }[] = await this.sql.rows(
        CLAIM_SQL,
        [apiKeyId, key, fingerprint, token, this.ttlSeconds, this.staleSeconds],
      );
      const row = rows[0];
      // A row committed or released by a racing request since the statement began: look again (a few times).
      if (!row) {
        if (attempt < CLAIM_ATTEMPTS) continue;
        return { kind: 'in-progress' };
      }
      if (row.claimed) return { kind: 'claimed' };
      if (!row.fingerprint!.equals(fingerprint)) return { kind: 'other-request' };
      if (row.status === null) return { kind: 'in-progress' };
      return { kind: 'stored', answer: { status: row.status, body: row.body!, etag: row.etag } };
    }
  }

  /**
   * Stores the answer over the claim of `token` on `db` (a 2xx: the write's own
   * transaction, D35; a 4xx: the request's connection after its rollback; by default the shared pool). False when the claim is no longer this request's (taken over as stale).
   */
  async store(apiKeyId: number, key: string, token: string, answer: StoredAnswer, db: Db = this.sql): Promise<boolean> {
    const rows = await db.rows(
      `UPDATE idempotency_keys SET status = $4, body = $5, etag = $6, expires_at = clock_timestamp() + make_interval(secs => $7)
        WHERE api_key_id = $1 AND key = $2 AND token = $3 RETURNING 1`,
      [apiKeyId, key, token, answer.status, answer.body, answer.etag, this.ttlSeconds],
    );
    return rows.length === 1;
  }

  /** Gives up the claim of `token` on `db` (its request got an answer that is not stored): a retry runs anew. */
  async release(apiKeyId: number, key: string, token: string, db: Db = this.sql): Promise<void> {
    await db.rows(`DELETE FROM idempotency_keys WHERE api_key_id = $1 AND key = $2 AND token = $3 AND status IS NULL`, [apiKeyId, key, token]);
  }

  /** Deletes every expired key, PRUNE_BATCH rows a statement, for at most PRUNE_BUDGET_MS; returns how many went. */
  async prune(): Promise<number> {
    return inBatches(
      async (size) =>
        (
          await this.sql.rows(
            `DELETE FROM idempotency_keys WHERE ctid = ANY(ARRAY(
               SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT $1)) RETURNING 1`,
            [size],
          )
        ).length,
      PRUNE_BATCH,
      PRUNE_BUDGET_MS,
    );
  }

  /** Prunes on the job queue's crontab, every minute (a failure is logged by the queue and the next minute runs again). */
  onModuleInit(): void {
    this.scheduled.register({
      name: 'prune_idempotency_keys',
      match: PRUNE_CRON,
      run: async () => {
        const pruned = await this.prune();
        if (pruned > 0) this.logger.log(`Pruned ${pruned} expired idempotency keys`);
        return pruned;
      },
    });
  }
}
