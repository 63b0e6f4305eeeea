import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A custom-field definition (spec: Custom-field definition; D19). Table `custom_fields`; the schema comes from migrations. */
@Entity({ name: 'custom_fields' })
export class CustomField {
  @PrimaryGeneratedColumn('identity', { generatedIdentity: 'BY DEFAULT' })
  id: number;

  @Column({ name: 'workspace_id', type: 'integer' })
  workspaceId: number;

  @Column({ name: 'name', type: 'text' })
  name: string;

  @Column({ name: 'type', type: 'text' })
  type: string;

  @Column({ name: 'config', type: 'jsonb', nullable: true })
  config: Record<string, unknown> | null;

  @Column({ name: 'position', type: 'integer' })
  position: number;

  @Column({ name: 'is_scope_restricted', type: 'boolean' })
  isScopeRestricted: boolean;

  @Column({ name: 'has_allowed_users', type: 'boolean' })
  hasAllowedUsers: boolean;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
