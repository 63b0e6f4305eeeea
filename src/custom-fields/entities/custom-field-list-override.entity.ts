import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A per-list `granted` or `denied` override of a restricted field (D19). Table `custom_field_list_overrides`; the schema comes from migrations. */
@Entity({ name: 'custom_field_list_overrides' })
export class CustomFieldListOverride {
  @PrimaryColumn({ name: 'field_id', type: 'integer' })
  fieldId: number;

  @PrimaryColumn({ name: 'list_id', type: 'integer' })
  listId: number;

  @Column({ name: 'workspace_id', type: 'integer' })
  workspaceId: number;

  @Column({ name: 'access', type: 'text' })
  access: string;
}
