import { Injectable } from '@nestjs/common';
import { READ_PARAMS } from '../common/access/access.repository';
import type { Db } from '../common/database/request-db';
import { Sql } from '../common/database/sql';
import { jsonArraySql } from '../common/http/raw-json';
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
   * Inserts a top-level, unresolved comment by `userId` on task `taskId` and
   * returns it with its author, in one round trip. The workspace comes from
   * the task row itself; null when the task no longer exists (deleted since
   * the access check).
   */
  async insert(taskId: number, userId: number, content: string, db: Db = this.sql): Promise<CommentDto | null> {
    const rows: CommentDto[] = await db.rows(
      `WITH c AS (
         INSERT INTO comments (workspace_id, task_id, user_id, content, parent_comment_id, resolved)
         SELECT t.workspace_id, t.id, $2, $3, NULL, false FROM tasks t WHERE t.id = $1
         RETURNING *
       )
       SELECT ${COMMENT_COLUMNS} FROM c JOIN users u ON u.id = c.user_id`,
      [taskId, userId, content],
    );
    return rows[0] ?? null;
  }
}
