import { BadRequestException } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { ApiInteger } from '../common/openapi/integer.decorator';
import { BODY_ID } from '../common/openapi/ids';
import { checkLength, checkText, MAX_LENGTH, nulMessage, tooLongMessage } from '../common/validation/body';
import { parseId } from '../common/validation/ids';
import { IdArray, IsApiDate, IsNumericId, IsOneOf, RuleField, SanitizedHtml, TrimmedText } from '../common/validation/body-fields';
import { CUSTOM_FIELD_TYPES } from '../custom-fields/custom-fields.dto';
import { STATUS_CATEGORIES } from '../statuses/statuses.dto';

/** spec: Task priority values (D10). */
export const PRIORITIES = ['urgent', 'high', 'medium', 'low', 'none'] as const;

/** spec: a new task's priority when the body gives none. */
export const DEFAULT_PRIORITY = 'none' satisfies (typeof PRIORITIES)[number];
export type Priority = (typeof PRIORITIES)[number];

/** D10: the 400 for a priority outside the five. */
export const PRIORITY_MESSAGE = `Invalid priority. Must be one of: ${PRIORITIES.join(', ')}`;

/** One `custom_fields` element after D13 parsing: the value as stored, or null to clear. */
export interface CustomFieldInput {
  id: number;
  value: string | null;
}

/** D13: longest stored text of a custom-field value, in characters. */
export const CUSTOM_FIELD_VALUE_MAX_LENGTH = 10_000;

/** The 400s of customFieldValues other than checkText's NUL message and checkLength's. */
const NOT_AN_ARRAY = 'custom_fields must be an array';
const NOT_A_STRING = 'custom_fields value must be a string or null';
const VALUE_FIELD = 'custom_fields value';

/**
 * D13, the `custom_fields` of create and update task, as sent: undefined when
 * not sent; not an array: 400 `custom_fields must be an array`. Elements that
 * are not objects with a well-formed `id`, or have no `value` key, are ignored.
 * `value`: a string as is (NUL: 400 `custom_fields value must not contain NUL
 * characters`), a number or boolean as its JSON text, null clears; an object
 * or array: 400 `custom_fields value must be a string or null`; a stored text
 * over 10,000 characters: 400 `custom_fields value must be at most 10000
 * characters`. One entry per field id: the last one sent wins.
 */
function customFieldValues(value: unknown): CustomFieldInput[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw new BadRequestException(NOT_AN_ARRAY);
  const byId = new Map<number, string | null>();
  for (const element of value) {
    if (typeof element !== 'object' || element === null || Array.isArray(element)) continue;
    const entry = element as Record<string, unknown>;
    const id = parseId(entry.id);
    if (!id || !Object.hasOwn(entry, 'value')) continue;
    const raw = entry.value;
    let stored: string | null;
    if (raw === null) stored = null;
    else if (typeof raw === 'string') stored = checkText(VALUE_FIELD, raw);
    else if (typeof raw === 'number' || typeof raw === 'boolean') stored = JSON.stringify(raw);
    else throw new BadRequestException(NOT_A_STRING);
    if (stored !== null) checkLength(VALUE_FIELD, stored, CUSTOM_FIELD_VALUE_MAX_LENGTH);
    byId.delete(id); // keep the order of the last occurrence
    byId.set(id, stored);
  }
  return [...byId].map(([id, v]) => ({ id, value: v }));
}

/** spec: Status embedded in a task. */
export class StatusSummaryDto {
  @ApiInteger({ example: 1 }) id: number;
  @ApiProperty({ example: 'To Do' }) name: string;
  @ApiProperty({ type: 'string', nullable: true }) icon: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'gray' }) color: string | null;
  @ApiProperty({ enum: STATUS_CATEGORIES }) category: string;
}

/** spec: Label embedded in a task. */
export class LabelSummaryDto {
  @ApiInteger({ example: 1 }) id: number;
  @ApiProperty({ example: 'Bug' }) name: string;
  @ApiProperty({ type: 'string', nullable: true, example: 'red' }) color: string | null;
}

/** spec: Task assignee (also an attachment's uploader). */
export class AssigneeDto {
  @ApiInteger({ description: 'User id', example: 7 }) id: number;
  @ApiProperty({ example: 'Alice' }) name: string;
  @ApiProperty({ type: 'string', nullable: true }) avatar_url: string | null;
}

/** spec: Subtask element. */
export class SubtaskDto {
  @ApiInteger({ example: 42 }) id: number;
  @ApiProperty({ example: 'Write the changelog' }) title: string;
  @ApiProperty({ enum: PRIORITIES }) priority: string;
  @ApiInteger({ description: 'Workspace-scoped sequential number', example: 2 }) identifier: number;
  @ApiProperty({ type: StatusSummaryDto, nullable: true }) status: StatusSummaryDto | null;
  @ApiProperty({ type: [AssigneeDto], description: 'Ascending user id' }) assignees: AssigneeDto[];
}

