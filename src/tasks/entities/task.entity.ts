import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A task (spec: Task); `identifier` is unique per workspace (D15). Table `tasks`; the schema comes from migrations. */
@Entity({ name: 'tasks' })
export class Task {
  @PrimaryGeneratedColumn('identity', { generatedIdentity: 'BY DEFAULT' })
  id: number;

  @Column({ name: 'workspace_id', type: 'integer' })
  workspaceId: number;

  @Column({ name: 'list_id', type: 'integer', nullable: true })
  listId: number | null;

  @Column({ name: 'parent_id', type: 'integer', nullable: true })
  parentId: number | null;

  @Column({ name: 'identifier', type: 'integer' })
  identifier: number;

  @Column({ name: 'title', type: 'text' })
  title: string;

  @Column({ name: 'description', type: 'text', nullable: true })
  description: string | null;

  @Column({ name: 'priority', type: 'text' })
  priority: string;

  @Column({ name: 'status_id', type: 'integer', nullable: true })
  statusId: number | null;

  @Column({ name: 'due_date', type: 'timestamptz', nullable: true })
  dueDate: Date | null;

  @Column({ name: 'start_date', type: 'timestamptz', nullable: true })
  startDate: Date | null;

  @Column({ name: 'creator_id', type: 'integer' })
  creatorId: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
