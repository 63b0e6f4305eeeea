import { Body, Controller, Get, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { RawJson } from '../common/http/raw-json';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { PathId } from '../common/validation/id.pipe';
import { nulMessages } from '../common/validation/body';
import { CommentDto, CreateCommentDto } from './comments.dto';
import { CommentsService } from './comments.service';

@ApiTags('Comments')
@Controller('api/v1/tasks')
export class CommentsController {
  constructor(private readonly comments: CommentsService) {}

  /** spec: List comments (D1: GET /api/v1/tasks/:id/comments). */
  @Get(':task_id/comments')
  @Authenticated('comments:read')
  @ApiOperation({
    summary: 'List comments',
    description: "Comments of a task, oldest first (created_at, then id). Scope `comments:read`; any member of the task's workspace. An access-restricted member gets 403 unless the task's list is permitted.",
  })
  @ApiOkResponse({ type: [CommentDto] })
  @ApiErrors({
    400: ['Invalid task ID'],
    403: ['Access denied'],
    404: ['Task not found'],
  })
  listComments(@CurrentCaller() caller: Caller, @PathId('task') id: number): Promise<RawJson<CommentDto[]>> {
    return this.comments.listComments(caller, id);
  }

  /** spec: Create comment (D1: POST /api/v1/tasks/:id/comments). */
  @Post(':task_id/comments')
  @Authenticated('comments:write')
  @ApiOperation({
    summary: 'Create comment',
    description: 'Posts a top-level comment as the key owner: `parent_comment_id` is null and `resolved` false. `content` is HTML, sanitized. Scope `comments:write`; owners, admins and members. An access-restricted member gets 403 unless the task\'s list is permitted.',
  })
  @ApiBody({ type: CreateCommentDto })
  @ApiCreatedResponse({ type: CommentDto })
  @ApiErrors({
    400: ['Invalid task ID', 'content is required', 'content must be at most 100000 characters', ...nulMessages('content')],
    403: ['Viewers cannot comment', 'Access denied'],
    404: ['Task not found'],
  })
  createComment(@CurrentCaller() caller: Caller, @PathId('task') id: number, @Body() body: unknown): Promise<CommentDto> {
    return this.comments.createComment(caller, id, body);
  }
}
