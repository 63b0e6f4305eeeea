import { BadRequestException } from '@nestjs/common';

import { asBody, MAX_LENGTH, MAX_POSITION, nulMessage, requiredMessage, tooLongMessage } from '../common/validation/body';
import { parseId } from '../common/validation/ids';
import { CUSTOM_FIELD_TYPES, type CustomFieldType } from './custom-fields.dto';

/**
 * D42: the bodies of create and update custom field, read by hand in the
 * contract's order (the config's rules depend on the type, which an update
 * takes from the stored field). Pure: no I/O; each function throws 400 with
 * the first failure's message.
 */

/** D42: a list override as stored. */
export interface ListOverride {
  list_id: number;
  access: 'granted' | 'denied';
}

/** A stored config: the object of its type with defaults filled, or null. */
export type FieldConfig = Record<string, unknown> | null;

/** A create or update body after validation: only the fields sent (update) or with their defaults (create). */
export interface FieldWrite {
  name?: string;
  config?: FieldConfig;
  is_scope_restricted?: boolean;
  granted_folder_ids?: number[];
  list_overrides?: ListOverride[];
  /** null: visible to everyone; an array: only to those users (non-members are dropped at write time). */
  allowed_user_ids?: number[] | null;
  position?: number;
}

/** A valid create body. */
export interface FieldCreate extends Required<Omit<FieldWrite, 'position'>> {
  type: CustomFieldType;
}

/** D42: the longest dropdown option, iconName and color, in code points. */
const OPTION_MAX = 100;
const OPTIONS_MAX = 50;
const ICON_MAX = 64;
const COLOR_MAX = 64;

/** D42: every 400 of the definition bodies (the OpenAPI document lists them from here). */
export const FIELD_MESSAGES = {
  /** D6: create's `workspace_id` missing or malformed (D3 step 4). */
  workspaceId: 'workspace_id is required',
  nameRequired: requiredMessage('name'),
  nameString: 'name must be a string',
  nameEmpty: 'name cannot be empty',
  nameNul: nulMessage('name'),
  nameLong: tooLongMessage('name', MAX_LENGTH.name),
  type: `Invalid type. Must be one of: ${CUSTOM_FIELD_TYPES.join(', ')}`,
  typeChanged: 'type cannot be changed',
  configObject: (type: string) => `config must be an object for ${type}`,
  configNull: (type: string) => `config must be null for ${type}`,
  options: `config.options must be 1 to ${OPTIONS_MAX} distinct non-empty strings of at most ${OPTION_MAX} characters`,
  currency: 'config.currency must be a 3-letter ISO 4217 code',
  decimals: 'config.decimals must be an integer from 0 to 6',
  iconName: `config.iconName must be a string of 1 to ${ICON_MAX} characters`,
  color: `config.color must be null or a string of at most ${COLOR_MAX} characters`,
  scopeRestricted: 'is_scope_restricted must be a boolean',
  folders: 'granted_folder_ids must be an array of folder IDs',
  overrides: 'list_overrides must be an array of {list_id, access} with access granted or denied',
  allowedUsers: 'allowed_user_ids must be null or an array of user IDs',
  position: 'position must be an integer',
} as const;

/** Every 400 message of create (after `workspace_id`) and update, in the order they are checked. */
export function fieldBodyMessages(update: boolean): string[] {
  const m = FIELD_MESSAGES;
  const configs = CUSTOM_FIELD_TYPES.map((t) => (t === 'dropdown' || t === 'money' || t === 'rating' ? m.configObject(t) : m.configNull(t)));
  return [
    ...(update ? [m.typeChanged, m.nameString, m.nameEmpty] : [m.nameRequired]),
    m.nameNul,
    m.nameLong,
    ...(update ? [] : [m.type]),
    ...configs,
    m.options,
    m.currency,
    m.decimals,
    m.iconName,
    m.color,
    m.scopeRestricted,
    m.folders,
    m.overrides,
    m.allowedUsers,
    ...(update ? [m.position] : []),
  ];
}

/** D39: lengths count code points. */
export function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

