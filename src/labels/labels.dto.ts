import { ApiProperty } from '@nestjs/swagger';
import { ApiInteger } from '../common/openapi/integer.decorator';
import { MAX_LENGTH } from '../common/validation/body';
import { ParentId, PlainString, TrimmedText } from '../common/validation/body-fields';

/** spec: Label. */
export class LabelDto {
  @ApiInteger() id: number;
  @ApiInteger() workspace_id: number;
  @ApiProperty() name: string;
  @ApiProperty({ type: 'string', nullable: true }) color: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

/** D1 (ext): body of create label; after validation, the values as stored. */
export class CreateLabelDto {
  @ParentId('workspace_id', 'Numeric id')
  workspace_id: number;
  @TrimmedText('name', { max: MAX_LENGTH.name, required: true, description: 'Unique in the workspace ignoring case' }) name: string;
  @PlainString('color', { example: 'red' }) color?: string | null;
}
