import { applyDecorators, Body, Controller, createParamDecorator, Delete, ExecutionContext, Get, HttpCode, Patch, Post, Put, Res } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiExtraModels,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';

import { ACCESS_DENIED, NOT_FOUND, NOT_FOUND_IN_WORKSPACE } from '../common/access/access.policy';
import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated, BodyErrors } from '../common/auth/authenticated.decorator';
import { TASK_CACHE_CONTROL } from '../common/cache/cache-control';
import { PRECONDITION_MESSAGES } from '../common/http/etag';
import { markNotModified } from '../common/http/not-modified';
import { RawJson } from '../common/http/raw-json';
import { ApiErrors, ApiValidatedBody } from '../common/openapi/api-errors.decorator';
import { PathId, PathIds } from '../common/validation/path-id';
import { QueryPairsOf } from '../common/validation/query-pairs';
import type { QueryPairs } from '../common/validation/query-reader';
import { QUERY_400, TaskQueryParams } from './task-query.openapi';
import { CreateTaskDto, TaskCursorPageDto, TaskCursorPageWithTotalDto, TaskDto, TaskPageDto, TaskWriteDto, UpdateTaskDto } from './tasks.dto';
import { OWN_PARENT, PARENT_NOT_FOUND, SUBTASKS_CANNOT_NEST, TasksService } from './tasks.service';

/**
 * A request header's value (lower-case name), for the handler only: the OpenAPI document
 * describes the header once, with ApiHeader (Nest's own @Headers would add a second copy).
 */
const RequestHeader = createParamDecorator((name: string, context: ExecutionContext): string | undefined => {
  const value = context.switchToHttp().getRequest<{ headers: Record<string, string | string[] | undefined> }>().headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
});

/** D36: the ETag header of the task answers. */
const ETAG_HEADERS = {
  ETag: {
    description: 'Tag of the task as Get task shows it to you now; send it back in `If-None-Match` (Get task) or `If-Match` (Update task, Delete task)',
    schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]{1,64}"$', example: '"3q2-7wYhSAxJ0tc3xYKUePvTTnxhVaAYm52kBQOKp1Y"' },
  },
};

/** D36: If-Match on update and delete task, and its answers. */
const IfMatch = () =>
  applyDecorators(
    ApiHeader({
      name: 'If-Match',
      required: false,
      description:
        'Only change the task if it is still as you saw it: the `ETag` you received (several, comma-separated, or `*` for any). ' +
        'Otherwise 412 and nothing changes. Required when the server runs with `REQUIRE_IF_MATCH=true` (428 without it).',
      schema: { type: 'string' },
    }),
    ApiErrors({ 412: [PRECONDITION_MESSAGES.failed], 428: [PRECONDITION_MESSAGES.required] }),
  );

@ApiTags('Tasks')
@Controller('api/v1')
export class TasksController {
  constructor(private readonly tasks: TasksService) {}

  /** spec: Create task. */
  @Post('tasks')
  @Authenticated('tasks:write', 'task.create')
  @ApiOperation({
    summary: 'Create task',
    description: 'The workspace is derived from `list_id`. `identifier` is the next number of the workspace task counter, never reused.',
  })
  @ApiValidatedBody(CreateTaskDto)
  @ApiCreatedResponse({ type: TaskWriteDto, description: 'All task fields except labels, subtasks, attachments', headers: ETAG_HEADERS })
  @ApiErrors({
    400: [SUBTASKS_CANNOT_NEST],
    // 'Task not found': the new task was deleted (with its list or folder) before it was read back.
    404: [NOT_FOUND_IN_WORKSPACE.status, PARENT_NOT_FOUND, NOT_FOUND.task],
  })
  async createTask(@CurrentCaller() caller: Caller, @Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply): Promise<RawJson<TaskWriteDto>> {
    const { task, etag } = await this.tasks.createTask(caller, body);
    void reply.header('etag', etag);
    return task;
  }