/** spec: Attachment element (confirmed attachments only). */
export class AttachmentDto {
  @ApiInteger({ example: 9 }) id: number;
  @ApiProperty({ description: 'Original file name', example: 'spec.pdf' }) file_name: string;
  @ApiInteger({ description: 'Bytes', example: 1024 }) file_size: number;
  @ApiProperty({ example: 'application/pdf' }) mime_type: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: AssigneeDto }) uploader: AssigneeDto;
}

/** spec: Custom-field entry on a task (D18). */
export class CustomFieldEntryDto {
  @ApiInteger({ example: 3 }) id: number;
  @ApiProperty({ example: 'Estimate' }) name: string;
  @ApiProperty({ enum: CUSTOM_FIELD_TYPES, example: 'number' }) type: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'rating `{icon, color}`; dropdown `{options}`; money `{currency, decimals}`; other types null',
  })
  config: Record<string, unknown> | null;
  @ApiInteger({ description: 'Sort position within the workspace' }) position: number;
  @ApiProperty({ type: 'string', nullable: true, description: "The task's value; null when unset", example: '3' }) value: string | null;
}

/** spec: Task fields of every response kind. */
class TaskBaseDto {
  @ApiInteger({ example: 41 }) id: number;
  @ApiInteger({ example: 1 }) workspace_id: number;
  @ApiInteger({ nullable: true, description: 'null when the task is not in a list', example: 3 }) list_id: number | null;
  @ApiProperty({ example: 'Ship it' }) title: string;
  @ApiProperty({ enum: PRIORITIES }) priority: string;
  @ApiInteger({ description: 'Workspace-scoped sequential number, never reused', example: 1 }) identifier: number;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) due_date: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) start_date: string | null;
  @ApiInteger({ description: 'User id of the creator', example: 7 }) creator_id: number;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: StatusSummaryDto, nullable: true }) status: StatusSummaryDto | null;
  @ApiProperty({ type: [AssigneeDto], description: 'Ascending user id' }) assignees: AssigneeDto[];
  @ApiProperty({ type: [CustomFieldEntryDto], description: 'Fields applying to the list and visible to the caller, by position then id' })
  custom_fields: CustomFieldEntryDto[];
}

/** spec: Task in the create and update responses: all fields except labels, subtasks, attachments (D16). */
export class TaskWriteDto extends TaskBaseDto {
  @ApiProperty({ type: 'string', nullable: true, description: 'Sanitized HTML', example: '<p>Details</p>' }) description: string | null;
}

/** spec: Task in the get-task response: all fields (D16). */
export class TaskDto extends TaskWriteDto {
  @ApiProperty({ type: [LabelSummaryDto] }) labels: LabelSummaryDto[];
  @ApiProperty({ type: [SubtaskDto], description: 'Direct subtasks, oldest first' }) subtasks: SubtaskDto[];
  @ApiProperty({ type: [AttachmentDto], description: 'Confirmed attachments' }) attachments: AttachmentDto[];
}

/** spec: Task in the list-tasks response: all fields except description, labels, attachments (D16). */
export class TaskListItemDto extends TaskBaseDto {
  @ApiProperty({ type: [SubtaskDto], description: 'Direct subtasks, oldest first' }) subtasks: SubtaskDto[];
}

/** spec: List tasks response (D22). */
export class TaskPageDto {
  @ApiProperty({ type: [TaskListItemDto] }) data: TaskListItemDto[];
  @ApiInteger({ example: 1 }) page: number;
  @ApiInteger({ example: 50 }) limit: number;
  @ApiInteger({ description: 'All matching tasks' }) total: number;
  @ApiInteger({ description: 'ceil(total / limit); 0 when there are no tasks' }) total_pages: number;
}

/** D34: a keyset page of List tasks (a request with `cursor` or `include_total=false`). */
export class TaskCursorPageDto {
  @ApiProperty({ type: [TaskListItemDto] }) data: TaskListItemDto[];
  @ApiInteger({ example: 50 }) limit: number;
  @ApiProperty({
    type: 'string',
    nullable: true,
    pattern: '^[A-Za-z0-9_-]{1,4096}$',
    description: 'Send as `cursor` (same filters and sort) for the next page; null when no task follows',
    example: 'AWlmb3JtYXRpb24tbm90LWEtcmVhbC1jdXJzb3I',
  })
  next_cursor: string | null;
}

/** D34: a keyset page with `total`, when `include_total=true` is sent with a cursor. */
export class TaskCursorPageWithTotalDto extends TaskCursorPageDto {
  @ApiInteger({ description: 'All matching tasks' }) total: number;
}

