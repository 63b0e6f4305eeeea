import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A file attached to a task; only confirmed ones appear in responses. Table `attachments`; the schema comes from migrations. */
@Entity({ name: 'attachments' })
export class Attachment {
  @PrimaryGeneratedColumn('identity', { generatedIdentity: 'BY DEFAULT' })
  id: number;

  @Column({ name: 'workspace_id', type: 'integer' })
  workspaceId: number;

  @Column({ name: 'task_id', type: 'integer' })
  taskId: number;

  @Column({ name: 'uploader_id', type: 'integer' })
  uploaderId: number;

  @Column({ name: 'file_name', type: 'text' })
  fileName: string;

  @Column({ name: 'file_size', type: 'bigint' })
  fileSize: number;

  @Column({ name: 'mime_type', type: 'text' })
  mimeType: string;

  @Column({ name: 'confirmed', type: 'boolean' })
  confirmed: boolean;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
