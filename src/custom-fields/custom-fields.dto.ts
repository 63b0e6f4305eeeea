import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

import { BODY_ID } from '../common/openapi/ids';
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

/** D42: a custom-field definition as create, get and update answer it: the listing's object plus its allowed users. */
export class CustomFieldDto extends CustomFieldDefinitionDto {
  @ApiProperty({
    type: 'array',
    items: { type: 'integer' },
    nullable: true,
    example: [7, 9],
    description: 'Users who see the field in the listing and in tasks, ascending; null: every member. Owners and admins manage the field either way',
  })
  allowed_user_ids: number[] | null;
}

/** An array of ids as bodies send them (D5). */
const BODY_IDS = { type: 'array', items: { oneOf: BODY_ID.oneOf } } as const;

/** `list_overrides` element of a create or update body. */
export class CustomFieldListOverrideInputDto {
  @ApiProperty({ ...BODY_ID, example: 3, description: 'A list of the workspace' })
  list_id: number | string;
  @ApiProperty({ enum: ['granted', 'denied'] }) access: 'granted' | 'denied';
}

const CONFIG_DOC =
  'By type: dropdown `{ options }` (required: 1 to 50 distinct strings of 1 to 100 characters, trimmed); ' +
  'money `{ currency, decimals }` (required: three capital letters, an integer from 0 to 6); ' +
  'rating `{ iconName, color }` (optional: defaults `"star"` and null); text, number, date, checkbox, people: null. Other keys are dropped.';

/** D42: create custom field, request body (documentation; custom-field-body.ts reads it). */
export class CreateCustomFieldDto {
  @ApiProperty({ ...BODY_ID, description: 'Numeric id of the workspace' }) workspace_id: number | string;
  @ApiProperty({ type: 'string', maxLength: 255, example: 'Estimate', description: 'Trimmed; unique in the workspace ignoring case' }) name: string;
  @ApiProperty({ enum: CUSTOM_FIELD_TYPES }) type: CustomFieldType;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, nullable: true, example: { options: ['Low', 'High'] }, description: CONFIG_DOC })
  config?: Record<string, unknown> | null;
  @ApiPropertyOptional({
    type: 'boolean',
    default: false,
    description: 'true: the field applies only to the lists covered by granted_folder_ids and list_overrides',
  })
  is_scope_restricted?: boolean;
  @ApiPropertyOptional({ ...BODY_IDS, default: [], example: [2], description: 'Folders of the workspace whose lists get the field when restricted' })
  granted_folder_ids?: Array<number | string>;
  @ApiPropertyOptional({ type: [CustomFieldListOverrideInputDto], default: [], description: 'Lists of the workspace, each at most once' })
  list_overrides?: CustomFieldListOverrideInputDto[];
  @ApiPropertyOptional({
    ...BODY_IDS,
    nullable: true,
    default: null,
    example: [7],
    description: 'null: every member sees the field; else only these users (non-members are dropped; [] means nobody)',
  })
  allowed_user_ids?: Array<number | string> | null;
}

/** D42: update custom field, request body; only the fields sent change, and the arrays replace. */
export class UpdateCustomFieldDto {
  @ApiPropertyOptional({ type: 'string', maxLength: 255, example: 'Estimate (days)' }) name?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: `Replaces the whole config. ${CONFIG_DOC} For rating, null restores the defaults.`,
  })
  config?: Record<string, unknown> | null;
  @ApiPropertyOptional({ type: 'boolean' }) is_scope_restricted?: boolean;
  @ApiPropertyOptional({ ...BODY_IDS }) granted_folder_ids?: Array<number | string>;
  @ApiPropertyOptional({ type: [CustomFieldListOverrideInputDto] }) list_overrides?: CustomFieldListOverrideInputDto[];
  @ApiPropertyOptional({ ...BODY_IDS, nullable: true }) allowed_user_ids?: Array<number | string> | null;
  @ApiPropertyOptional({ type: 'integer', example: 2, description: 'Sort position' }) position?: number;
}
