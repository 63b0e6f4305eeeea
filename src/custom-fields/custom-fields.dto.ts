import { ApiProperty } from '@nestjs/swagger';
import { ApiInteger } from '../common/openapi/integer.decorator';

/** spec: Custom-field entry, `type`. */
export const CUSTOM_FIELD_TYPES = ['text', 'number', 'date', 'checkbox', 'rating', 'dropdown', 'money', 'people'] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

/** spec: Custom-field definition, `list_overrides` element (D19). */
export class CustomFieldListOverrideDto {
  @ApiInteger({ example: 3 }) list_id: number;
  @ApiProperty({ enum: ['granted', 'denied'], description: '`denied` hides the field on that list even if its folder is granted' })
  access: 'granted' | 'denied';
}

/** spec: Custom-field definition (custom-field listing). */
export class CustomFieldDefinitionDto {
  @ApiInteger({ example: 1 }) id: number;
  @ApiProperty({ example: 'Estimate' }) name: string;
  @ApiProperty({ enum: CUSTOM_FIELD_TYPES }) type: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    example: { iconName: 'star', color: 'orange' },
    description:
      'By type: rating `{ iconName, color }` (the listing names the icon key `iconName`); dropdown `{ options: string[] }`; money `{ currency, decimals }`; text, number, date, checkbox, people `null`.',
  })
  config: Record<string, unknown> | null;
  @ApiInteger({ example: 1, description: 'Sort position within the workspace' }) position: number;
  @ApiProperty({ description: '`false`: available on every list; `true`: only on lists covered by granted_folder_ids and list_overrides' })
  is_scope_restricted: boolean;
  @ApiProperty({ type: 'array', items: { type: 'integer' }, example: [2], description: 'Folders whose lists inherit the field when restricted, ascending' })
  granted_folder_ids: number[];
  @ApiProperty({ type: [CustomFieldListOverrideDto], description: 'Per-list overrides, by list_id' })
  list_overrides: CustomFieldListOverrideDto[];
}
