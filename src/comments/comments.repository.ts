import { Injectable } from '@nestjs/common';
import { READ_PARAMS } from '../common/access/access.repository';
import type { Db } from '../common/database/request-db';
import { Sql } from '../common/database/sql';
import { SqlParams } from '../common/database/sql-params';
import { jsonArraySql } from '../common/http/raw-json';
import { Actor, eventCtes } from '../events/events.sql';
import type { CommentDto } from './comments.dto';

/** The comment object of the specification, over `comments c` joined with its author `users u`. */
const COMMENT_COLUMNS = `c.id, c.task_id, c.user_id, u.name, u.avatar_url, c.content, c.parent_comment_id, c.resolved,
       api_ts(c.created_at) AS created_at`;

/** SQL for comments. */
@Injectable()
export class CommentsRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * The List comments read inside an access check's statement (AccessService.checkAndRead):
   * the comments of the target task, oldest first (created_at then id, D23), as a JSON array text.
   */
  readonly byTaskRead = jsonArraySql(`SELECT ${COMMENT_COLUMNS}
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
    const ctes = [
      `tk AS MATERIALIZED (SELECT t.id, t.workspace_id, t.list_id FROM tasks t WHERE t.id = ${p.add(taskId, 'int')} FOR KEY SHARE)`,
      `c AS (
         INSERT INTO comments (workspace_id, task_id, user_id, content, parent_comment_id, resolved)
         SELECT tk.workspace_id, tk.id, ${p.add(actor.userId, 'int')}, ${p.add(content, 'text')}, NULL, false FROM tk
         RETURNING *)`,
      ...eventCtes(p, actor, {
        type: 'comment.created', from: 'c JOIN tk ON tk.id = c.task_id', workspace: 'c.workspace_id',
        data: { comment_id: 'c.id', task_id: 'c.task_id', list_id: 'tk.list_id' },
      }),
    ];
    const rows: CommentDto[] = await db.rows(`WITH ${ctes.join(',\n')} SELECT ${COMMENT_COLUMNS} FROM c JOIN users u ON u.id = c.user_id`, p.values);
    return rows[0] ?? null;
  }
}
