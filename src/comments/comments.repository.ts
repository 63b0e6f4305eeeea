import { Injectable } from '@nestjs/common';
import { READ_PARAMS } from '../common/access/access.repository';
import { ColumnField, columnTable, createValuesSql, FieldsMatch } from '../common/database/field-table';
import type { Db } from '../common/database/request-db';
import { Sql } from '../common/database/sql';
import { SqlParams } from '../common/database/sql-params';
import { jsonArraySql } from '../common/http/raw-json';
import { Actor, eventCtes } from '../events/events.sql';
import type { CommentDto } from './comments.dto';

/**
 * spec: Comment, key by key in response order, over `comments c` joined with
 * its author `users u`, with the columns a create writes (field-table.ts).
 * The API's create takes only `content`: a comment created through it is
 * top-level and unresolved (the create values); fixtures may give the others.
 */
export const COMMENT_FIELDS = [
  { key: 'id', sql: 'c.id' },
  { key: 'task_id', sql: 'c.task_id' },
  { key: 'user_id', sql: 'c.user_id' },
  { key: 'name', sql: 'u.name' },
  { key: 'avatar_url', sql: 'u.avatar_url' },
  { key: 'content', sql: 'c.content', write: { column: 'content', cast: 'text' } },
  { key: 'parent_comment_id', sql: 'c.parent_comment_id', write: { column: 'parent_comment_id', cast: 'int' } },
  { key: 'resolved', sql: 'c.resolved', write: { column: 'resolved', cast: 'boolean', createDefault: () => 'false' } },
  { key: 'created_at', sql: 'api_ts(c.created_at)' },
] as const satisfies readonly ColumnField<keyof CommentDto>[];

/** Fails to compile when COMMENT_FIELDS and the response disagree on a key. */
const FIELDS_MATCH_DTO: FieldsMatch<typeof COMMENT_FIELDS, CommentDto> = true;
void FIELDS_MATCH_DTO;

/** The select list, the written columns and their names. */
export const COMMENT_TABLE = columnTable<keyof CommentDto>(COMMENT_FIELDS);

/** SQL for comments. */
@Injectable()
export class CommentsRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * The List comments read inside an access check's statement (AccessService.checkAndRead):
   * the comments of the target task, oldest first (created_at then id, D23), as a JSON array text.
   */
  readonly byTaskRead = jsonArraySql(`SELECT ${COMMENT_TABLE.select}
         FROM comments c
         JOIN users u ON u.id = c.user_id
        WHERE c.task_id = ${READ_PARAMS.id}
        ORDER BY c.created_at, c.id`);

  /**
   * Inserts a top-level, unresolved comment by `actor` on task `taskId` and
   * returns it with its author, in one round trip, recording `comment.created`
   * (D37; `list_id` is the task's). The workspace comes from the task row
   * itself, share-locked so that it cannot go before the commit; null when the
   * task no longer exists (deleted since the access check).
   */
  async insert(actor: Actor, taskId: number, content: string, db: Db = this.sql): Promise<CommentDto | null> {
    const p = new SqlParams();
    const tk = `tk AS MATERIALIZED (SELECT t.id, t.workspace_id, t.list_id FROM tasks t WHERE t.id = ${p.add(taskId, 'int')} FOR KEY SHARE)`;
    const user = p.add(actor.userId, 'int');
    const { columns, values } = createValuesSql(p, COMMENT_TABLE.writes, { content }, 'tk.workspace_id');
    const ctes = [
      tk,
      `c AS (
         INSERT INTO comments (workspace_id, task_id, user_id, ${columns})
         SELECT tk.workspace_id, tk.id, ${user}, ${values} FROM tk
         RETURNING *)`,
      ...eventCtes(p, actor, {
        type: 'comment.created', from: 'c JOIN tk ON tk.id = c.task_id', workspace: 'c.workspace_id',
        data: { comment_id: 'c.id', task_id: 'c.task_id', list_id: 'tk.list_id' },
      }),
    ];
    const rows: CommentDto[] = await db.rows(`WITH ${ctes.join(',\n')} SELECT ${COMMENT_TABLE.select} FROM c JOIN users u ON u.id = c.user_id`, p.values);
    return rows[0] ?? null;
  }
}