const bad = (message: string): never => {
  throw new BadRequestException(message);
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** D39: a field counts as sent when present and not null (unless null has a meaning of its own). */
const sent = (value: unknown): boolean => value !== undefined && value !== null;

/** D8 with D39's code points: the trimmed name; create requires it, update takes it when sent. */
function parseName(value: unknown, update: boolean): string | undefined {
  const m = FIELD_MESSAGES;
  if (update && !sent(value)) return undefined;
  if (typeof value !== 'string') return bad(update ? m.nameString : m.nameRequired);
  const name = value.trim();
  if (name === '') return bad(update ? m.nameEmpty : m.nameRequired);
  if (name.includes('\u0000')) bad(m.nameNul);
  if (codePoints(name) > MAX_LENGTH.name) bad(m.nameLong);
  return name;
}

/** A string without NUL (PostgreSQL text and jsonb cannot hold it) whose length in code points is within [min, max]. */
const textWithin = (value: unknown, min: number, max: number): value is string =>
  typeof value === 'string' && !value.includes('\u0000') && codePoints(value) >= min && codePoints(value) <= max;

/**
 * D42: the config of a field of `type` as stored, defaults filled, other keys dropped.
 * `value` as sent (undefined: missing). Dropdown and money need an object; rating takes
 * an object or nothing (missing or null: the defaults); the other types only nothing.
 */
export function parseConfig(type: CustomFieldType, value: unknown): FieldConfig {
  const m = FIELD_MESSAGES;
  switch (type) {
    case 'dropdown': {
      if (!isObject(value)) return bad(m.configObject(type));
      const options = value.options;
      if (!Array.isArray(options) || options.length < 1 || options.length > OPTIONS_MAX) return bad(m.options);
      const trimmed = options.map((o) => (typeof o === 'string' ? o.trim() : o));
      if (!trimmed.every((o) => textWithin(o, 1, OPTION_MAX))) bad(m.options);
      if (new Set(trimmed).size !== trimmed.length) bad(m.options);
      return { options: trimmed };
    }
    case 'money': {
      if (!isObject(value)) return bad(m.configObject(type));
      if (typeof value.currency !== 'string' || !/^[A-Z]{3}$/.test(value.currency)) bad(m.currency);
      const decimals = value.decimals;
      if (typeof decimals !== 'number' || !Number.isInteger(decimals) || decimals < 0 || decimals > 6) bad(m.decimals);
      return { currency: value.currency, decimals };
    }
    case 'rating': {
      if (value === undefined || value === null) return { iconName: 'star', color: null };
      if (!isObject(value)) return bad(m.configObject(type));
      const iconName = sent(value.iconName) ? value.iconName : 'star';
      if (!textWithin(iconName, 1, ICON_MAX)) bad(m.iconName);
      const color = value.color ?? null;
      if (color !== null && !textWithin(color, 0, COLOR_MAX)) bad(m.color);
      return { iconName, color };
    }
    default:
      if (value !== undefined && value !== null) bad(m.configNull(type));
      return null;
  }
}

/** D5 ids of an array, distinct, in first-seen order; null when `value` is not an array of ids. */
function idArray(value: unknown): number[] | null {
  if (!Array.isArray(value)) return null;
  const ids = new Set<number>();
  for (const element of value) {
    const id = parseId(element);
    if (id === null) return null;
    ids.add(id);
  }
  return [...ids];
}

/** D42: list overrides, each `{ list_id, access }`, no list twice. */
function parseOverrides(value: unknown): ListOverride[] {
  if (!Array.isArray(value)) return bad(FIELD_MESSAGES.overrides);
  const seen = new Set<number>();
  return value.map((element) => {
    if (!isObject(element)) return bad(FIELD_MESSAGES.overrides);
    const listId = parseId(element.list_id);
    const access = element.access;
    if (listId === null || (access !== 'granted' && access !== 'denied') || seen.has(listId)) return bad(FIELD_MESSAGES.overrides);
    seen.add(listId);
    return { list_id: listId, access };
  });
}

/** The fields after `name`, `type` and `config`, common to create and update (only those sent). */
function parseScope(body: Record<string, unknown>): Omit<FieldWrite, 'name' | 'config' | 'position'> {
  const m = FIELD_MESSAGES;
  const out: Omit<FieldWrite, 'name' | 'config' | 'position'> = {};
  if (sent(body.is_scope_restricted)) {
    if (typeof body.is_scope_restricted !== 'boolean') bad(m.scopeRestricted);
    out.is_scope_restricted = body.is_scope_restricted as boolean;
  }
  if (sent(body.granted_folder_ids)) out.granted_folder_ids = idArray(body.granted_folder_ids) ?? bad(m.folders);
  if (sent(body.list_overrides)) out.list_overrides = parseOverrides(body.list_overrides);
  if (body.allowed_user_ids !== undefined) {
    out.allowed_user_ids = body.allowed_user_ids === null ? null : (idArray(body.allowed_user_ids) ?? bad(m.allowedUsers));
  }
  return out;
}

/** D42: a create body after `workspace_id`, in the order name, type, config, is_scope_restricted, granted_folder_ids, list_overrides, allowed_user_ids. */
export function parseCreateField(raw: unknown): FieldCreate {
  const body = asBody(raw);
  const name = parseName(body.name, false)!;
  const type = body.type;
  if (typeof type !== 'string' || !(CUSTOM_FIELD_TYPES as readonly string[]).includes(type)) return bad(FIELD_MESSAGES.type);
  const config = parseConfig(type as CustomFieldType, body.config);
  const scope = parseScope(body);
  return {
    name,
    type: type as CustomFieldType,
    config,
    is_scope_restricted: scope.is_scope_restricted ?? false,
    granted_folder_ids: scope.granted_folder_ids ?? [],
    list_overrides: scope.list_overrides ?? [],
    allowed_user_ids: scope.allowed_user_ids === undefined ? null : scope.allowed_user_ids,
  };
}

/**
 * D42: an update body of a field of `type`: `type` present at all is 400 first; then
 * the create fields but `workspace_id` and `type`, and `position`, each when sent.
 * `config` replaces the whole config (defaults filled again; rating `null` resets them).
 */
export function parseUpdateField(raw: unknown, type: CustomFieldType): FieldWrite {
  const body = asBody(raw);
  if (Object.hasOwn(body, 'type')) bad(FIELD_MESSAGES.typeChanged);
  const out: FieldWrite = {};
  const name = parseName(body.name, true);
  if (name !== undefined) out.name = name;
  // Missing: unchanged; null has a meaning (rating: the defaults; dropdown, money: 400; others: null).
  if (body.config !== undefined) out.config = parseConfig(type, body.config);
  Object.assign(out, parseScope(body));
  if (sent(body.position)) {
    const position = body.position;
    if (typeof position !== 'number' || !Number.isInteger(position) || Math.abs(position) > MAX_POSITION) bad(FIELD_MESSAGES.position);
    out.position = position as number;
  }
  return out;
}
