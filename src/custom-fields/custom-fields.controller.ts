import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { PathId } from '../common/validation/id.pipe';
import { CustomFieldDefinitionDto } from './custom-fields.dto';
import { CustomFieldsService } from './custom-fields.service';

@ApiTags('Custom fields')
@Controller('api/v1/workspaces')
export class CustomFieldsController {
  constructor(private readonly fields: CustomFieldsService) {}

  /** spec: List custom fields (D1: GET /api/v1/workspaces/:id/custom-fields). */
  @Get(':workspace_id/custom-fields')
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
}
