import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A comment on a task (spec: Comment). Table `comments`; the schema comes from migrations. */
@Entity({ name: 'comments' })
export class Comment {
  @PrimaryGeneratedColumn('identity', { generatedIdentity: 'BY DEFAULT' })
  id: number;

  @Column({ name: 'workspace_id', type: 'integer' })
  workspaceId: number;

  @Column({ name: 'task_id', type: 'integer' })
  taskId: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ name: 'parent_comment_id', type: 'integer', nullable: true })
  parentCommentId: number | null;

  @Column({ name: 'content', type: 'text' })
  content: string;

  @Column({ name: 'resolved', type: 'boolean' })
  resolved: boolean;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
