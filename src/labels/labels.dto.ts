import { BadRequestException } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';

import { ApiInteger } from '../common/openapi/integer.decorator';
import { checkText, MAX_LENGTH, nulMessage, patchText, patchTextMessages } from '../common/validation/body';
import { ParentId, PlainString, RuleField, TrimmedText } from '../common/validation/body-fields';

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

/** D43: longest label color on update, in characters. */
export const LABEL_COLOR_MAX_LENGTH = 64;

const COLOR_TYPE = 'color must be a string or null';
const COLOR_LENGTH = `color must be at most ${LABEL_COLOR_MAX_LENGTH} characters`;

/** D43: body of update label, checked in the order `name`, `color`; after validation, the values as stored (undefined: not sent). */
export class UpdateLabelDto {
  @RuleField(
    {
      name: 'name',
      api: { type: 'string', maxLength: MAX_LENGTH.name, description: 'Trimmed; cannot be blank; unique in the workspace ignoring case' },
      required: false,
      messages: patchTextMessages('name', MAX_LENGTH.name),
    },
    // null counts as not sent.
    (value) => (value === null ? undefined : patchText('name', value, MAX_LENGTH.name)),
  )
  name?: string;
  @RuleField(
    {
      name: 'color',
      api: { type: 'string', nullable: true, maxLength: LABEL_COLOR_MAX_LENGTH, description: 'Stored as sent; null clears', example: 'red' },
      required: false,
      messages: [COLOR_TYPE, nulMessage('color'), COLOR_LENGTH],
    },
    (value) => {
      if (value === undefined || value === null) return value;
      if (typeof value !== 'string') throw new BadRequestException(COLOR_TYPE);
      // Code points, as every length of D39.
      if ([...checkText('color', value)].length > LABEL_COLOR_MAX_LENGTH) throw new BadRequestException(COLOR_LENGTH);
      return value;
    },
  )
  color?: string | null;
}
