import { Injectable } from '@nestjs/common';

import { type AccessRead, READ_PARAMS } from '../common/access/access.repository';
import { FieldsMatch, JsonField, jsonObjectSql, writeColumns } from '../common/database/field-table';
import { J } from '../common/database/json-sql';
import type { Db } from '../common/database/request-db';
import { Sql } from '../common/database/sql';
import { columnChanges, createValues, writeStatement } from '../common/database/write-statement';
import { RawJson } from '../common/http/raw-json';
import { Actor, statementEvent } from '../events/events.sql';
import type { CommentDto } from './comments.dto';

/**
 * spec: Comment, key by key in response order, over `comments c` joined with
 * its author `users u`, with the columns a create writes (field-table.ts).
 * The API's create takes only `content`: a comment created through it is
 * top-level and unresolved (the create values); fixtures may give the others.
 */
export const COMMENT_FIELDS = [
  { key: 'id', json: J.int('c.id') },
  { key: 'task_id', json: J.int('c.task_id') },
  { key: 'user_id', json: J.int('c.user_id') },
  { key: 'name', json: J.text('u.name') },
  { key: 'avatar_url', json: J.textOrNull('u.avatar_url') },
  { key: 'content', json: J.text('c.content'), write: { column: 'content', cast: 'text' } },
  { key: 'parent_comment_id', json: J.intOrNull('c.parent_comment_id'), write: { column: 'parent_comment_id', cast: 'int' } },
  { key: 'resolved', json: J.bool('c.resolved'), write: { column: 'resolved', cast: 'boolean', createDefault: () => 'false' } },
  { key: 'created_at', json: J.timestamp('c.created_at') },
] as const satisfies readonly JsonField<keyof CommentDto>[];

/** Fails to compile when COMMENT_FIELDS and the response disagree on a key. */
const FIELDS_MATCH_DTO: FieldsMatch<typeof COMMENT_FIELDS, CommentDto> = true;
void FIELDS_MATCH_DTO;

/** The columns a create writes (the API's and the fixture loader's). */
export const COMMENT_WRITES = writeColumns<keyof CommentDto>(COMMENT_FIELDS);

/**
 * The comment object as compact JSON text. Built by string concatenation
 * (json-sql.ts): a page of 10 comments costs PostgreSQL half the time of
 * json_agg over rows with api_ts columns (0.12 against 0.23 ms).
 */
const COMMENT_JSON = jsonObjectSql(COMMENT_FIELDS);

/** The columns an update writes (update comment's body: `content`, `resolved`), from the field table. */
const UPDATE_COLUMNS = COMMENT_WRITES.map((c) => c.column).filter((c) => c !== 'parent_comment_id');

/** The list of the comment row `c`'s task. */
const listOf = (c: string) => `(SELECT t.list_id FROM tasks t WHERE t.id = ${c}.task_id)`;

/** D44 update comment (CommentsRepository.update). */
const UPDATE = writeStatement<{ actor: Actor; id: number; content: string | null; resolved: boolean | null }, { allowed: boolean; json: string | null }>(
  'comment.update',
  () => '',
  (w) => {
    const text = w.arg((i) => i.content, 'text');
    const flag = w.arg((i) => i.resolved, 'boolean');
    return (
      w
        .lock('old', 'comments', `MATERIALIZED (SELECT c.* FROM comments c WHERE c.id = ${w.arg((i) => i.id, 'int')} FOR NO KEY UPDATE)`)
        // D44 step 9: only the author changes the content.
        .check('chk', `(SELECT ${text} IS NULL OR old.content = ${text} OR old.user_id = ${w.arg((i) => i.actor.userId, 'int')} AS allowed FROM old)`)
        .write(
          'c',
          `(UPDATE comments c SET content = COALESCE(${text}, c.content), resolved = COALESCE(${flag}, c.resolved)
               FROM old, chk WHERE c.id = old.id AND chk.allowed RETURNING c.*)`,
        )
        .event(
          statementEvent({
            type: 'comment.updated',
            from: 'c JOIN old ON old.id = c.id',
            reads: ['c', 'old'],
            workspace: 'c.workspace_id',
            data: { comment_id: 'c.id', task_id: 'c.task_id', list_id: listOf('c') },
            changes: columnChanges({ columns: UPDATE_COLUMNS }, 'c'),
          }),
        )
        .select(`chk.allowed, (SELECT ${COMMENT_JSON} FROM c JOIN users u ON u.id = c.user_id) AS json FROM chk`)
    );
  },
);

