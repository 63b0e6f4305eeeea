import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { RawJson } from '../common/http/raw-json';
import { ApiErrors, ApiValidatedBody } from '../common/openapi/api-errors.decorator';
import { PathId } from '../common/validation/path-id';
import { CommentDto, CreateCommentDto, UpdateCommentDto } from './comments.dto';
import { AUTHOR_ONLY, AUTHOR_OR_MANAGER, CommentsService } from './comments.service';

@ApiTags('Comments')
@Controller('api/v1')
export class CommentsController {
  constructor(private readonly comments: CommentsService) {}

  /** spec: List comments (D1: GET /api/v1/tasks/:id/comments). */
  @Get('tasks/:task_id/comments')
  @Authenticated('comments:read', 'comment.read')
  @ApiOperation({
    summary: 'List comments',
    description: 'Comments of a task, oldest first (created_at, then id).',
  })
  @ApiOkResponse({ type: [CommentDto] })
  listComments(@CurrentCaller() caller: Caller, @PathId('task') id: number): Promise<RawJson<CommentDto[]>> {
    return this.comments.listComments(caller, id);
  }

  /** spec: Create comment (D1: POST /api/v1/tasks/:id/comments). */
  @Post('tasks/:task_id/comments')
  @Authenticated('comments:write', 'comment.create')
  @ApiOperation({
    summary: 'Create comment',
    description: 'Posts a top-level comment as the key owner: `parent_comment_id` is null and `resolved` false. `content` is HTML, sanitized.',
  })
  @ApiValidatedBody(CreateCommentDto)
  @ApiCreatedResponse({ type: CommentDto })
  createComment(@CurrentCaller() caller: Caller, @PathId('task') id: number, @Body() body: unknown): Promise<RawJson<CommentDto>> {
    return this.comments.createComment(caller, id, body);
  }

  /** D39, D44: update comment. */
  @Patch('comments/:comment_id')
  @Authenticated('comments:write', 'comment.edit')
  @ApiOperation({
    summary: 'Update comment',
    description: 'Only the fields sent change. Any writer may set `resolved`; only the author may change `content` (sending it unchanged is allowed).',
  })
  @ApiValidatedBody(UpdateCommentDto)
  @ApiOkResponse({ type: CommentDto })
  @ApiErrors({ 403: [AUTHOR_ONLY] })
  updateComment(@CurrentCaller() caller: Caller, @PathId('comment') id: number, @Body() body: unknown): Promise<RawJson<CommentDto>> {
    return this.comments.updateComment(caller, id, body);
  }

  /** D39, D44: delete comment. */
  @Delete('comments/:comment_id')
  @HttpCode(204)
  @Authenticated('comments:write', 'comment.delete')
  @ApiOperation({ summary: 'Delete comment', description: 'By its author, or by an owner or admin. Permanent.' })
  @ApiNoContentResponse()
  @ApiErrors({ 403: [AUTHOR_OR_MANAGER] })
  async deleteComment(@CurrentCaller() caller: Caller, @PathId('comment') id: number): Promise<void> {
    await this.comments.deleteComment(caller, id);
  }
}
