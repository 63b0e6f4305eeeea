import { Injectable, NotFoundException } from '@nestjs/common';
import { NOT_FOUND } from '../common/access/access.policy';
import { AccessService } from '../common/access/access.service';
import type { Caller } from '../common/auth/auth-context';
import { RawJson } from '../common/http/raw-json';
import { validateBody } from '../common/validation/validate-body';
import { CommentDto, CreateCommentDto } from './comments.dto';
import { CommentsRepository } from './comments.repository';

/** Rules for comments (spec: Comments; D1, D3, D8, D9, D30). */
@Injectable()
export class CommentsService {
  constructor(
    private readonly access: AccessService,
    private readonly comments: CommentsRepository,
  ) {}

  /**
   * spec: List comments. Any member; a restricted member only on tasks of
   * permitted lists (D30). 404 `Task not found`; 403 `Access denied`. One round trip: the check and the read in one statement.
   */
  async listComments(caller: Caller, taskId: number): Promise<RawJson<CommentDto[]>> {
    const { body } = await this.access.checkAndRead(caller, 'comment.read', taskId, this.comments.byTaskRead);
    return new RawJson(body);
  }

  /**
   * spec: Create comment. Writers only (403 `Viewers cannot comment`), then the
   * body (D3 step 7): `content` trimmed, without NUL, at most 100,000 characters (D8)
   * before and after it is sanitized (D9); blank, not a string or empty after
   * sanitizing: 400 `content is required`.
   */
  async createComment(caller: Caller, taskId: number, rawBody: unknown): Promise<RawJson<CommentDto>> {
    await this.access.check(caller, 'comment.create', taskId);
    const { content } = await validateBody(CreateCommentDto, rawBody);
    const comment = await this.comments.insert(caller, taskId, content, caller.db);
    if (!comment) throw new NotFoundException(NOT_FOUND.task);
    return comment;
  }
}
