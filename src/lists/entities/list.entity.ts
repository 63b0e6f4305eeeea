import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A list (spec: List). Table `lists`; the schema comes from migrations. */
@Entity({ name: 'lists' })
export class List {
  @PrimaryGeneratedColumn('identity', { generatedIdentity: 'BY DEFAULT' })
  id: number;

  @Column({ name: 'workspace_id', type: 'integer' })
  workspaceId: number;

  @Column({ name: 'folder_id', type: 'integer', nullable: true })
  folderId: number | null;

  @Column({ name: 'name', type: 'text' })
  name: string;

  @Column({ name: 'icon', type: 'text', nullable: true })
  icon: string | null;

  @Column({ name: 'color', type: 'text', nullable: true })
  color: string | null;

  @Column({ name: 'position', type: 'integer' })
  position: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
