import { Controller, Get } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { PathId } from '../common/validation/id.pipe';
import { MemberDto, WorkspaceDto } from './workspaces.dto';
import { WorkspacesService } from './workspaces.service';

@ApiTags('Workspaces')
@Controller('api/v1/workspaces')
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspacesService) {}

  /** D1 (ext): my workspaces. */
  @Get()
  @Authenticated('workspaces:read')
  @ApiOperation({ summary: 'List my workspaces', description: 'Workspaces the key user is a member of (any role), oldest first. Scope `workspaces:read`; any key.' })
  @ApiOkResponse({ type: [WorkspaceDto] })
  listWorkspaces(@CurrentCaller() caller: Caller): Promise<WorkspaceDto[]> {
    return this.workspaces.listWorkspaces(caller);
  }

  /** spec: Get workspace. */
  @Get(':workspace_id')
  @Authenticated('workspaces:read')
  @ApiOperation({ summary: 'Get workspace', description: 'The workspace with the caller\'s role. Scope `workspaces:read`; any member.' })
  @ApiOkResponse({ type: WorkspaceDto })
  @ApiErrors({ 400: ['Invalid workspace ID'], 404: ['Workspace not found'] })
  getWorkspace(@CurrentCaller() caller: Caller, @PathId('workspace') id: number): Promise<WorkspaceDto> {
    return this.workspaces.getWorkspace(caller, id);
  }

  /** spec: List workspace members. */
  @Get(':workspace_id/members')
  @Authenticated('workspaces:read')
  @ApiOperation({ summary: 'List workspace members', description: 'Ordered by join date, oldest first. `email` is non-null only when the caller is the workspace owner. Scope `workspaces:read`; any member.' })
  @ApiOkResponse({ type: [MemberDto] })
  @ApiErrors({ 400: ['Invalid workspace ID'], 404: ['Workspace not found'] })
  listMembers(@CurrentCaller() caller: Caller, @PathId('workspace') id: number): Promise<MemberDto[]> {
    return this.workspaces.listMembers(caller, id);
  }
}
