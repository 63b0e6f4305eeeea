import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';

import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated, BodyErrors } from '../common/auth/authenticated.decorator';
import { NAME_TAKEN } from '../common/database/unique-messages';
import { ApiErrors, ApiValidatedBody } from '../common/openapi/api-errors.decorator';
import { PathId } from '../common/validation/path-id';
import { QueryPairsOf } from '../common/validation/query-pairs';
import { CreateStatusDto, StatusDto, UpdateStatusDto } from './statuses.dto';
import { LAST_COMPLETED, REPLACEMENT, REPLACEMENT_MESSAGES, StatusesService } from './statuses.service';

const DUPLICATE = NAME_TAKEN.status;

/** HTTP for statuses: list (ext), create, update. */
@ApiTags('Statuses')
@Controller('api/v1')
export class StatusesController {
  constructor(private readonly statuses: StatusesService) {}

  /** D1 (ext): list statuses. */
  @Get('workspaces/:workspace_id/statuses')
  @Authenticated('workspaces:read', 'workspace.read')
  @ApiOperation({
    summary: 'List statuses',
    description: 'The statuses of the workspace, ordered by position, then id.',
  })
  @ApiOkResponse({ type: [StatusDto] })
  listStatuses(@CurrentCaller() caller: Caller, @PathId('workspace') id: number): Promise<StatusDto[]> {
    return this.statuses.listStatuses(caller, id);
  }

  /** spec: Create status. */
  @Post('statuses')
  @Authenticated('workspaces:write', 'status.create')
  @ApiOperation({
    summary: 'Create status',
    description:
      'Adds a status at position max + 1 of the workspace. `color` defaults to `gray`, `icon` to null. Names are unique in the workspace ignoring case and surrounding spaces.',
  })
  @ApiValidatedBody(CreateStatusDto)
  @ApiCreatedResponse({ type: StatusDto })
  @ApiErrors({
    409: [DUPLICATE],
  })
  createStatus(@CurrentCaller() caller: Caller, @Body() body: unknown): Promise<StatusDto> {
    return this.statuses.createStatus(caller, body);
  }

  /** spec: Update status. */
  @Patch('statuses/:status_id')
  @Authenticated('workspaces:write', 'status.edit')
  @ApiOperation({
    summary: 'Update status',
    description: 'Only the fields sent change. The last remaining `completed` status of a workspace cannot change category.',
  })
  @ApiValidatedBody(UpdateStatusDto)
  @ApiOkResponse({ type: StatusDto })
  @ApiErrors({
    400: [LAST_COMPLETED],
    409: [DUPLICATE],
  })
  updateStatus(@CurrentCaller() caller: Caller, @PathId('status') id: number, @Body() body: unknown): Promise<StatusDto> {
    return this.statuses.updateStatus(caller, id, body);
  }

  /** D39, D43: delete status. */
  @Delete('statuses/:status_id')
  @HttpCode(204)
  @Authenticated('workspaces:write', 'status.delete')
  @BodyErrors('none')
  @ApiOperation({
    summary: 'Delete status',
    description:
      "Permanent. Tasks that held the status take `replacement_status_id` when given, else the workspace's first `pending` status by position, else none. " +
      'The last remaining `completed` status of a workspace cannot be deleted. Other query parameters and any body are ignored.',
  })
  @ApiQuery({
    name: REPLACEMENT,
    required: false,
    schema: { type: 'integer', minimum: 0 },
    description: 'A status of the same workspace for the tasks that held this one (a number)',
  })
  @ApiNoContentResponse()
  @ApiErrors({
    400: [REPLACEMENT_MESSAGES.once, REPLACEMENT_MESSAGES.invalid, REPLACEMENT_MESSAGES.self, LAST_COMPLETED],
    404: [REPLACEMENT_MESSAGES.notFound],
  })
  async deleteStatus(@CurrentCaller() caller: Caller, @PathId('status') id: number, @QueryPairsOf() query: Array<[string, string]>): Promise<void> {
    await this.statuses.deleteStatus(caller, id, query);
  }
}
