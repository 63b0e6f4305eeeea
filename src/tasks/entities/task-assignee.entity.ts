import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A user assigned to a task (D12). Table `task_assignees`; the schema comes from migrations. */
@Entity({ name: 'task_assignees' })
export class TaskAssignee {
  @PrimaryColumn({ name: 'task_id', type: 'integer' })
  taskId: number;

  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ name: 'workspace_id', type: 'integer' })
  workspaceId: number;
}
