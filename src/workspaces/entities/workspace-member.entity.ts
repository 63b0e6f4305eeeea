import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A membership: role and access restriction (D29). Table `workspace_members`; the schema comes from migrations. */
@Entity({ name: 'workspace_members' })
export class WorkspaceMember {
  @PrimaryColumn({ name: 'workspace_id', type: 'integer' })
  workspaceId: number;

  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ name: 'role', type: 'text' })
  role: string;

  @Column({ name: 'is_restricted', type: 'boolean' })
  isRestricted: boolean;

  @Column({ name: 'joined_at', type: 'timestamptz' })
  joinedAt: Date;
}
