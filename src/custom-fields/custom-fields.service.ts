import { Injectable } from '@nestjs/common';
import { AccessService } from '../common/access/access.service';
import type { Caller } from '../common/auth/auth-context';
import type { CustomFieldDefinitionDto } from './custom-fields.dto';
import { CustomFieldsRepository } from './custom-fields.repository';

/** Rules for custom-field definitions. */
@Injectable()
export class CustomFieldsService {
  constructor(
    private readonly access: AccessService,
    private readonly fields: CustomFieldsRepository,
  ) {}

  /**
   * spec: List custom fields. Any member (404 `Workspace not found` otherwise,
   * D4); not limited by access restriction (D30); only the fields visible to
   * the key's user (D19).
   */
  async listCustomFields(caller: Caller, workspaceId: number): Promise<CustomFieldDefinitionDto[]> {
    await this.access.workspace(caller, workspaceId);
    return this.fields.listVisible(workspaceId, caller.userId);
  }
}
