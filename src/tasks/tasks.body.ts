import { BadRequestException } from '@nestjs/common';
import { checkText, nulMessage } from '../common/validation/body';
import { parseId } from '../common/validation/ids';
import type { CreateTaskDto, UpdateTaskDto } from './tasks.dto';

/** spec: Task priority values (D10). */
export const PRIORITIES = ['urgent', 'high', 'medium', 'low', 'none'] as const;
export type Priority = (typeof PRIORITIES)[number];

/** D10: the 400 for a priority outside the five. */
export const PRIORITY_MESSAGE = `Invalid priority. Must be one of: ${PRIORITIES.join(', ')}`;

/** One `custom_fields` element after D13 parsing: the value as stored, or null to clear. */
export interface CustomFieldInput {
  id: number;
  value: string | null;
}

/** A validated create-task body (D3 step 7). */
export type NewTask = CreateTaskDto;

/** A validated update-task body: only the fields sent are defined. */
export type TaskPatch = UpdateTaskDto;

/** The messages customFieldValues answers. */
export const CUSTOM_FIELDS_MESSAGES = [
  'custom_fields must be an array',
  'custom_fields value must be a string or null',
  nulMessage('custom_fields value'),
];

/**
 * D13, the `custom_fields` of create and update task, as sent: undefined when
 * not sent; not an array: 400 `custom_fields must be an array`. Elements that
 * are not objects with a well-formed `id` are ignored. `value`: a string as is
 * (NUL: 400 `custom_fields value must not contain NUL characters`), a number
 * or boolean as its JSON text, null (or left out) clears; an object or array:
 * 400 `custom_fields value must be a string or null`. One entry per field id:
 * the last one sent wins.
 */
export function customFieldValues(value: unknown): CustomFieldInput[] | undefined {
  if (value === undefined) return undefined;
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
