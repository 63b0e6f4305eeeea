import { ApiProperty } from '@nestjs/swagger';

import { ApiInteger } from '../common/openapi/integer.decorator';
import { MAX_LENGTH } from '../common/validation/body';
import { IsPosition, ParentId, PlainString, TrimmedText } from '../common/validation/body-fields';

/** spec: Folder. */
export class FolderDto {
  @ApiInteger({ example: 1 }) id: number;
  @ApiInteger({ example: 1 }) workspace_id: number;
  @ApiProperty({ example: 'Engineering' }) name: string;
  @ApiProperty({ type: 'string', nullable: true, example: 'folder-1', description: 'Icon slug' }) icon: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'blue', description: 'Defaults to `blue` on creation' }) color: string | null;
  @ApiInteger({ example: 1, description: 'Sort position, ascending' }) position: number;
  @ApiProperty({ format: 'date-time', example: '2025-01-15T09:30:00.000Z' }) created_at: string;
}

/** spec: Create folder, request body; after validation, the values as stored. */
export class CreateFolderDto {
  @ParentId('workspace_id', 'Numeric id of the workspace')
  workspace_id: number;
  @TrimmedText('name', { max: MAX_LENGTH.name, required: true, description: 'Trimmed; blank is rejected', example: 'Engineering' }) name: string;
  @PlainString('icon', { description: 'Icon slug; null when not provided', example: 'folder-1' }) icon?: string | null;
  @PlainString('color', { description: 'Defaults to `blue`', example: 'blue' }) color?: string | null;
}

/** D1 (ext): Update folder, request body; only sent fields change (the others stay undefined after validation). */
export class UpdateFolderDto {
  @TrimmedText('name', { max: MAX_LENGTH.name, required: false, description: 'Trimmed; cannot be blank', example: 'Platform' }) name?: string;
  @PlainString('icon', { example: 'code' }) icon?: string | null;
  @PlainString('color', { example: 'purple' }) color?: string | null;
  @IsPosition({ example: 2 }) position?: number;
}
