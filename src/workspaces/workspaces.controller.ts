import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { WORKSPACE_SLUG_TAKEN } from '../common/database/unique-messages';
import { ApiErrors, ApiValidatedBody } from '../common/openapi/api-errors.decorator';
import { PathId } from '../common/validation/path-id';
import { CreateWorkspaceDto, MemberDto, UpdateWorkspaceDto, WorkspaceDto } from './workspaces.dto';
import { WorkspacesService } from './workspaces.service';

@ApiTags('Workspaces')
@Controller('api/v1/workspaces')
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspacesService) {}

  /** D1 (ext): my workspaces. */
  @Get()
  @Authenticated('workspaces:read')
  @ApiOperation({ summary: 'List my workspaces', description: 'Workspaces the key user is a member of (any role), oldest first.' })
  @ApiOkResponse({ type: [WorkspaceDto] })
  listWorkspaces(@CurrentCaller() caller: Caller): Promise<WorkspaceDto[]> {
    return this.workspaces.listWorkspaces(caller);
  }

  /** D40: create workspace. */
  @Post()
  @Authenticated('workspaces:write')
  @ApiOperation({
    summary: 'Create workspace',
    description:
      'Creates a workspace owned by the key user, with the four statuses To Do, In Progress, Done and Cancelled. ' +
      'Without `slug`, one is derived from the name and never conflicts (`-2`, `-3`, ... is added when taken).',
  })
  @ApiValidatedBody(CreateWorkspaceDto)
  @ApiErrors({ 409: [WORKSPACE_SLUG_TAKEN] })
  @ApiCreatedResponse({ type: WorkspaceDto })
  createWorkspace(@CurrentCaller() caller: Caller, @Body() body: unknown): Promise<WorkspaceDto> {
    return this.workspaces.createWorkspace(caller, body);
  }

  /** D40: update workspace. */
  @Patch(':workspace_id')
  @Authenticated('workspaces:write', 'workspace.edit')
  @ApiOperation({ summary: 'Update workspace', description: "Only the fields sent change. Returns the workspace with the caller's role." })
  @ApiValidatedBody(UpdateWorkspaceDto)
  @ApiErrors({ 409: [WORKSPACE_SLUG_TAKEN] })
  @ApiOkResponse({ type: WorkspaceDto })
  updateWorkspace(@CurrentCaller() caller: Caller, @PathId('workspace') id: number, @Body() body: unknown): Promise<WorkspaceDto> {
    return this.workspaces.updateWorkspace(caller, id, body);
  }

  /** D40: delete workspace. */
  @Delete(':workspace_id')
  @HttpCode(204)
  @Authenticated('workspaces:write', 'workspace.delete')
  @ApiOperation({
    summary: 'Delete workspace',
    description:
      'Irreversible: deletes the workspace and everything in it (folders, lists, tasks, statuses, labels, custom fields, members, webhooks, events, attachments) in one transaction. API keys stay.',
  })
  @ApiNoContentResponse({ description: 'Deleted; empty body' })
  async deleteWorkspace(@CurrentCaller() caller: Caller, @PathId('workspace') id: number): Promise<void> {
    await this.workspaces.deleteWorkspace(caller, id);
  }

  /** spec: Get workspace. */
  @Get(':workspace_id')
  @Authenticated('workspaces:read', 'workspace.read')
  @ApiOperation({ summary: 'Get workspace', description: "The workspace with the caller's role." })
  @ApiOkResponse({ type: WorkspaceDto })
  getWorkspace(@CurrentCaller() caller: Caller, @PathId('workspace') id: number): Promise<WorkspaceDto> {
    return this.workspaces.getWorkspace(caller, id);
  }

  /** spec: List workspace members. */
  @Get(':workspace_id/members')
  @Authenticated('workspaces:read', 'workspace.read')
  @ApiOperation({
    summary: 'List workspace members',
    description: 'Ordered by join date, oldest first. `email` is non-null only when the caller is the workspace owner.',
  })
  @ApiOkResponse({ type: [MemberDto] })
  listMembers(@CurrentCaller() caller: Caller, @PathId('workspace') id: number): Promise<MemberDto[]> {
    return this.workspaces.listMembers(caller, id);
  }
}
