import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A task status (spec: Status); names unique per workspace ignoring case and spaces (D25). Table `statuses`; the schema comes from migrations. */
@Entity({ name: 'statuses' })
export class Status {
  @PrimaryGeneratedColumn('identity', { generatedIdentity: 'BY DEFAULT' })
  id: number;

  @Column({ name: 'workspace_id', type: 'integer' })
  workspaceId: number;

  @Column({ name: 'name', type: 'text' })
  name: string;

  @Column({ name: 'icon', type: 'text', nullable: true })
  icon: string | null;

  @Column({ name: 'color', type: 'text', nullable: true })
  color: string | null;

  @Column({ name: 'category', type: 'text' })
  category: string;

  @Column({ name: 'position', type: 'integer' })
  position: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