/** D44 delete comment (CommentsRepository.delete). */
const DELETE = writeStatement<{ actor: Actor; id: number; managerial: boolean }, { allowed: boolean }>(
  'comment.delete',
  () => '',
  (w) =>
    w
      .lock(
        'old',
        'comments',
        `MATERIALIZED (SELECT c.id, c.user_id = ${w.arg((i) => i.actor.userId, 'int')} OR ${w.arg((i) => i.managerial, 'boolean')} AS allowed
                              FROM comments c WHERE c.id = ${w.arg((i) => i.id, 'int')} FOR UPDATE)`,
      )
      .write('d', '(DELETE FROM comments c USING old WHERE c.id = old.id AND old.allowed RETURNING c.*)')
      .event(
        statementEvent({
          type: 'comment.deleted',
          from: 'd',
          reads: ['d'],
          workspace: 'd.workspace_id',
          data: { comment_id: 'd.id', task_id: 'd.task_id', list_id: listOf('d') },
        }),
      )
      .select('old.allowed FROM old'),
);

/** Create comment (CommentsRepository.insert). */
const INSERT = writeStatement<{ actor: Actor; taskId: number; body: { content: string } }, { json: string }>(
  'comment.insert',
  () => '',
  (w) => {
    const taskId = w.arg((i) => i.taskId, 'int');
    const user = w.arg((i) => i.actor.userId, 'int');
    const { columns, values } = createValues(w, COMMENT_WRITES, (i) => i.body, 'tk.workspace_id');
    return w
      .lock('tk', 'tasks', `MATERIALIZED (SELECT t.id, t.workspace_id, t.list_id FROM tasks t WHERE t.id = ${taskId} FOR KEY SHARE)`)
      .write(
        'c',
        `(
         INSERT INTO comments (workspace_id, task_id, user_id, ${columns})
         SELECT tk.workspace_id, tk.id, ${user}, ${values} FROM tk
         RETURNING *)`,
      )
      .event(
        statementEvent({
          type: 'comment.created',
          from: 'c JOIN tk ON tk.id = c.task_id',
          reads: ['c', 'tk'],
          workspace: 'c.workspace_id',
          data: { comment_id: 'c.id', task_id: 'c.task_id', list_id: 'tk.list_id' },
        }),
      )
      .select(`${COMMENT_JSON} AS json FROM c JOIN users u ON u.id = c.user_id`);
  },
);

/** The write statements of comments. */
export const COMMENT_WRITE_STATEMENTS = [UPDATE, DELETE, INSERT];

/** SQL for comments. */
@Injectable()
export class CommentsRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * The List comments read inside an access check's statement (AccessService.checkAndRead):
   * the comments of the target task, oldest first (created_at then id, D23), as a JSON array text.
   */
  readonly byTaskRead: AccessRead = {
    sql: J.array(COMMENT_JSON, `comments c JOIN users u ON u.id = c.user_id WHERE c.task_id = ${READ_PARAMS.id}`, 'c.created_at, c.id'),
    tagged: false,
  };

  /**
   * D44: update comment `id` in ONE statement: the comment row locked, then `content` (when sent)
   * and `resolved` (when sent) written, the content only when the caller (`actor`) is its author or the content does not change (else nothing is written and `author_only` is true:
   * 403 at step 9). Records `comment.updated` by `actor` with the names that changed (D37: none, no
   * event). Null when the comment no longer exists.
   */
  async update(
    actor: Actor,
    id: number,
    content: string | null,
    resolved: boolean | null,
    db: Db = this.sql,
  ): Promise<{ author_only: boolean; comment: RawJson<CommentDto> | null } | null> {
    const rows = await UPDATE.run(db, { actor, id, content, resolved });
    if (!rows.length) return null;
    return { author_only: !rows[0].allowed, comment: rows[0].json === null ? null : new RawJson(rows[0].json) };
  }

  /**
   * D44: deletes comment `id` when `mayDelete` (the caller is its author, or `managerial`), in ONE
   * statement, recording `comment.deleted` by `actor`. Null when the comment no longer exists; else
   * whether it was deleted (false: neither author nor manager, 403 at step 9).
   */
  async delete(actor: Actor, id: number, managerial: boolean, db: Db = this.sql): Promise<boolean | null> {
    const rows = await DELETE.run(db, { actor, id, managerial });
    return rows.length ? rows[0].allowed : null;
  }

  /**
   * Inserts a top-level, unresolved comment by `actor` on task `taskId` and
   * returns it with its author, in one round trip, recording `comment.created`
   * (D37; `list_id` is the task's). The workspace comes from the task row
   * itself, share-locked so that it cannot go before the commit; null when the
   * task no longer exists (deleted since the access check).
   */
  async insert(actor: Actor, taskId: number, content: string, db: Db = this.sql): Promise<RawJson<CommentDto> | null> {
    const rows = await INSERT.run(db, { actor, taskId, body: { content } });
    return rows.length ? new RawJson(rows[0].json) : null;
  }
}
