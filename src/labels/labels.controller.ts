import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { NAME_TAKEN } from '../common/database/unique-messages';
import { ApiErrors, ApiValidatedBody } from '../common/openapi/api-errors.decorator';
import { PathId } from '../common/validation/path-id';
import { CreateLabelDto, LabelDto, UpdateLabelDto } from './labels.dto';
import { LabelsService } from './labels.service';

@ApiTags('Labels')
@Controller('api/v1')
export class LabelsController {
  constructor(private readonly labels: LabelsService) {}

  /** spec: List labels. */
  @Get('workspaces/:workspace_id/labels')
  @Authenticated('workspaces:read', 'workspace.read')
  @ApiOperation({ summary: 'List labels', description: 'Ordered by name.' })
  @ApiOkResponse({ type: [LabelDto] })
  listLabels(@CurrentCaller() caller: Caller, @PathId('workspace') id: number): Promise<LabelDto[]> {
    return this.labels.listLabels(caller, id);
  }

  /** D1 (ext): create label. */
  @Post('labels')
  @Authenticated('workspaces:write', 'label.create')
  @ApiOperation({ summary: 'Create label', description: 'Names are unique in the workspace ignoring case.' })
  @ApiValidatedBody(CreateLabelDto)
  @ApiCreatedResponse({ type: LabelDto })
  @ApiErrors({
    409: [NAME_TAKEN.label],
  })
  createLabel(@CurrentCaller() caller: Caller, @Body() body: unknown): Promise<LabelDto> {
    return this.labels.createLabel(caller, body);
  }

  /** D39, D43: update label. */
  @Patch('labels/:label_id')
  @Authenticated('workspaces:write', 'label.edit')
  @ApiOperation({
    summary: 'Update label',
    description: 'Only the fields sent change. Names are unique in the workspace ignoring case; a label may change the case of its own name.',
  })
  @ApiValidatedBody(UpdateLabelDto)
  @ApiOkResponse({ type: LabelDto })
  @ApiErrors({
    409: [NAME_TAKEN.label],
  })
  updateLabel(@CurrentCaller() caller: Caller, @PathId('label') id: number, @Body() body: unknown): Promise<LabelDto> {
    return this.labels.updateLabel(caller, id, body);
  }

  /** spec: Delete label. */
  @Delete('labels/:label_id')
  @HttpCode(204)
  @Authenticated('workspaces:write', 'label.delete')
  @ApiOperation({ summary: 'Delete label', description: 'Permanent; removes the label from tasks.' })
  @ApiNoContentResponse()
  async deleteLabel(@CurrentCaller() caller: Caller, @PathId('label') id: number): Promise<void> {
    await this.labels.deleteLabel(caller, id);
  }
}
