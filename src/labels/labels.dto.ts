import { BODY_ID } from '../common/openapi/ids';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** spec: Label. */
export class LabelDto {
  @ApiProperty() id: number;
  @ApiProperty() workspace_id: number;
  @ApiProperty() name: string;
  @ApiProperty({ type: 'string', nullable: true }) color: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

/** D1 (ext): body of create label. */
export class CreateLabelDto {
  @ApiProperty({ ...BODY_ID, description: 'Numeric id' }) workspace_id: number | string;
  @ApiProperty({ maxLength: 255, description: 'Unique in the workspace ignoring case' }) name: string;
  @ApiPropertyOptional({ type: 'string', nullable: true, example: 'red' }) color?: string | null;
}
