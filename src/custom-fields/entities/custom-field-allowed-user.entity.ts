import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A user allowed to see a field whose allowed-users list is set (D19). Table `custom_field_allowed_users`; the schema comes from migrations. */
@Entity({ name: 'custom_field_allowed_users' })
export class CustomFieldAllowedUser {
  @PrimaryColumn({ name: 'field_id', type: 'integer' })
  fieldId: number;

  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ name: 'workspace_id', type: 'integer' })
  workspaceId: number;
}
