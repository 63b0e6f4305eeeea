import { BODY_ID } from '../common/openapi/ids';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** spec: List. */
export class ListDto {
  @ApiProperty({ example: 1 }) id: number;
  @ApiProperty({ example: 1 }) workspace_id: number;
  @ApiProperty({ type: 'integer', nullable: true, example: 1, description: 'Parent folder' }) folder_id: number | null;
  @ApiProperty({ example: 'Backlog' }) name: string;
  @ApiProperty({ type: 'string', nullable: true, example: 'library', description: 'Icon slug' }) icon: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'gray', description: 'Defaults to `gray` on creation' }) color: string | null;
  @ApiProperty({ example: 1, description: 'Sort position, ascending' }) position: number;
  @ApiProperty({ format: 'date-time', example: '2025-01-15T09:30:00.000Z' }) created_at: string;
}

/** spec: Create list, request body. */
export class CreateListDto {
  @ApiProperty({ ...BODY_ID, description: 'Numeric id of the workspace' }) workspace_id: number | string;
  @ApiProperty({ ...BODY_ID, description: 'Numeric id of a folder of the same workspace' }) folder_id: number | string;
  @ApiProperty({ maxLength: 255, description: 'Trimmed; blank is rejected', example: 'Backlog' }) name: string;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 255, description: 'Icon slug; null when not provided', example: 'library' }) icon?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 255, description: 'Defaults to `gray`', example: 'gray' }) color?: string | null;
}

/** D1 (ext): Update list, request body; only sent fields change. */
export class UpdateListDto {
  @ApiPropertyOptional({ maxLength: 255, description: 'Trimmed; cannot be blank', example: 'Sprint 12' }) name?: string;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 255, example: 'chart' }) icon?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 255, example: 'orange' }) color?: string | null;
  @ApiPropertyOptional({ type: 'integer', description: 'Sort position', example: 2 }) position?: number;
  @ApiPropertyOptional({ ...BODY_ID, description: 'Numeric id of another folder of the same workspace: moves the list' }) folder_id?: number | string;
}
