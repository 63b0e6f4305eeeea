import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';

import { BODY_ID } from '../common/openapi/ids';
import { ApiInteger } from '../common/openapi/integer.decorator';
import { MAX_LENGTH } from '../common/validation/body';
import { IdArray, IsApiDate, IsNumericId, IsOneOf, RuleField, SanitizedHtml, TrimmedText } from '../common/validation/body-fields';
import {
  CUSTOM_FIELD_MESSAGES,
  CUSTOM_FIELD_VALUE_MAX_LENGTH,
  CustomFieldElement,
  parseCustomFieldElements,
  TYPED_RULES,
} from '../custom-fields/custom-field-values';
import { CUSTOM_FIELD_TYPES } from '../custom-fields/custom-fields.dto';
import { STATUS_CATEGORIES } from '../statuses/statuses.dto';

/** spec: Task priority values (D10). */
export const PRIORITIES = ['urgent', 'high', 'medium', 'low', 'none'] as const;

/** spec: a new task's priority when the body gives none. */
export const DEFAULT_PRIORITY = 'none' satisfies (typeof PRIORITIES)[number];
export type Priority = (typeof PRIORITIES)[number];

/** D10: the 400 for a priority outside the five. */
export const PRIORITY_MESSAGE = `Invalid priority. Must be one of: ${PRIORITIES.join(', ')}`;

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
    // An id as BODY_ID; the service also takes an element without one (or with anything else) and ignores it: said in prose only, so generators type the id.
    ...BODY_ID,
    description: 'Custom field id; an element without a well-formed id is ignored',
    example: 3,
  })
  id?: unknown;
  @ApiProperty({
    oneOf: [{ type: 'string', maxLength: CUSTOM_FIELD_VALUE_MAX_LENGTH }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }],
    description:
      `Stored as a string of at most ${CUSTOM_FIELD_VALUE_MAX_LENGTH} characters (a number as JavaScript writes it, a boolean as its JSON text); null clears, ` +
      'and so does "" for every type but text. By the field\u2019s type: number `-?(0|[1-9][0-9]*)(\\.[0-9]+)?`; money the same with at most its decimals; ' +
      'date an ISO 8601 date, stored as `YYYY-MM-DDTHH:mm:ss.sssZ`; checkbox `true` or `false`; rating `0` to `5`; dropdown one of its options; ' +
      'people comma-separated user ids of members, stored distinct in numeric order. An element without `value` is ignored',
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
      // D42: the value rules answer only for fields that apply and are visible, after the other ids' 404s.
      messages: [
        CUSTOM_FIELD_MESSAGES.notAnArray,
        CUSTOM_FIELD_MESSAGES.notAString,
        CUSTOM_FIELD_MESSAGES.nul,
        CUSTOM_FIELD_MESSAGES.tooLong,
        ...Object.values(TYPED_RULES).map((rule) => CUSTOM_FIELD_MESSAGES.typed('<id>', typeof rule === 'string' ? rule : rule('<decimals>'))),
      ],
    },
    parseCustomFieldElements,
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
  @CustomFieldValues('Fields not applying to the list or not visible to the caller are ignored') custom_fields?: CustomFieldElement[];
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
  @CustomFieldValues('Only the listed fields change; inapplicable or invisible fields ignored') custom_fields?: CustomFieldElement[];
  @IdArray('label_ids', { description: 'Replaces the labels; other workspaces\u2019 labels are ignored', example: [3] }) label_ids?: number[];
  // D45: checked after the other fields (step 7); null makes the task top-level.
  @IsNumericId('parent_id', {
    nullable: true,
    update: true,
    description: 'Makes the task a subtask of that task (same workspace, not itself a subtask; the task must have no subtasks); null makes it top-level',
  })
  parent_id?: number | null;
}
