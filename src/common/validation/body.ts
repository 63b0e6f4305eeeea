import { BadRequestException } from '@nestjs/common';

/**
 * The rules of body fields, as the validation decorators (body-fields.ts)
 * call them: each takes the value a client sent (undefined when not sent) and
 * returns it as stored, or throws 400 with the contract's message.
 */

/** A parsed JSON request body: always an object (D7); unknown fields are ignored. */
export type Body = Record<string, unknown>;

/** D8: maximum lengths, in characters. */
export const MAX_LENGTH = { title: 500, name: 255, description: 100_000, content: 100_000 } as const;

/** Largest `position` (PostgreSQL `integer`). */
export const MAX_POSITION = 2147483647;

/** The request body as an object; a request without a body reads as `{}` (D7 rejects non-objects earlier). */
export function asBody(body: unknown): Body {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Body) : {};
}

/** D8: the 400 message of a text over its maximum length. */
export function tooLongMessage(field: string, max: number): string {
  return `${field} must be at most ${max} characters`;
}

/** D8: 400 `<field> must be at most <max> characters` when `value` is longer than `max` characters. */
export function checkLength(field: string, value: string, max: number): string {
  if (value.length > max) throw new BadRequestException(tooLongMessage(field, max));
  return value;
}

/** D8: the 400 message of a field that is missing, blank or null where a value is required. */
export const requiredMessage = (field: string): string => `${field} is required`;

/** D8: the 400 message of a field sent as another type than a string. */
export const notStringMessage = (field: string): string => `${field} must be a string`;

/** D8: the 400 message of an update setting a text to blank. */
export const emptyMessage = (field: string): string => `${field} cannot be empty`;

/** The 400 message of a text holding U+0000, which PostgreSQL text and jsonb reject. */
export function nulMessage(field: string): string {
  return `${field} must not contain NUL characters`;
}

/**
 * The one text rule every string a client sends goes through before it is used
 * or stored (body fields, custom-field values, text query parameters):
 * PostgreSQL `text` cannot hold U+0000, so it is 400
 * `<field> must not contain NUL characters` rather than a database error.
 * Returns `value` unchanged.
 */
export function checkText(field: string, value: string): string {
  if (value.includes('\u0000')) throw new BadRequestException(nulMessage(field));
  return value;
}

/** D8 on create: the messages requiredText answers. */
export function requiredTextMessages(field: string, max: number): string[] {
  return [requiredMessage(field), nulMessage(field), tooLongMessage(field, max)];
}

/**
 * D8 on create: a trimmed, non-blank string of at most `max` characters.
 * Missing, blank or not a string: 400 `<field> is required`; NUL: 400 (checkText);
 * too long: 400 `<field> must be at most <max> characters`.
 */
export function requiredText(field: string, value: unknown, max: number): string {
  if (typeof value !== 'string' || value.trim() === '') throw new BadRequestException(requiredMessage(field));
  return checkLength(field, checkText(field, value).trim(), max);
}

/** D8 on update: the messages patchText answers. */
export function patchTextMessages(field: string, max: number): string[] {
  return [notStringMessage(field), emptyMessage(field), nulMessage(field), tooLongMessage(field, max)];
}

/**
 * D8 on update: undefined when not sent; else a trimmed, non-blank string.
 * Not a string: 400 `<field> must be a string`; blank: 400 `<field> cannot be empty`; NUL and too long as above.
 */
export function patchText(field: string, value: unknown, max: number): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new BadRequestException(notStringMessage(field));
  if (value.trim() === '') throw new BadRequestException(emptyMessage(field));
  return checkLength(field, checkText(field, value).trim(), max);
}

/** The messages optionalString answers. */
export function optionalStringMessages(field: string): string[] {
  return [notStringMessage(field), nulMessage(field), tooLongMessage(field, MAX_LENGTH.name)];
}

/**
 * An optional plain string attribute (icon, color): undefined when not sent,
 * null when sent as null, else the string (at most 255 characters).
 * Another type: 400 `<field> must be a string`; NUL: 400 (checkText).
 */
export function optionalString(field: string, value: unknown): string | null | undefined {
  if (value === undefined || value === null) return value;
  if (typeof value !== 'string') throw new BadRequestException(notStringMessage(field));
  return checkLength(field, checkText(field, value), MAX_LENGTH.name);
}
