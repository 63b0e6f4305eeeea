import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A workspace; `task_counter` is the last task identifier handed out (D15). Table `workspaces`; the schema comes from migrations. */
@Entity({ name: 'workspaces' })
export class Workspace {
  @PrimaryGeneratedColumn('identity', { generatedIdentity: 'BY DEFAULT' })
  id: number;

  @Column({ name: 'name', type: 'text' })
  name: string;

  @Column({ name: 'slug', type: 'text' })
  slug: string;

  @Column({ name: 'description', type: 'text', nullable: true })
  description: string | null;

  @Column({ name: 'icon', type: 'text', nullable: true })
  icon: string | null;

  @Column({ name: 'color', type: 'text', nullable: true })
  color: string | null;

  @Column({ name: 'image_url', type: 'text', nullable: true })
  imageUrl: string | null;

  @Column({ name: 'owner_id', type: 'integer' })
  ownerId: number;

  @Column({ name: 'task_counter', type: 'integer' })
  taskCounter: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
