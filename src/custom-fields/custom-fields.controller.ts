import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { NOT_FOUND } from '../common/access/access.policy';
import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { NAME_TAKEN } from '../common/database/unique-messages';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { PathId } from '../common/validation/path-id';
import { FIELD_MESSAGES, fieldBodyMessages } from './custom-field-body';
import { CreateCustomFieldDto, CustomFieldDefinitionDto, CustomFieldDto, UpdateCustomFieldDto } from './custom-fields.dto';
import { CustomFieldsService } from './custom-fields.service';

const DUPLICATE = NAME_TAKEN.customField;
/** D42 step 8: the sets' unknown folders, then lists. */
const STEP_8 = [NOT_FOUND.folder, NOT_FOUND.list];

@ApiTags('Custom fields')
@Controller('api/v1')
export class CustomFieldsController {
  constructor(private readonly fields: CustomFieldsService) {}

  /** spec: List custom fields (D1: GET /api/v1/workspaces/:id/custom-fields). */
  @Get('workspaces/:workspace_id/custom-fields')
  @Authenticated('tasks:read', 'workspace.read')
  @ApiOperation({
    summary: 'List custom fields',
    description:
      'Custom-field definitions of the workspace visible to the key user (a field with an allowed-users list only for those users), ordered by position, then id.',
  })
  @ApiOkResponse({ type: [CustomFieldDefinitionDto] })
  listCustomFields(@CurrentCaller() caller: Caller, @PathId('workspace') id: number): Promise<CustomFieldDefinitionDto[]> {
    return this.fields.listCustomFields(caller, id);
  }

  /** D39, D42: create custom field. */
  @Post('custom-fields')
  @Authenticated('workspaces:write', 'custom_field.create')
  @ApiOperation({
    summary: 'Create custom field',
    description:
      'Adds a field at position max + 1 of the workspace. Names are unique in the workspace ignoring case and surrounding spaces. ' +
      'Granted folders and override lists must belong to the workspace; allowed users who are not members are dropped.',
  })
  @ApiBody({ type: CreateCustomFieldDto })
  @ApiCreatedResponse({ type: CustomFieldDto })
  @ApiErrors({ 400: [FIELD_MESSAGES.workspaceId, ...fieldBodyMessages(false)], 404: STEP_8, 409: [DUPLICATE] })
  createCustomField(@CurrentCaller() caller: Caller, @Body() body: unknown): Promise<CustomFieldDto> {
    return this.fields.createCustomField(caller, body);
  }

  /** D39, D42: get custom field. */
  @Get('custom-fields/:custom_field_id')
  @Authenticated('workspaces:read', 'custom_field.manage')
  @ApiOperation({
    summary: 'Get custom field',
    description: 'The definition with its allowed users; owners and admins see every field, whatever its allowed users.',
  })
  @ApiOkResponse({ type: CustomFieldDto })
  getCustomField(@CurrentCaller() caller: Caller, @PathId('custom_field') id: number): Promise<CustomFieldDto> {
    return this.fields.getCustomField(caller, id);
  }

  /** D39, D42: update custom field. */
  @Patch('custom-fields/:custom_field_id')
  @Authenticated('workspaces:write', 'custom_field.manage')
  @ApiOperation({
    summary: 'Update custom field',
    description:
      'Only the fields sent change; the arrays replace the stored ones and `config` replaces the whole config. The type cannot change. ' +
      'Removing dropdown options clears the task values holding them.',
  })
  @ApiBody({ type: UpdateCustomFieldDto })
  @ApiOkResponse({ type: CustomFieldDto })
  @ApiErrors({ 400: fieldBodyMessages(true), 404: STEP_8, 409: [DUPLICATE] })
  updateCustomField(@CurrentCaller() caller: Caller, @PathId('custom_field') id: number, @Body() body: unknown): Promise<CustomFieldDto> {
    return this.fields.updateCustomField(caller, id, body);
  }

  /** D39, D42: delete custom field. */
  @Delete('custom-fields/:custom_field_id')
  @HttpCode(204)
  @Authenticated('workspaces:write', 'custom_field.manage')
  @ApiOperation({ summary: 'Delete custom field', description: 'Permanent; the values of the field on every task go with it.' })
  @ApiNoContentResponse()
  async deleteCustomField(@CurrentCaller() caller: Caller, @PathId('custom_field') id: number): Promise<void> {
    await this.fields.deleteCustomField(caller, id);
  }
}
