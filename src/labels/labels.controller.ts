import { Body, Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { PathId } from '../common/validation/id.pipe';
import { nulMessages } from '../common/validation/body';
import { CreateLabelDto, LabelDto } from './labels.dto';
import { LabelsService } from './labels.service';

@ApiTags('Labels')
@Controller('api/v1')
export class LabelsController {
  constructor(private readonly labels: LabelsService) {}

  /** spec: List labels. */
  @Get('workspaces/:workspace_id/labels')
  @Authenticated('workspaces:read')
  @ApiOperation({ summary: 'List labels', description: 'Ordered by name. Scope `workspaces:read`; any member.' })
  @ApiOkResponse({ type: [LabelDto] })
  @ApiErrors({ 400: ['Invalid workspace ID'], 404: ['Workspace not found'] })
  listLabels(@CurrentCaller() caller: Caller, @PathId('workspace') id: number): Promise<LabelDto[]> {
    return this.labels.listLabels(caller, id);
  }

  /** D1 (ext): create label. */
  @Post('labels')
  @Authenticated('workspaces:write')
  @ApiOperation({ summary: 'Create label', description: 'Scope `workspaces:write`; owners and admins only.' })
  @ApiBody({ type: CreateLabelDto })
  @ApiCreatedResponse({ type: LabelDto })
  @ApiErrors({
    400: ['workspace_id is required', 'name is required', 'name must be at most 255 characters', 'color must be a string', 'color must be at most 255 characters', ...nulMessages('name', 'color')],
    403: ['Only owners and admins can create labels'],
    404: ['Workspace not found'],
    409: ['A label with this name already exists'],
  })
  createLabel(@CurrentCaller() caller: Caller, @Body() body: unknown): Promise<LabelDto> {
    return this.labels.createLabel(caller, body);
  }

  /** spec: Delete label. */
  @Delete('labels/:label_id')
  @HttpCode(204)
  @Authenticated('workspaces:write')
  @ApiOperation({ summary: 'Delete label', description: 'Permanent; removes the label from tasks. Scope `workspaces:write`; owners and admins only.' })
  @ApiNoContentResponse()
  @ApiErrors({ 400: ['Invalid label ID'], 403: ['Access denied', 'Only owners and admins can delete labels'], 404: ['Label not found'] })
  async deleteLabel(@CurrentCaller() caller: Caller, @PathId('label') id: number): Promise<void> {
    await this.labels.deleteLabel(caller, id);
  }
}
