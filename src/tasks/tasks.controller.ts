import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiExtraModels,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { RawJson } from '../common/http/raw-json';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { nulMessages } from '../common/validation/body';
import { invalidDateMessage } from '../common/validation/dates';
import { PathId } from '../common/validation/id.pipe';
import { QueryPairsOf } from '../common/validation/query-pairs';
import type { QueryPairs } from './task-query';
import { QUERY_400, TaskQueryParams } from './task-query.openapi';
import { PRIORITY_MESSAGE } from './tasks.body';
import { CreateTaskDto, TaskCursorPageDto, TaskCursorPageWithTotalDto, TaskDto, TaskPageDto, TaskWriteDto, UpdateTaskDto } from './tasks.dto';
import { TasksService } from './tasks.service';

/** 400 messages of the body fields shared by create and update (D8 to D14). */
const BODY_400 = [
  'title must be at most 500 characters',
  'description must be a string',
  'description must be at most 100000 characters',
  PRIORITY_MESSAGE,
  'status_id must be a valid numeric ID',
  invalidDateMessage('due_date'),
  invalidDateMessage('start_date'),
  'assignee_ids must be an array',
  'custom_fields must be an array',
  'custom_fields value must be a string or null',
  'label_ids must be an array',
  ...nulMessages('title', 'description', 'custom_fields value'),
];

@ApiTags('Tasks')
@Controller('api/v1')
export class TasksController {
  constructor(private readonly tasks: TasksService) {}

  /** spec: Create task. */
  @Post('tasks')
  @Authenticated('tasks:write')
  @ApiOperation({
    summary: 'Create task',
    description:
      'The workspace is derived from `list_id`. `identifier` is the next number of the workspace task counter, never reused. ' +
      'Scope `tasks:write`; owners, admins and members; a restricted member only in a permitted list.',
  })
  @ApiBody({ type: CreateTaskDto })
  @ApiCreatedResponse({ type: TaskWriteDto, description: 'All task fields except labels, subtasks, attachments' })
  @ApiErrors({
    400: [
      'list_id is required',
      'list_id must be a valid numeric ID',
      'title is required',
      ...BODY_400,
      'parent_id must be a valid numeric ID',
      'Subtasks cannot have subtasks',
    ],
    403: ['Access denied', 'Viewers cannot create tasks'],
    404: ['List not found in this workspace', 'Status not found in this workspace', 'Parent task not found'],
  })
  createTask(@CurrentCaller() caller: Caller, @Body() body: unknown): Promise<RawJson<TaskWriteDto>> {
    return this.tasks.createTask(caller, body);
  }

  /** spec: Get task. */
  @Get('tasks/:task_id')
  @Authenticated('tasks:read')
  @ApiOperation({
    summary: 'Get task',
    description: 'The full task with labels, subtasks and attachments. Scope `tasks:read`; any member; a restricted member only in a permitted list.',
  })
  @ApiOkResponse({ type: TaskDto })
  @ApiErrors({
    400: ['Invalid task ID'],
    403: ['Access denied'],
    404: ['Task not found'],
  })
  getTask(@CurrentCaller() caller: Caller, @PathId('task') id: number): Promise<RawJson<TaskDto>> {
    return this.tasks.getTask(caller, id);
  }

  /** spec: Update task. */
  @Patch('tasks/:task_id')
  @Authenticated('tasks:write')
  @ApiOperation({
    summary: 'Update task',
    description:
      'Only the fields sent change. Scope `tasks:write`; owners, admins and members; a restricted member only for a task in, ' +
      'and a move to, a permitted list.',
  })
  @ApiBody({ type: UpdateTaskDto })
  @ApiOkResponse({ type: TaskWriteDto, description: 'All task fields except labels, subtasks, attachments' })
  @ApiErrors({
    400: ['Invalid task ID', 'title must be a string', 'title cannot be empty', ...BODY_400, 'list_id must be a valid numeric ID'],
    403: ['Access denied', 'Viewers cannot edit tasks'],
    404: ['Task not found', 'List not found in this workspace', 'Status not found in this workspace'],
  })
  updateTask(@CurrentCaller() caller: Caller, @PathId('task') id: number, @Body() body: unknown): Promise<RawJson<TaskWriteDto>> {
    return this.tasks.updateTask(caller, id, body);
  }

  /** spec: Delete task. */
  @Delete('tasks/:task_id')
  @HttpCode(204)
  @Authenticated('tasks:write')
  @ApiOperation({
    summary: 'Delete task',
    description:
      'Permanent; subtasks, comments, attachments and custom-field values go with it. Scope `tasks:write`; owners, admins and members; ' +
      'a restricted member only in a permitted list.',
  })
  @ApiNoContentResponse()
  @ApiErrors({
    400: ['Invalid task ID'],
    403: ['Access denied', 'Viewers cannot delete tasks'],
    404: ['Task not found'],
  })
  async deleteTask(@CurrentCaller() caller: Caller, @PathId('task') id: number): Promise<void> {
    await this.tasks.deleteTask(caller, id);
  }

  /** spec: List tasks (D22), with the filters, sorts and cursor pages of D34. */
  @Get('workspaces/:workspace_id/tasks')
  @Authenticated('tasks:read')
  @ApiOperation({
    summary: 'List tasks',
    description:
      'Top-level tasks, newest first (created_at, then id), each with its direct subtasks. Scope `tasks:read`; any member; ' +
      'a restricted member sees only tasks in permitted lists.\n\n' +
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
    400: ['Invalid workspace ID', ...QUERY_400],
    403: ['Access denied'],
    404: ['Workspace not found', 'List not found in this workspace'],
  })
  listTasks(@CurrentCaller() caller: Caller, @PathId('workspace') id: number, @QueryPairsOf() query: QueryPairs): Promise<RawJson<TaskPageDto | TaskCursorPageDto>> {
    return this.tasks.listTasks(caller, id, query);
  }
}
