import { BadRequestException } from '@nestjs/common';
import { Body, checkText, has, MAX_LENGTH, patchText, requiredText } from '../common/validation/body';
import { optionalDate } from '../common/validation/dates';
import { sanitizeHtmlField } from '../common/validation/html';
import { parseId, requireId } from '../common/validation/ids';

/** spec: Task priority values (D10). */
export const PRIORITIES = ['urgent', 'high', 'medium', 'low', 'none'] as const;
export type Priority = (typeof PRIORITIES)[number];

/** One `custom_fields` element after D13 parsing: the value as stored, or null to clear. */
export interface CustomFieldInput {
  id: number;
  value: string | null;
}

/** Body fields shared by create and update; undefined = not sent. */
export interface TaskFields {
  title?: string;
  description?: string | null;
  priority?: Priority;
  statusId?: number;
  dueDate?: string | null;
  startDate?: string | null;
  /** D12: well-formed ids, deduplicated; membership is filtered in SQL. */
  assigneeIds?: number[];
  /** D13: one entry per field id (the last one sent wins). */
  customFields?: CustomFieldInput[];
  /** D14: well-formed ids, deduplicated; other workspaces' labels are filtered in SQL. */
  labelIds?: number[];
}

/** A parsed create-task body (list_id is parsed first, D3 step 4). */
export interface NewTask extends TaskFields {
  title: string;
  /** D14 (ext): parent task, or null for a top-level task. */
  parentId: number | null;
}

/** A parsed update-task body: only the fields sent. */
export interface TaskPatch extends TaskFields {
  listId?: number;
}

/** D10: the 400 for a priority outside the five. */
export const PRIORITY_MESSAGE = `Invalid priority. Must be one of: ${PRIORITIES.join(', ')}`;

/** D10: undefined when not sent; any value outside the five (null included) is 400. */
function optionalPriority(body: Body): Priority | undefined {
  if (!has(body, 'priority')) return undefined;
  const value = body.priority;
  if (typeof value !== 'string' || !(PRIORITIES as readonly string[]).includes(value)) throw new BadRequestException(PRIORITY_MESSAGE);
  return value as Priority;
}

/** D9: undefined when not sent; null for null or ""; else the sanitized HTML (null when nothing is left; D8 limits via sanitizeHtmlField). */
async function optionalDescription(body: Body): Promise<string | null | undefined> {
  if (!has(body, 'description')) return undefined;
  const value = body.description;
  if (value === null || value === '') return null;
  if (typeof value !== 'string') throw new BadRequestException('description must be a string');
  const clean = await sanitizeHtmlField('description', value);
  return clean === '' ? null : clean;
}

/** D5, D6: undefined when not sent; else a well-formed id (null included as malformed) or 400 `<field> must be a valid numeric ID`. */
function optionalId(body: Body, field: string): number | undefined {
  if (!has(body, field)) return undefined;
  return requireId(body[field], `${field} must be a valid numeric ID`);
}

/** D12, D14: undefined when not sent; not an array: 400 `<field> must be an array`; malformed elements dropped, duplicates collapsed. */
function optionalIdArray(body: Body, field: string): number[] | undefined {
  if (!has(body, field)) return undefined;
  const value = body[field];
  if (!Array.isArray(value)) throw new BadRequestException(`${field} must be an array`);
  const ids = new Set<number>();
  for (const element of value) {
    const id = parseId(element);
    if (id) ids.add(id);
  }
  return [...ids];
}

/**
 * D13: undefined when not sent; not an array: 400 `custom_fields must be an array`.
 * Elements that are not objects with a well-formed `id` are ignored. `value`:
 * a string as is (NUL: 400 `custom_fields value must not contain NUL characters`), a number
 * or boolean as its JSON text, null (or left out) clears; an object or array: 400
 * `custom_fields value must be a string or null`.
 */
function optionalCustomFields(body: Body): CustomFieldInput[] | undefined {
  if (!has(body, 'custom_fields')) return undefined;
  const value = body.custom_fields;
  if (!Array.isArray(value)) throw new BadRequestException('custom_fields must be an array');
  const byId = new Map<number, string | null>();
  for (const element of value) {
    if (typeof element !== 'object' || element === null || Array.isArray(element)) continue;
    const entry = element as Record<string, unknown>;
    const id = parseId(entry.id);
    if (!id) continue;
    const raw = entry.value;
    let stored: string | null;
    if (raw === undefined || raw === null) stored = null;
    else if (typeof raw === 'string') stored = checkText('custom_fields value', raw);
    else if (typeof raw === 'number' || typeof raw === 'boolean') stored = JSON.stringify(raw);
    else throw new BadRequestException('custom_fields value must be a string or null');
    byId.delete(id); // keep the order of the last occurrence
    byId.set(id, stored);
  }
  return [...byId].map(([id, v]) => ({ id, value: v }));
}

/** The optional fields of both bodies, in the order of the specification's tables (D3 step 7). */
async function taskFields(body: Body, withListId: boolean): Promise<Omit<TaskPatch, 'title'>> {
  return {
    description: await optionalDescription(body),
    priority: optionalPriority(body),
    statusId: optionalId(body, 'status_id'),
    listId: withListId ? optionalId(body, 'list_id') : undefined,
    dueDate: optionalDate(body, 'due_date'),
    startDate: optionalDate(body, 'start_date'),
    assigneeIds: optionalIdArray(body, 'assignee_ids'),
    customFields: optionalCustomFields(body),
    labelIds: optionalIdArray(body, 'label_ids'),
  };
}

/**
 * spec: Create task, the body after list_id (D3 step 7): title (D8), description (D9),
 * priority (D10), status_id (D6), dates (D11), assignee_ids (D12), custom_fields (D13),
 * label_ids and parent_id (D14). Throws 400 with the first failing field's message.
 */
export async function parseCreateBody(body: Body): Promise<NewTask> {
  const title = requiredText(body, 'title', MAX_LENGTH.title);
  const { listId: _ignored, ...fields } = await taskFields(body, false);
  const parentId = has(body, 'parent_id') && body.parent_id !== null ? requireId(body.parent_id, 'parent_id must be a valid numeric ID') : null;
  return { ...fields, title, parentId };
}

/**
 * spec: Update task: only the fields sent. title (D8: `title must be a string`,
 * `title cannot be empty`), list_id (D6: malformed or null is
 * `list_id must be a valid numeric ID`), then as on create.
 */
export async function parseUpdateBody(body: Body): Promise<TaskPatch> {
  const title = patchText(body, 'title', MAX_LENGTH.title);
  return { title, ...(await taskFields(body, true)) };
}
