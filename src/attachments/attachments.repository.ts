import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import type { Operation } from '../common/access/access.policy';
import { accessCte, type AccessRead, type AccessRow, READ_PARAMS } from '../common/access/access.repository';
import { allowedSql } from '../common/access/access.sql';
import type { Db } from '../common/database/request-db';
import { Sql } from '../common/database/sql';
import { writeStatement } from '../common/database/write-statement';
import { Actor, statementEvent } from '../events/events.sql';
import { ATTACHMENT_ELEMENT, attachmentsSql } from '../tasks/tasks.sql';

/**
 * First half of the two-int advisory lock key that serializes D47's quota checks per
 * workspace (`(QUOTA_LOCK_NAMESPACE, workspace_id)`): 'ATCH', apart from every other lock.
 */
const QUOTA_LOCK_NAMESPACE = 0x41544348;

/** How long a multipart upload's bytes may wait for their row before an intent removes them (well past any request's life). */
const INTENT_DELAY = "interval '1 hour'";

/**
 * CTEs that queue the intent of the object `key` (queueIntent), with `gate` only when that condition
 * over the access row `a` holds, committed with their statement without waiting for its WAL flush
 * (set_config's local value holds for the statement's own transaction, commit included): the
 * upload's own commit flushes it (the WAL is written in order), and only a database crash before
 * that commit can lose it (then an orphan object may stay).
 */
function intentCtes(key: string, gate?: string): string {
  return `s AS (SELECT set_config('synchronous_commit', 'off', true)),
          i AS (INSERT INTO attachment_removals (storage_key, due_at) SELECT ${key}, now() + ${INTENT_DELAY} FROM s${gate ? `, a WHERE ${gate}` : ''})`;
}

/** How long after its expiry a replaced upload key is removed once more (clocks of storage servers differ). */
const UPLOAD_LINK_MARGIN = "interval '5 minutes'";

/** What a new attachment row holds. */
export interface NewAttachment {
  fileName: string;
  fileSize: number;
  mimeType: string;
  storageKey: string;
  /** Pending until then (a declaration); null: confirmed at once (a multipart upload). */
  expiresAt: Date | null;
}

/** The answer of an insert: the element, or why there is none. */
export type InsertResult = { element: string } | { refused: 'quota' | 'gone' };

/** An attachment as the storage side needs it. */
export interface StoredAttachment {
  id: number;
  storage_key: string | null;
  file_name: string;
  file_size: number;
  mime_type: string;
  confirmed: boolean;
}

/** A confirmed attachment with bytes, as its download link answers it. */
export interface DownloadableAttachment {
  storage_key: string;
  file_size: number;
  file_name: string;
  mime_type: string;
}

/** AttachmentsRepository.insert's statement (after the quota lock). */
const INSERT = writeStatement<{ actor: Actor; taskId: number; row: NewAttachment; quotaBytes: number }, { element: string | null; task: boolean }>(
  'attachment.insert',
  (i) => (i.row.expiresAt === null ? 'confirmed' : 'pending'),
  (w, { row: sample }) => {
    const size = w.arg((i) => i.row.fileSize, 'bigint');
    const quota = w.arg((i) => i.quotaBytes, 'bigint');
    w.lock('tk', 'tasks', `MATERIALIZED (SELECT t.id, t.workspace_id, t.list_id FROM tasks t WHERE t.id = ${w.arg((i) => i.taskId, 'int')} FOR KEY SHARE)`)
      .check(
        'used',
        `MATERIALIZED (
         SELECT COALESCE(sum(x.file_size), 0) AS bytes FROM attachments x
          WHERE ${quota} > 0 AND x.workspace_id = (SELECT tk.workspace_id FROM tk) AND (x.confirmed OR x.expires_at > now()))`,
      )
      .write(
        'a',
        `(
         INSERT INTO attachments (workspace_id, task_id, uploader_id, file_name, file_size, mime_type, confirmed, expires_at, storage_key)
         SELECT tk.workspace_id, tk.id, ${w.arg((i) => i.actor.userId, 'int')}, ${w.arg((i) => i.row.fileName, 'text')}, ${size}, ${w.arg((i) => i.row.mimeType, 'text')},
                ${w.arg((i) => i.row.expiresAt === null, 'boolean')}, ${w.arg((i) => i.row.expiresAt, 'timestamptz')}, ${w.arg((i) => i.row.storageKey, 'text')}
           FROM tk, used WHERE ${quota} = 0 OR used.bytes + ${size} <= ${quota}
         RETURNING *)`,
      );
    const sealed =
      sample.expiresAt === null
        ? w.event(
            statementEvent({
              type: 'attachment.created',
              from: 'a JOIN tk ON tk.id = a.task_id',
              reads: ['a', 'tk'],
              workspace: 'a.workspace_id',
              data: { attachment_id: 'a.id', task_id: 'a.task_id', list_id: 'tk.list_id' },
            }),
          )
        : w.noEvent('a pending upload records attachment.created when it is confirmed');
    return sealed.select(`(SELECT ${ATTACHMENT_ELEMENT} FROM a JOIN users au ON au.id = a.uploader_id) AS element, EXISTS (SELECT 1 FROM tk) AS task`);
  },
);

