import { BadRequestException } from '@nestjs/common';

/** Largest id a row can have (PostgreSQL `integer`). */
const MAX_ROW_ID = 2147483647;

/**
 * Parses an id per D5: a positive integer sent as a JSON number or a string of
 * ASCII digits. Returns null when malformed (`"12.0"`, `12.5`, `"-1"`, `" 12"`,
 * `"1e3"`, `""`, `true`, `null`, objects). A well-formed id larger than any row
 * id becomes 0, which no row has, so it answers "not found" rather than 500.
 */
export function parseId(value: unknown): number | null {
  let n: number;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) return value > 0 && Number.isInteger(value) ? 0 : null;
    n = value;
  } else if (typeof value === 'string') {
    if (!/^[0-9]+$/.test(value)) return null;
    n = Number(value);
  } else {
    return null;
  }
  return n > MAX_ROW_ID ? 0 : n;
}

/** Like parseId, but a malformed id throws 400 with `message` (D6). */
export function requireId(value: unknown, message: string): number {
  const id = parseId(value);
  if (id === null) throw new BadRequestException(message);
  return id;
}

/** Path id kinds and their D6 messages. */
export const PATH_ID_MESSAGES = {
  workspace: 'Invalid workspace ID',
  folder: 'Invalid folder ID',
  list: 'Invalid list ID',
  task: 'Invalid task ID',
  status: 'Invalid status ID',
  label: 'Invalid label ID',
  webhook: 'Invalid webhook ID',
  comment: 'Invalid comment ID',
  // D39
  user: 'Invalid user ID',
  api_key: 'Invalid API key ID',
  custom_field: 'Invalid custom field ID',
  attachment: 'Invalid attachment ID',
} as const;

export type PathIdKind = keyof typeof PATH_ID_MESSAGES;
