import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A folder whose lists inherit a restricted field (D19). Table `custom_field_folder_grants`; the schema comes from migrations. */
@Entity({ name: 'custom_field_folder_grants' })
export class CustomFieldFolderGrant {
  @PrimaryColumn({ name: 'field_id', type: 'integer' })
  fieldId: number;

  @PrimaryColumn({ name: 'folder_id', type: 'integer' })
  folderId: number;

  @Column({ name: 'workspace_id', type: 'integer' })
  workspaceId: number;
}
