import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A label (spec: Label). Table `labels`; the schema comes from migrations. */
@Entity({ name: 'labels' })
export class Label {
  @PrimaryGeneratedColumn('identity', { generatedIdentity: 'BY DEFAULT' })
  id: number;

  @Column({ name: 'workspace_id', type: 'integer' })
  workspaceId: number;

  @Column({ name: 'name', type: 'text' })
  name: string;

  @Column({ name: 'color', type: 'text', nullable: true })
  color: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
