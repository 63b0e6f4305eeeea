import { Body, Controller, Get, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { RawJson } from '../common/http/raw-json';
import { ApiValidatedBody } from '../common/openapi/api-errors.decorator';
import { PathId } from '../common/validation/id.pipe';
import { CommentDto, CreateCommentDto } from './comments.dto';
import { CommentsService } from './comments.service';

@ApiTags('Comments')
@Controller('api/v1/tasks')
export class CommentsController {
  constructor(private readonly comments: CommentsService) {}

  /** spec: List comments (D1: GET /api/v1/tasks/:id/comments). */
  @Get(':task_id/comments')
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
  @Post(':task_id/comments')
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
}
