import { Body, Controller, Get, Patch, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { PathId } from '../common/validation/id.pipe';
import { nulMessages } from '../common/validation/body';
import { CreateStatusDto, StatusDto, UpdateStatusDto } from './statuses.dto';
import { INVALID_CATEGORY, LAST_COMPLETED, StatusesService } from './statuses.service';

const DUPLICATE = 'A status with this name already exists';
/** D7: what any route with a JSON body can answer before the handler runs. */
const BODY_400 = ['Invalid JSON body', 'Request body must be a JSON object'];
const BODY_413 = ['Request body is too large'];
const BODY_415 = ['Content-Type must be application/json'];

/** HTTP for statuses: list (ext), create, update. */
@ApiTags('Statuses')
@Controller('api/v1')
export class StatusesController {
  constructor(private readonly statuses: StatusesService) {}

  /** D1 (ext): list statuses. */
  @Get('workspaces/:workspace_id/statuses')
  @Authenticated('workspaces:read')
  @ApiOperation({
    summary: 'List statuses',
    description: 'The statuses of the workspace, ordered by position, then id. Scope `workspaces:read`; any member (access restriction does not apply).',
  })
  @ApiOkResponse({ type: [StatusDto] })
  @ApiErrors({
    400: ['Invalid workspace ID'],
    403: ["Scope 'workspaces:read' is required for this endpoint"],
    404: ['Workspace not found'],
  })
  listStatuses(@CurrentCaller() caller: Caller, @PathId('workspace') id: number): Promise<StatusDto[]> {
    return this.statuses.listStatuses(caller, id);
  }

  /** spec: Create status. */
  @Post('statuses')
  @Authenticated('workspaces:write')
  @ApiOperation({
    summary: 'Create status',
    description:
      'Adds a status at position max + 1 of the workspace. `color` defaults to `gray`, `icon` to null. Names are unique in the workspace ignoring case and surrounding spaces. Scope `workspaces:write`; owners and admins only.',
  })
  @ApiBody({ type: CreateStatusDto })
  @ApiCreatedResponse({ type: StatusDto })
  @ApiErrors({
    400: ['workspace_id is required', 'name is required', 'name must be at most 255 characters', INVALID_CATEGORY, 'icon must be a string', 'icon must be at most 255 characters', 'color must be a string', 'color must be at most 255 characters', ...nulMessages('name', 'icon', 'color'), ...BODY_400],
    403: ["Scope 'workspaces:write' is required for this endpoint", 'Only owners and admins can create statuses'],
    404: ['Workspace not found'],
    409: [DUPLICATE],
    413: BODY_413,
    415: BODY_415,
  })
  createStatus(@CurrentCaller() caller: Caller, @Body() body: unknown): Promise<StatusDto> {
    return this.statuses.createStatus(caller, body);
  }

  /** spec: Update status. */
  @Patch('statuses/:status_id')
  @Authenticated('workspaces:write')
  @ApiOperation({
    summary: 'Update status',
    description:
      'Only the fields sent change. The last remaining `completed` status of a workspace cannot change category. Scope `workspaces:write`; owners and admins only.',
  })
  @ApiBody({ type: UpdateStatusDto })
  @ApiOkResponse({ type: StatusDto })
  @ApiErrors({
    400: ['Invalid status ID', 'name must be a string', 'name cannot be empty', 'name must be at most 255 characters', INVALID_CATEGORY, 'icon must be a string', 'icon must be at most 255 characters', 'color must be a string', 'color must be at most 255 characters', ...nulMessages('name', 'icon', 'color'), 'position must be an integer', LAST_COMPLETED, ...BODY_400],
    403: ["Scope 'workspaces:write' is required for this endpoint", 'Access denied', 'Only owners and admins can edit statuses'],
    404: ['Status not found'],
    409: [DUPLICATE],
    413: BODY_413,
    415: BODY_415,
  })
  updateStatus(@CurrentCaller() caller: Caller, @PathId('status') id: number, @Body() body: unknown): Promise<StatusDto> {
    return this.statuses.updateStatus(caller, id, body);
  }
}
