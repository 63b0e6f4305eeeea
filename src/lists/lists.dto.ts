import { ApiProperty } from '@nestjs/swagger';

import { ApiInteger } from '../common/openapi/integer.decorator';
import { MAX_LENGTH } from '../common/validation/body';
import { IsNumericId, IsPosition, ParentId, PlainString, TrimmedText } from '../common/validation/body-fields';

/** spec: List. */
export class ListDto {
  @ApiInteger({ example: 1 }) id: number;
  @ApiInteger({ example: 1 }) workspace_id: number;
  @ApiInteger({ nullable: true, example: 1, description: 'Parent folder' }) folder_id: number | null;
  @ApiProperty({ example: 'Backlog' }) name: string;
  @ApiProperty({ type: 'string', nullable: true, example: 'library', description: 'Icon slug' }) icon: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'gray', description: 'Defaults to `gray` on creation' }) color: string | null;
  @ApiInteger({ example: 1, description: 'Sort position, ascending' }) position: number;
  @ApiProperty({ format: 'date-time', example: '2025-01-15T09:30:00.000Z' }) created_at: string;
}

/** spec: Create list, request body; after validation, the values as stored. */
export class CreateListDto {
  @ParentId('workspace_id', 'Numeric id of the workspace')
  workspace_id: number;
  @ParentId('folder_id', 'Numeric id of a folder of the same workspace')
  folder_id: number;
  @TrimmedText('name', { max: MAX_LENGTH.name, required: true, description: 'Trimmed; blank is rejected', example: 'Backlog' }) name: string;
  @PlainString('icon', { description: 'Icon slug; null when not provided', example: 'library' }) icon?: string | null;
  @PlainString('color', { description: 'Defaults to `gray`', example: 'gray' }) color?: string | null;
}

/** D1 (ext): Update list, request body; only sent fields change (the others stay undefined after validation). */
export class UpdateListDto {
  @TrimmedText('name', { max: MAX_LENGTH.name, required: false, description: 'Trimmed; cannot be blank', example: 'Sprint 12' }) name?: string;
  @PlainString('icon', { example: 'chart' }) icon?: string | null;
  @PlainString('color', { example: 'orange' }) color?: string | null;
  @IsPosition({ example: 2 }) position?: number;
  // D6 names no message for a malformed folder_id of a move; this mirrors `list_id must be a valid numeric ID` (null included: a list moved through the API keeps a folder).
  @IsNumericId('folder_id', { description: 'Numeric id of another folder of the same workspace: moves the list' }) folder_id?: number;
}
