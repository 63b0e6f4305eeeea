import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A label on a task (D14). Table `task_labels`; the schema comes from migrations. */
@Entity({ name: 'task_labels' })
export class TaskLabel {
  @PrimaryColumn({ name: 'task_id', type: 'integer' })
  taskId: number;

  @PrimaryColumn({ name: 'label_id', type: 'integer' })
  labelId: number;

  @Column({ name: 'workspace_id', type: 'integer' })
  workspaceId: number;
}
