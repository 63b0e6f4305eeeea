import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';

import { NOT_FOUND } from '../common/access/access.policy';
import { AccessService } from '../common/access/access.service';
import type { Caller } from '../common/auth/auth-context';
import { asBody } from '../common/validation/body';
import { parseId } from '../common/validation/ids';
import { FIELD_MESSAGES, parseCreateField, parseUpdateField } from './custom-field-body';
import type { CustomFieldDefinitionDto, CustomFieldDto, CustomFieldType } from './custom-fields.dto';
import { CustomFieldsRepository, FieldWriteResult } from './custom-fields.repository';

/** Rules for custom-field definitions (D42), in the order of D3. */
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

  /**
   * D42 create: `workspace_id` (400, step 4) → the workspace and a manager's membership (404, 403,
   * steps 5-6) → the body (400s, step 7) → granted folders, then override lists (404, step 8) →
   * the name (409, step 9) → 201. Two round trips: the access check, then one statement.
   */
  async createCustomField(caller: Caller, rawBody: unknown): Promise<CustomFieldDto> {
    const workspaceId = parseId(asBody(rawBody).workspace_id);
    if (workspaceId === null) throw new BadRequestException(FIELD_MESSAGES.workspaceId);
    await this.access.check(caller, 'custom_field.create', workspaceId);
    const body = parseCreateField(rawBody);
    return written(await this.fields.insert(caller, workspaceId, body, caller.db));
  }

  /** D42 get: managers, whatever the field's allowed users. One round trip: the access check reads the definition. */
  async getCustomField(caller: Caller, id: number): Promise<CustomFieldDto> {
    const { body } = await this.access.checkAndRead(caller, 'custom_field.manage', id, this.fields.definitionRead);
    return JSON.parse(body) as CustomFieldDto;
  }

  /**
   * D42 update: the field and a manager's membership (404, 403) → `type` sent at all (400), then the
   * other fields in order, the config judged by the stored type (400) → folders, lists (404) → the
   * name (409). Two round trips: the access check with the stored definition, then one statement.
   */
  async updateCustomField(caller: Caller, id: number, rawBody: unknown): Promise<CustomFieldDto> {
    const { body } = await this.access.checkAndRead(caller, 'custom_field.manage', id, this.fields.definitionRead);
    const stored = JSON.parse(body) as CustomFieldDto;
    const patch = parseUpdateField(rawBody, stored.type as CustomFieldType);
    return written(await this.fields.update(caller, id, caller.workspaceId!, patch, caller.db));
  }

  /** D42 delete: managers; the field's values go with it. 204. */
  async deleteCustomField(caller: Caller, id: number): Promise<void> {
    await this.access.check(caller, 'custom_field.manage', id);
    if (!(await this.fields.delete(caller, id, caller.db))) throw new NotFoundException(NOT_FOUND.custom_field);
  }
}

/** The answer of a write statement: its step 8 404 (folders first), the field, or the field's 404 when it went meanwhile. */
function written(result: FieldWriteResult): CustomFieldDto {
  if (!result.folders_ok) throw new NotFoundException(NOT_FOUND.folder);
  if (!result.lists_ok) throw new NotFoundException(NOT_FOUND.list);
  if (!result.field) throw new NotFoundException(NOT_FOUND.custom_field);
  return result.field;
}
