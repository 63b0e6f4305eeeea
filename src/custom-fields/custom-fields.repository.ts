import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ColumnField, FieldsMatch, selectListSql } from '../common/database/field-table';
import { fieldVisibleSql } from '../tasks/tasks.sql';
import type { CustomFieldDefinitionDto } from './custom-fields.dto';

/**
 * spec: Custom-field definition, key by key in response order, over `custom_fields f`
 * (field-table.ts; the API writes no definitions). Folder grants are the field's own
 * array, list overrides a subquery: one statement whatever the number of fields.
 */
const DEFINITION_FIELDS = [
  { key: 'id', sql: 'f.id' },
  { key: 'name', sql: 'f.name' },
  { key: 'type', sql: 'f.type' },
  { key: 'config', sql: 'f.config' },
  { key: 'position', sql: 'f.position' },
  { key: 'is_scope_restricted', sql: 'f.is_scope_restricted' },
  { key: 'granted_folder_ids', sql: 'f.granted_folder_ids' },
  {
    key: 'list_overrides',
    sql: `COALESCE((SELECT json_agg(json_build_object('list_id', o.list_id, 'access', o.access) ORDER BY o.list_id)
                      FROM custom_field_list_overrides o WHERE o.field_id = f.id), '[]'::json)`,
  },
] as const satisfies readonly ColumnField[];

/** Fails to compile when DEFINITION_FIELDS and the response disagree on a key. */
const FIELDS_MATCH_DTO: FieldsMatch<typeof DEFINITION_FIELDS, CustomFieldDefinitionDto> = true;
void FIELDS_MATCH_DTO;

const DEFINITION_COLUMNS = selectListSql(DEFINITION_FIELDS);

/** SQL for custom-field definitions. */
@Injectable()
export class CustomFieldsRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * The definitions of workspace `workspaceId` that user `userId` may see
   * (D19: no allowed-users list, or the user is on it), by position then id
   * (D23), with their folder grants and list overrides. One statement.
   */
  listVisible(workspaceId: number, userId: number): Promise<CustomFieldDefinitionDto[]> {
    return this.db.query(
      `SELECT ${DEFINITION_COLUMNS}
         FROM custom_fields f
        WHERE f.workspace_id = $1
          AND ${fieldVisibleSql('f', '$2')}
        ORDER BY f.position, f.id`,
      [workspaceId, userId],
    );
  }
}