/**
 * AttachmentsRepository.confirm's statement: the bytes move to `storageKey` when given (null: they stay), and
 * the upload key is then queued for removal now and again after its link expired (a PUT through the link
 * meanwhile leaves no orphan).
 */
const CONFIRM = writeStatement<{ actor: Actor; id: number; storageKey: string | null }, { element: string }>(
  'attachment.confirm',
  () => '',
  (w) =>
    w
      .check('o', `(SELECT storage_key, expires_at FROM attachments WHERE id = ${w.arg((i) => i.id, 'int')})`)
      .write(
        'c',
        `(UPDATE attachments SET confirmed = true, expires_at = NULL, storage_key = COALESCE(${w.arg((i) => i.storageKey, 'text')}, storage_key)
                   WHERE id = ${w.arg((i) => i.id, 'int')} AND NOT confirmed RETURNING *)`,
      )
      .write(
        'r',
        `(INSERT INTO attachment_removals (storage_key, due_at)
                   SELECT o.storage_key, due FROM o JOIN c ON c.storage_key <> o.storage_key,
                          unnest(ARRAY[now(), o.expires_at + ${UPLOAD_LINK_MARGIN}]) AS due
                 RETURNING storage_key)`,
      )
      .event(
        statementEvent({
          type: 'attachment.created',
          from: 'c JOIN tasks tk ON tk.id = c.task_id',
          reads: ['c'],
          workspace: 'c.workspace_id',
          data: { attachment_id: 'c.id', task_id: 'c.task_id', list_id: 'tk.list_id' },
        }),
      ).select(`${ATTACHMENT_ELEMENT} AS element FROM attachments a JOIN users au ON au.id = a.uploader_id
        WHERE a.id = ${w.arg((i) => i.id, 'int')}`),
);

/** AttachmentsRepository.delete's statement. */
const DELETE = writeStatement<{ actor: Actor; id: number }, { deleted: number }>(
  'attachment.delete',
  () => '',
  (w) =>
    w
      .write('d', `(DELETE FROM attachments WHERE id = ${w.arg((i) => i.id, 'int')} AND (confirmed OR expires_at > now()) RETURNING *)`)
      .check('dc', '(SELECT d.*, tk.list_id FROM d JOIN tasks tk ON tk.id = d.task_id WHERE d.confirmed)')
      .event(
        statementEvent({
          type: 'attachment.deleted',
          from: 'dc',
          reads: ['dc', 'd'],
          workspace: 'dc.workspace_id',
          data: { attachment_id: 'dc.id', task_id: 'dc.task_id', list_id: 'dc.list_id' },
        }),
      )
      .select('(SELECT count(*) FROM d)::int AS deleted'),
);

/** The write statements of attachments. */
export const ATTACHMENT_WRITES = [INSERT, CONFIRM, DELETE];

/** SQL of attachments (D47). */
@Injectable()
export class AttachmentsRepository {
  constructor(private readonly sql: Sql) {}

  /** List attachments, read inside the access check's statement: the task's confirmed attachments, oldest first (created_at, id). */
  readonly byTaskRead: AccessRead = { sql: attachmentsSql(READ_PARAMS.id), tagged: false };