  /** spec: Get task. */
  @Get('tasks/:task_id')
  @Authenticated('tasks:read', 'task.read')
  @ApiOperation({
    summary: 'Get task',
    description: 'The full task with labels, subtasks and attachments.',
  })
  @ApiHeader({
    name: 'If-None-Match',
    required: false,
    description: 'The `ETag` of the copy you hold (several, comma-separated, or `*`): when the task is unchanged the answer is 304 without a body.',
    schema: { type: 'string' },
  })
  @ApiOkResponse({ type: TaskDto, headers: ETAG_HEADERS })
  @ApiResponse({ status: 304, description: 'Not modified: the `If-None-Match` tag is current. No body.', headers: ETAG_HEADERS })
  async getTask(
    @CurrentCaller() caller: Caller,
    @PathId('task') id: number,
    @RequestHeader('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RawJson<TaskDto>> {
    const { task, etag, notModified } = await this.tasks.getTask(caller, id, ifNoneMatch);
    // D36 on the 200 and 304 only: its errors keep the no-store of every keyed answer (D31).
    void reply.header('cache-control', TASK_CACHE_CONTROL).header('etag', etag);
    if (notModified) markNotModified(reply);
    return task;
  }

  /** spec: Update task. */
  @Patch('tasks/:task_id')
  @Authenticated('tasks:write', 'task.edit')
  @ApiOperation({
    summary: 'Update task',
    description: 'Only the fields sent change. A move (`list_id`) by an access-restricted member needs the target list permitted too.',
  })
  @ApiValidatedBody(UpdateTaskDto)
  @ApiOkResponse({ type: TaskWriteDto, description: 'All task fields except labels, subtasks, attachments', headers: ETAG_HEADERS })
  @ApiErrors({
    400: [OWN_PARENT, SUBTASKS_CANNOT_NEST],
    404: [NOT_FOUND_IN_WORKSPACE.list, NOT_FOUND_IN_WORKSPACE.status, PARENT_NOT_FOUND],
  })
  @IfMatch()
  async updateTask(
    @CurrentCaller() caller: Caller,
    @PathId('task') id: number,
    @Body() body: unknown,
    @RequestHeader('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RawJson<TaskWriteDto>> {
    const { task, etag } = await this.tasks.updateTask(caller, id, body, ifMatch);
    void reply.header('etag', etag);
    return task;
  }

  /** D39, D43: add a label to a task. */
  @Put('tasks/:task_id/labels/:label_id')
  @Authenticated('tasks:write', 'task.edit')
  @BodyErrors('none')
  @ApiOperation({
    summary: 'Add label to task',
    description:
      "Adds one label of the task's workspace; labels added at the same time by others are kept. Adding a label the task already has changes nothing. " +
      'Any request body is ignored. Answers as Update task (without `labels`).',
  })
  @ApiOkResponse({ type: TaskWriteDto, description: 'All task fields except labels, subtasks, attachments', headers: ETAG_HEADERS })
  @ApiErrors({ 404: [NOT_FOUND.label] })
  @IfMatch()
  async addTaskLabel(
    @CurrentCaller() caller: Caller,
    @PathIds('task', 'label') [id, labelId]: number[],
    @RequestHeader('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RawJson<TaskWriteDto>> {
    const { task, etag } = await this.tasks.setTaskLabel(caller, 'add', id, labelId, ifMatch);
    void reply.header('etag', etag);
    return task;
  }

  /** D39, D43: remove a label from a task. */
  @Delete('tasks/:task_id/labels/:label_id')
  @Authenticated('tasks:write', 'task.edit')
  @BodyErrors('none')
  @ApiOperation({
    summary: 'Remove label from task',
    description:
      'Removes one label; removing a label the task does not have changes nothing. Any request body is ignored. Answers as Update task (without `labels`).',
  })
  @ApiOkResponse({ type: TaskWriteDto, description: 'All task fields except labels, subtasks, attachments', headers: ETAG_HEADERS })
  @ApiErrors({ 404: [NOT_FOUND.label] })
  @IfMatch()
  async removeTaskLabel(
    @CurrentCaller() caller: Caller,
    @PathIds('task', 'label') [id, labelId]: number[],
    @RequestHeader('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RawJson<TaskWriteDto>> {
    const { task, etag } = await this.tasks.setTaskLabel(caller, 'remove', id, labelId, ifMatch);
    void reply.header('etag', etag);
    return task;
  }

  /** spec: Delete task. */
  @Delete('tasks/:task_id')
  @HttpCode(204)
  @Authenticated('tasks:write', 'task.delete')
  @ApiOperation({
    summary: 'Delete task',
    description: 'Permanent; subtasks, comments, attachments and custom-field values go with it.',
  })
  @ApiNoContentResponse()
  @IfMatch()
  async deleteTask(@CurrentCaller() caller: Caller, @PathId('task') id: number, @RequestHeader('if-match') ifMatch: string | undefined): Promise<void> {
    await this.tasks.deleteTask(caller, id, ifMatch);
  }

  /** spec: List tasks (D22), with the filters, sorts and cursor pages of D34. */
  @Get('workspaces/:workspace_id/tasks')
  @Authenticated('tasks:read', 'workspace.read')
  @ApiOperation({
    summary: 'List tasks',
    description:
      'Top-level tasks, newest first (created_at, then id), each with its direct subtasks. ' +
      'An access-restricted member receives only tasks in the lists permitted to them.\n\n' +
      'Filters combine with AND; a parameter with several values (comma list, repeated, or both; at most 100) matches any of them. ' +
      'Ids that name nothing the caller may see match nothing. ' +
      '`sort` orders by one to three keys, ties by id. ' +
      'Pages: `page` and `limit` (the default), or keyset pages: send `include_total=false` (or a `cursor`) and get ' +
      '`{ data, limit, next_cursor }`; follow `next_cursor` with the same filters and sort (`limit` and `include_total` may change). ' +
      'A deep keyset page costs what the first costs, and a task that is not changed meanwhile is never repeated or skipped. ' +
      'Parameter names and values are case-sensitive; an unknown parameter is an error.',
  })
  @TaskQueryParams()
  @ApiExtraModels(TaskPageDto, TaskCursorPageDto, TaskCursorPageWithTotalDto)
  @ApiOkResponse({
    description: '`page`/`limit` pages (default); keyset pages with `cursor` or `include_total=false` (`total` only with `include_total=true` and a cursor)',
    schema: { oneOf: [TaskPageDto, TaskCursorPageDto, TaskCursorPageWithTotalDto].map((dto) => ({ $ref: getSchemaPath(dto) })) },
  })
  @ApiErrors({
    400: QUERY_400,
    403: [ACCESS_DENIED],
    404: [NOT_FOUND_IN_WORKSPACE.list],
  })
  listTasks(
    @CurrentCaller() caller: Caller,
    @PathId('workspace') id: number,
    @QueryPairsOf(['cursor']) query: QueryPairs,
  ): Promise<RawJson<TaskPageDto | TaskCursorPageDto>> {
    return this.tasks.listTasks(caller, id, query);
  }
}