/** spec: `custom_fields` element of create and update task (D13), as loose as customFieldValues takes it. */
export class CustomFieldValueInputDto {
  @ApiProperty({
    // Any JSON value: an id as BODY_ID, anything else makes the element ignored.
    anyOf: [...BODY_ID.oneOf, { description: 'Any other JSON value: the element is ignored' }],
    required: false,
    description: 'Custom field id (a number, or a string of digits); an element without a well-formed id is ignored',
    example: 3,
  })
  id?: unknown;
  @ApiProperty({
    oneOf: [{ type: 'string', maxLength: CUSTOM_FIELD_VALUE_MAX_LENGTH }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }],
    required: false,
    description:
      `Stored as a string of at most ${CUSTOM_FIELD_VALUE_MAX_LENGTH} characters; a number or boolean is stored as its JSON text; null clears. ` +
      'An element without `value` is ignored',
    example: '4',
  })
  value?: string | number | boolean | null;
}

/** D13: `custom_fields` of create and update task: an array of `{ id, value }`. */
function CustomFieldValues(description: string): PropertyDecorator {
  return RuleField(
    {
      name: 'custom_fields',
      // Elements that are not objects are ignored, like objects without a well-formed id.
      api: { type: 'array', items: { anyOf: [{ $ref: getSchemaPath(CustomFieldValueInputDto) }, { not: { type: 'object' } }] }, description },
      required: false,
      messages: [NOT_AN_ARRAY, NOT_A_STRING, nulMessage(VALUE_FIELD), tooLongMessage(VALUE_FIELD, CUSTOM_FIELD_VALUE_MAX_LENGTH)],
    },
    customFieldValues,
  );
}

/** spec: Create task body; after validation, the values as stored. */
@ApiExtraModels(CustomFieldValueInputDto)
export class CreateTaskDto {
  @IsNumericId('list_id', { missing: 'list_id is required', target: true, description: 'The list to place the task in; the workspace is derived from it' })
  list_id: number;
  @TrimmedText('title', { max: MAX_LENGTH.title, required: true, description: 'Trimmed; blank is rejected', example: 'Ship it' }) title: string;
  @SanitizedHtml('description', { description: 'HTML, sanitized', example: '<p>Details</p>' }) description?: string | null;
  @IsOneOf('priority', PRIORITIES, PRIORITY_MESSAGE, { default: DEFAULT_PRIORITY }) priority?: Priority;
  @IsNumericId('status_id', { description: 'A status of the same workspace; default: its first `pending` status by position' }) status_id?: number;
  @IsApiDate('due_date', { update: false }) due_date?: string | null;
  @IsApiDate('start_date', { update: false }) start_date?: string | null;
  @IdArray('assignee_ids', { description: 'User ids; non-members and malformed ids are ignored', example: [7] }) assignee_ids?: number[];
  @CustomFieldValues('Fields not applying to the list or not visible to the caller are ignored') custom_fields?: CustomFieldInput[];
  @IdArray('label_ids', { description: 'Label ids; replaces the labels; other workspaces\u2019 labels are ignored', example: [3] }) label_ids?: number[];
  @IsNumericId('parent_id', { nullable: true, description: 'Parent task: same workspace, not itself a subtask' }) parent_id: number | null;
}

/** spec: Update task body; only the fields sent change (the others stay undefined after validation). */
export class UpdateTaskDto {
  @TrimmedText('title', { max: MAX_LENGTH.title, required: false, description: 'Trimmed; cannot be blank' }) title?: string;
  @SanitizedHtml('description', { description: 'HTML, sanitized; null or "" removes' }) description?: string | null;
  @IsOneOf('priority', PRIORITIES, PRIORITY_MESSAGE) priority?: Priority;
  @IsNumericId('status_id', { description: 'A status of the same workspace' }) status_id?: number;
  @IsNumericId('list_id', { description: 'Moves the task to a list of the same workspace' }) list_id?: number;
  @IsApiDate('due_date', { update: true }) due_date?: string | null;
  @IsApiDate('start_date', { update: true }) start_date?: string | null;
  @IdArray('assignee_ids', { description: 'Replaces the assignees entirely; [] removes all; non-members ignored', example: [7] }) assignee_ids?: number[];
  @CustomFieldValues('Only the listed fields change; inapplicable or invisible fields ignored') custom_fields?: CustomFieldInput[];
  @IdArray('label_ids', { description: 'Replaces the labels; other workspaces\u2019 labels are ignored', example: [3] }) label_ids?: number[];
  // D45: checked after the other fields (step 7); null makes the task top-level.
  @IsNumericId('parent_id', { nullable: true, update: true, description: 'Makes the task a subtask of that task (same workspace, not itself a subtask; the task must have no subtasks); null makes it top-level' })
  parent_id?: number | null;
}
