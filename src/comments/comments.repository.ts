import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { jsonArraySql, RawJson } from '../common/http/raw-json';
import type { CommentDto } from './comments.dto';

/** The comment object of the specification, over `comments c` joined with its author `users u`. */
const COMMENT_COLUMNS = `c.id, c.task_id, c.user_id, u.name, u.avatar_url, c.content, c.parent_comment_id, c.resolved,
       api_ts(c.created_at) AS created_at`;

/** SQL for comments. */
@Injectable()
export class CommentsRepository {
  constructor(private readonly db: DataSource) {}

  /** Comments of task `taskId`, oldest first: created_at then id (D23), as JSON text built by PostgreSQL. One round trip. */
  async listByTask(taskId: number): Promise<RawJson<CommentDto[]>> {
    const rows: { json: string }[] = await this.db.query(
      jsonArraySql(`SELECT ${COMMENT_COLUMNS}
         FROM comments c
         JOIN users u ON u.id = c.user_id
        WHERE c.task_id = $1
        ORDER BY c.created_at, c.id`),
      [taskId],
    );
    return new RawJson(rows[0].json);
  }

  /**
   * Inserts a top-level, unresolved comment by `userId` on task `taskId` and
   * returns it with its author, in one round trip. The workspace comes from
   * the task row itself; null when the task no longer exists (deleted since
   * the access check).
   */
  async insert(taskId: number, userId: number, content: string): Promise<CommentDto | null> {
    const rows: CommentDto[] = await this.db.query(
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
