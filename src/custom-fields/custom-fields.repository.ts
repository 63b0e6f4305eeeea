import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { CustomFieldDefinitionDto } from './custom-fields.dto';

/** SQL for custom-field definitions. */
@Injectable()
export class CustomFieldsRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * The definitions of workspace `workspaceId` that user `userId` may see
   * (D19: no allowed-users list, or the user is on it), by position then id
   * (D23), with their folder grants and list overrides. One statement
   * whatever the number of fields: grants and overrides are array subqueries.
   */
  listVisible(workspaceId: number, userId: number): Promise<CustomFieldDefinitionDto[]> {
    return this.db.query(
      `SELECT f.id, f.name, f.type, f.config, f.position, f.is_scope_restricted,
              ARRAY(SELECT g.folder_id FROM custom_field_folder_grants g
                     WHERE g.field_id = f.id ORDER BY g.folder_id) AS granted_folder_ids,
              COALESCE((SELECT json_agg(json_build_object('list_id', o.list_id, 'access', o.access) ORDER BY o.list_id)
                          FROM custom_field_list_overrides o WHERE o.field_id = f.id), '[]'::json) AS list_overrides
         FROM custom_fields f
        WHERE f.workspace_id = $1
          AND (NOT f.has_allowed_users
               OR EXISTS (SELECT 1 FROM custom_field_allowed_users a WHERE a.field_id = f.id AND a.user_id = $2))
        ORDER BY f.position, f.id`,
      [workspaceId, userId],
    );
  }
}
