import { BODY_ID } from '../common/openapi/ids';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** Status categories: the state set of a status (spec: States and transitions). */
export const STATUS_CATEGORIES = ['pending', 'in_progress', 'completed', 'cancelled'] as const;
export type StatusCategory = (typeof STATUS_CATEGORIES)[number];

/** spec: Status (the full object, as create, update and the listing return it). */
export class StatusDto {
  @ApiProperty({ example: 1 }) id: number;
  @ApiProperty({ example: 1 }) workspace_id: number;
  @ApiProperty({ example: 'In Review', description: 'Unique in the workspace ignoring case and surrounding spaces' }) name: string;
  @ApiProperty({ type: 'string', nullable: true, example: 'chart', description: 'Icon slug' }) icon: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'gray' }) color: string | null;
  @ApiProperty({ enum: STATUS_CATEGORIES }) category: StatusCategory;
  @ApiProperty({ example: 1, description: 'Sort position, ascending' }) position: number;
  @ApiProperty({ format: 'date-time', example: '2025-01-15T09:30:00.000Z' }) created_at: string;
}

/** spec: Create status, request body. */
export class CreateStatusDto {
  @ApiProperty({ ...BODY_ID, description: 'Numeric id of the workspace' }) workspace_id: number | string;
  @ApiProperty({ maxLength: 255, description: 'Trimmed; unique in the workspace ignoring case', example: 'In Review' }) name: string;
  @ApiProperty({ enum: STATUS_CATEGORIES }) category: StatusCategory;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 255, description: 'Icon slug; null when not provided', example: 'chart' }) icon?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 255, description: 'Defaults to `gray`', example: 'purple' }) color?: string | null;
}

/** spec: Update status, request body; only sent fields change. */
export class UpdateStatusDto {
  @ApiPropertyOptional({ maxLength: 255, description: 'Cannot be blank; unique in the workspace ignoring case', example: 'Shipped' }) name?: string;
  @ApiPropertyOptional({ enum: STATUS_CATEGORIES, description: 'The last remaining `completed` status cannot change category' }) category?: StatusCategory;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 255, example: 'chart' }) icon?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 255, example: 'red' }) color?: string | null;
  @ApiPropertyOptional({ type: 'integer', description: 'Sort position', example: 3 }) position?: number;
}
