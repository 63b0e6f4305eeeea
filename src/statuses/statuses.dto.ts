import { ApiProperty } from '@nestjs/swagger';

import { ApiInteger } from '../common/openapi/integer.decorator';
import { MAX_LENGTH } from '../common/validation/body';
import { IsOneOf, IsPosition, ParentId, PlainString, TrimmedText } from '../common/validation/body-fields';

/** Status categories: the state set of a status (spec: States and transitions). */
export const STATUS_CATEGORIES = ['pending', 'in_progress', 'completed', 'cancelled'] as const;
export type StatusCategory = (typeof STATUS_CATEGORIES)[number];

/** D40: the statuses a new workspace gets (when its fixture or `workspaces create` names none), in position order. */
export const DEFAULT_STATUSES: ReadonlyArray<{ name: string; category: StatusCategory }> = [
  { name: 'To Do', category: 'pending' },
  { name: 'In Progress', category: 'in_progress' },
  { name: 'Done', category: 'completed' },
  { name: 'Cancelled', category: 'cancelled' },
];

/** D25: the answer to a missing or unknown category. */
export const INVALID_CATEGORY = `Invalid category. Must be one of: ${STATUS_CATEGORIES.join(', ')}`;

/** spec: Status (the full object, as create, update and the listing return it). */
export class StatusDto {
  @ApiInteger({ example: 1 }) id: number;
  @ApiInteger({ example: 1 }) workspace_id: number;
  @ApiProperty({ example: 'In Review', description: 'Unique in the workspace ignoring case and surrounding spaces' }) name: string;
  @ApiProperty({ type: 'string', nullable: true, example: 'chart', description: 'Icon slug' }) icon: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'gray' }) color: string | null;
  @ApiProperty({ enum: STATUS_CATEGORIES }) category: StatusCategory;
  @ApiInteger({ example: 1, description: 'Sort position, ascending' }) position: number;
  @ApiProperty({ format: 'date-time', example: '2025-01-15T09:30:00.000Z' }) created_at: string;
}

/** spec: Create status, request body; after validation, the values as stored. */
export class CreateStatusDto {
  @ParentId('workspace_id', 'Numeric id of the workspace')
  workspace_id: number;
  @TrimmedText('name', { max: MAX_LENGTH.name, required: true, description: 'Trimmed; unique in the workspace ignoring case', example: 'In Review' })
  name: string;
  @IsOneOf('category', STATUS_CATEGORIES, INVALID_CATEGORY, { required: true }) category: StatusCategory;
  @PlainString('icon', { description: 'Icon slug; null when not provided', example: 'chart' }) icon?: string | null;
  @PlainString('color', { description: 'Defaults to `gray`', example: 'purple' }) color?: string | null;
}

/** spec: Update status, request body; only sent fields change (the others stay undefined after validation). */
export class UpdateStatusDto {
  @TrimmedText('name', { max: MAX_LENGTH.name, required: false, description: 'Cannot be blank; unique in the workspace ignoring case', example: 'Shipped' })
  name?: string;
  @IsOneOf('category', STATUS_CATEGORIES, INVALID_CATEGORY, { description: 'The last remaining `completed` status cannot change category' })
  category?: StatusCategory;
  @PlainString('icon', { example: 'chart' }) icon?: string | null;
  @PlainString('color', { example: 'red' }) color?: string | null;
  @IsPosition({ example: 3 }) position?: number;
}