  /**
   * D47 download, read inside the access check's statement (the check found the attachment, pending
   * or confirmed): what its storage needs, a StoredAttachment as JSON text.
   */
  readonly storedRead: AccessRead = {
    sql: `SELECT row_to_json(x)::text FROM (
            SELECT id, storage_key, file_name, file_size, mime_type, confirmed FROM attachments WHERE id = ${READ_PARAMS.id}) x`,
    tagged: false,
  };

  /**
   * Inserts an attachment on task `taskId` by `actor` in workspace `workspaceId`, in
   * `em`'s transaction. With a quota (`quotaBytes` > 0), the workspace's quota lock is
   * taken first in a statement of its own (so that the insert's snapshot sees every
   * upload that held it before), and the row goes in only when the workspace's
   * confirmed and unexpired pending bytes plus this one stay within it. A confirmed
   * insert records `attachment.created` (D47).
   */
  async insert(em: EntityManager, actor: Actor, workspaceId: number, taskId: number, row: NewAttachment, quotaBytes: number): Promise<InsertResult> {
    if (quotaBytes > 0) await em.query('SELECT pg_advisory_xact_lock($1::int, $2::int)', [QUOTA_LOCK_NAMESPACE, workspaceId]);
    const [result] = await INSERT.run(em, { actor, taskId, row, quotaBytes });
    if (result.element !== null) return { element: result.element };
    return { refused: result.task ? 'quota' : 'gone' };
  }

  /**
   * D47 confirm, first half, in `em`'s transaction: the attachment `id`, locked (so that an
   * upload link cannot replace its bytes while it is judged, and concurrent confirms queue);
   * null when it is gone or expired.
   */
  async lockForConfirm(em: EntityManager, id: number): Promise<StoredAttachment | null> {
    const rows: StoredAttachment[] = await em.query(
      `SELECT id, storage_key, file_name, file_size, mime_type, confirmed FROM attachments
        WHERE id = $1 AND (confirmed OR expires_at > now()) FOR UPDATE`,
      [id],
    );
    return rows[0] ?? null;
  }

  /**
   * D47 confirm, second half: marks the locked attachment `id` confirmed with its bytes under
   * `storageKey` (null: where they are), recording `attachment.created` when it was not
   * (concurrent confirms record one); the element. When the bytes moved to a new key, the
   * upload key is queued for removal now and again after its link expired (a PUT through
   * the link meanwhile leaves no orphan).
   */
  async confirm(em: EntityManager, actor: Actor, id: number, storageKey: string | null): Promise<string> {
    return (await CONFIRM.run(em, { actor, id, storageKey }))[0].element;
  }

  /**
   * Deletes attachment `id` (pending or confirmed), recording `attachment.deleted` for a
   * confirmed one (D47); its bytes are queued for removal by the table's trigger, in this
   * transaction. False when it was already gone.
   */
  async delete(actor: Actor, id: number, db: Db = this.sql): Promise<boolean> {
    return (await DELETE.run(db, { actor, id }))[0].deleted > 0;
  }

  /** What a download link of attachment `id` answers with: its key, size, name and type; null unless it is confirmed with bytes. */
  async downloadable(id: number): Promise<DownloadableAttachment | null> {
    const rows: DownloadableAttachment[] = await this.sql.rows(
      'SELECT storage_key, file_size, file_name, mime_type FROM attachments WHERE id = $1 AND confirmed AND storage_key IS NOT NULL',
      [id],
    );
    return rows[0] ?? null;
  }

  /**
   * Records that the bytes about to be stored under `key` must go unless a row comes to point
   * at them (D47: no orphan after a failed or rolled-back upload). On the pool, committed at
   * once: it outlives the request's own transaction.
   */
  async queueIntent(key: string): Promise<void> {
    await this.sql.rows(`WITH ${intentCtes('$1::text')} SELECT 1`, [key]);
  }

  /**
   * D47 upload of a multipart form: the access check of `operation` by user `userId` on task `taskId`
   * (its access row, for AccessService.answer; null when there is no such task) and, only when it
   * passes, queueIntent of `key`, in one statement on the pool (committed at once, as queueIntent).
   */
  async checkAndQueueIntent(operation: Operation, taskId: number, userId: number, key: string): Promise<AccessRow | null> {
    const rows: AccessRow[] = await this.sql.rows(
      `WITH ${accessCte('task', '$1::int', '$2::int')}, ${intentCtes('$3::text', allowedSql(operation))} SELECT a.* FROM a`,
      [taskId, userId, key],
    );
    return rows[0] ?? null;
  }

