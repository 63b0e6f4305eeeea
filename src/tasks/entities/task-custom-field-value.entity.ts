import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A task's value of a custom field, stored as a string (D13). Table `task_custom_field_values`; the schema comes from migrations. */
@Entity({ name: 'task_custom_field_values' })
export class TaskCustomFieldValue {
  @PrimaryColumn({ name: 'task_id', type: 'integer' })
  taskId: number;

  @PrimaryColumn({ name: 'field_id', type: 'integer' })
  fieldId: number;

  @Column({ name: 'workspace_id', type: 'integer' })
  workspaceId: number;

  @Column({ name: 'value', type: 'text' })
  value: string;
}
