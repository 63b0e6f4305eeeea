import { BODY_ID } from '../common/openapi/ids';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** spec: Folder. */
export class FolderDto {
  @ApiProperty({ example: 1 }) id: number;
  @ApiProperty({ example: 1 }) workspace_id: number;
  @ApiProperty({ example: 'Engineering' }) name: string;
  @ApiProperty({ type: 'string', nullable: true, example: 'folder-1', description: 'Icon slug' }) icon: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'blue', description: 'Defaults to `blue` on creation' }) color: string | null;
  @ApiProperty({ example: 1, description: 'Sort position, ascending' }) position: number;
  @ApiProperty({ format: 'date-time', example: '2025-01-15T09:30:00.000Z' }) created_at: string;
}

/** spec: Create folder, request body. */
export class CreateFolderDto {
  @ApiProperty({ ...BODY_ID, description: 'Numeric id of the workspace' }) workspace_id: number | string;
  @ApiProperty({ maxLength: 255, description: 'Trimmed; blank is rejected', example: 'Engineering' }) name: string;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 255, description: 'Icon slug; null when not provided', example: 'folder-1' }) icon?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 255, description: 'Defaults to `blue`', example: 'blue' }) color?: string | null;
}

/** D1 (ext): Update folder, request body; only sent fields change. */
export class UpdateFolderDto {
  @ApiPropertyOptional({ maxLength: 255, description: 'Trimmed; cannot be blank', example: 'Platform' }) name?: string;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 255, example: 'code' }) icon?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 255, example: 'purple' }) color?: string | null;
  @ApiPropertyOptional({ type: 'integer', description: 'Sort position', example: 2 }) position?: number;
}
