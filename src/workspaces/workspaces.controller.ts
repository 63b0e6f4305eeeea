import { Controller, Get } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated } from '../common/auth/authenticated.decorator';
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
  @ApiOperation({ summary: 'List my workspaces', description: 'Workspaces the key user is a member of (any role), oldest first.' })
  @ApiOkResponse({ type: [WorkspaceDto] })
  listWorkspaces(@CurrentCaller() caller: Caller): Promise<WorkspaceDto[]> {
    return this.workspaces.listWorkspaces(caller);
  }

  /** spec: Get workspace. */
  @Get(':workspace_id')
  @Authenticated('workspaces:read', 'workspace.read')
  @ApiOperation({ summary: 'Get workspace', description: 'The workspace with the caller\'s role.' })
  @ApiOkResponse({ type: WorkspaceDto })
  getWorkspace(@CurrentCaller() caller: Caller, @PathId('workspace') id: number): Promise<WorkspaceDto> {
    return this.workspaces.getWorkspace(caller, id);
  }

  /** spec: List workspace members. */
  @Get(':workspace_id/members')
  @Authenticated('workspaces:read', 'workspace.read')
  @ApiOperation({ summary: 'List workspace members', description: 'Ordered by join date, oldest first. `email` is non-null only when the caller is the workspace owner.' })
  @ApiOkResponse({ type: [MemberDto] })
  listMembers(@CurrentCaller() caller: Caller, @PathId('workspace') id: number): Promise<MemberDto[]> {
    return this.workspaces.listMembers(caller, id);
  }
}