  /** Queues the removal of the bytes under `key` now (they were never pointed at, e.g. over quota). */
  async queueRemoval(key: string): Promise<void> {
    await this.sql.rows('INSERT INTO attachment_removals (storage_key) VALUES ($1)', [key]);
  }

  /**
   * Runs `remove` for up to `limit` due removals, each claimed by one process (SKIP LOCKED),
   * in one transaction: an entry goes once its bytes went, or at once when a row points at
   * its key (never removing bytes a row still points at). Returns how many were handled.
   */
  async processRemovals(limit: number, remove: (key: string) => Promise<void>): Promise<number> {
    return this.sql.withClient(async (client) => {
      await client.query('BEGIN');
      try {
        const { rows } = await client.query<{ id: string; storage_key: string; orphan: boolean }>(
          `SELECT r.id, r.storage_key, NOT EXISTS (SELECT 1 FROM attachments a WHERE a.storage_key = r.storage_key) AS orphan
             FROM attachment_removals r WHERE r.due_at <= now() ORDER BY r.due_at, r.id LIMIT $1 FOR UPDATE OF r SKIP LOCKED`,
          [limit],
        );
        const done: string[] = [];
        for (const row of rows) {
          if (row.orphan) await remove(row.storage_key);
          done.push(row.id);
        }
        if (done.length) await client.query('DELETE FROM attachment_removals WHERE id = ANY($1::bigint[])', [done]);
        await client.query('COMMIT');
        return rows.length;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /** D47: deletes up to `limit` expired pending attachments (fixtures' pending ones included); their bytes are queued by the trigger. */
  async reapExpired(limit: number): Promise<number> {
    const rows: { n: number }[] = await this.sql.rows(
      `WITH gone AS (DELETE FROM attachments WHERE id IN (
          SELECT id FROM attachments WHERE NOT confirmed AND (expires_at IS NULL OR expires_at <= now()) LIMIT $1) RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [limit],
    );
    return rows[0].n;
  }

  /** Removals waiting (metrics). */
  async removalQueueDepth(): Promise<number> {
    const rows: { n: number }[] = await this.sql.rows('SELECT count(*)::int AS n FROM attachment_removals', []);
    return rows[0].n;
  }

  /** Bytes of confirmed attachments (metrics). */
  async bytesStored(): Promise<number> {
    const rows: { n: number }[] = await this.sql.rows('SELECT COALESCE(sum(file_size), 0)::bigint AS n FROM attachments WHERE confirmed', []);
    return rows[0].n;
  }

  /**
   * The local driver's upload (D47): in one transaction, locks the pending, unexpired
   * attachment `id` and, while holding it, runs `replace` with its key and declared size
   * (the bytes are swapped in before any confirm can judge them). Null when the attachment
   * is confirmed, gone or expired (`replace` not run).
   */
  async withPendingUpload<T>(id: number, replace: (key: string, size: number) => Promise<T>): Promise<{ value: T } | null> {
    return this.sql.withClient(async (client) => {
      await client.query('BEGIN');
      try {
        const { rows } = await client.query<{ storage_key: string | null; file_size: number }>(
          `SELECT storage_key, file_size FROM attachments WHERE id = $1 AND NOT confirmed AND expires_at > now() FOR UPDATE`,
          [id],
        );
        if (rows.length === 0 || rows[0].storage_key === null) {
          await client.query('ROLLBACK');
          return null;
        }
        const value = await replace(rows[0].storage_key, Number(rows[0].file_size));
        await client.query('COMMIT');
        return { value };
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /** The declared size of the pending, unexpired attachment `id` (an upload link's check before reading any byte); null otherwise. */
  async pendingSize(id: number): Promise<number | null> {
    const rows: { file_size: number }[] = await this.sql.rows(
      'SELECT file_size FROM attachments WHERE id = $1 AND NOT confirmed AND expires_at > now() AND storage_key IS NOT NULL',
      [id],
    );
    return rows.length ? Number(rows[0].file_size) : null;
  }
}
