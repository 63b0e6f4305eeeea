import { ForbiddenException, Injectable, NotFoundException } from '@nestjs/common';

import { NOT_FOUND, roleIn } from '../common/access/access.policy';
import { AccessService } from '../common/access/access.service';
import type { Caller } from '../common/auth/auth-context';
import { RawJson } from '../common/http/raw-json';
import { validateBody } from '../common/validation/validate-body';
import { CommentDto, CreateCommentDto, UpdateCommentDto } from './comments.dto';
import { CommentsRepository } from './comments.repository';

/** D44: the 403 of a content change by another than the author (step 9). */
export const AUTHOR_ONLY = 'Only the author can edit a comment';
/** D44: the 403 of a delete by a writer who is neither the author nor a manager (step 9). */
export const AUTHOR_OR_MANAGER = 'Only the author or owners and admins can delete a comment';

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

  /**
   * D44: update comment. The comment and the caller's access (404 `Comment not found`, 403,
   * `Viewers cannot edit comments`, restriction on its task's list) → the body (`content`, then
   * `resolved`) → step 9: a content that really changes (after trimming and sanitizing) by
   * another than the author, 403 `Only the author can edit a comment`. 200 with the comment.
   * Two round trips: the access check and one statement for the check of step 9, the update and its event.
   */
  async updateComment(caller: Caller, id: number, rawBody: unknown): Promise<RawJson<CommentDto>> {
    await this.access.check(caller, 'comment.edit', id);
    const patch = await validateBody(UpdateCommentDto, rawBody);
    const result = await this.comments.update(caller, id, patch.content ?? null, patch.resolved ?? null, caller.db);
    if (!result?.comment && !result?.author_only) throw new NotFoundException(NOT_FOUND.comment);
    if (result.author_only) throw new ForbiddenException(AUTHOR_ONLY);
    return result.comment!;
  }

  /**
   * D44: delete comment. Access as for update (`Viewers cannot delete comments`), then step 9: the
   * author or a manager, else 403 `Only the author or owners and admins can delete a comment`. 204.
   */
  async deleteComment(caller: Caller, id: number): Promise<void> {
    const { membership } = await this.access.check(caller, 'comment.delete', id);
    const deleted = await this.comments.delete(caller, id, roleIn(membership.role, 'manager'), caller.db);
    if (deleted === null) throw new NotFoundException(NOT_FOUND.comment);
    if (!deleted) throw new ForbiddenException(AUTHOR_OR_MANAGER);
  }
}
