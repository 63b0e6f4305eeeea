import { BadRequestException } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { Expose, Transform, Type } from 'class-transformer';
import { IsIn, IsInt, Max, Min, ValidateBy, ValidateIf, ValidationArguments } from 'class-validator';

import { BODY_ID } from '../openapi/ids';
import {
  MAX_LENGTH,
  MAX_POSITION,
  notStringMessage,
  nulMessage,
  optionalString,
  optionalStringMessages,
  patchText,
  patchTextMessages,
  requiredMessage,
  requiredText,
  requiredTextMessages,
  tooLongMessage,
} from './body';
import { DATE_EXAMPLE, DATE_PATTERN, invalidDateMessage, optionalDate } from './dates';
import { HtmlField, sanitizeHtmlField } from './html';
import { parseId, requireId } from './ids';

/**
 * Decorators that declare a request body field once: how it is read
 * (class-transformer), checked and normalised (class-validator), documented
 * (@nestjs/swagger) and which 400 messages it can answer (listed in the
 * OpenAPI document by ApiValidatedBody). validateBody (validate-body.ts) runs them.
 *
 * A contextual rule is a function of the value sent (undefined when not sent)
 * that returns the value to store or throws a 400 with the contract's message;
 * the decorator stores that value on the DTO instance, so after validation a
 * DTO holds trimmed text, numeric ids, sanitized HTML and normalised dates.
 */

/**
 * A contextual rule: the value as stored, or a thrown BadRequestException with the contract's message.
 * `body` holds the values of the body as sent for the fields not yet checked (a rule over two fields).
 */
export type FieldRule = (value: unknown, body: Record<string, unknown>) => unknown;
/** A rule that needs I/O (sanitizing in a worker). */
export type AsyncFieldRule = (value: unknown) => Promise<unknown>;

/** Validation group of the body fields that name the target of a create (D3 step 4: checked before access). */
export const TARGET_GROUP = 'target';

/** Per DTO class: the 400 messages its fields can answer, in field order. */
const MESSAGES_KEY = Symbol('body-field-messages');

/** Per DTO class: the request name of each declared field, by property. */
const NAMES_KEY = Symbol('body-field-names');

/** The request name (`list_id`) of each field `dto` declares, by property (`listId`); empty for a class without body fields. */
export function bodyFieldNames(dto: object): ReadonlyMap<string, string> {
  return (Reflect.getOwnMetadata(NAMES_KEY, dto) as Map<string, string> | undefined) ?? new Map();
}

/** The 400 messages of `dto`'s fields, in field order, without repeats (for the OpenAPI document). */
export function bodyMessages(dto: object): string[] {
  return [...new Set<string>(Reflect.getOwnMetadata(MESSAGES_KEY, dto) ?? [])];
}

/**
 * The failure message of each field of a DTO instance being validated, and
 * whether one failed: later rules then skip their work (only the first
 * failure in field order answers, D3 step 7).
 */
const failures = new WeakMap<object, Map<string, string>>();

function failed(object: object): boolean {
  return (failures.get(object)?.size ?? 0) > 0;
}

/**
 * What a rule returns for a value sent that counts as not sent (D39: `null` where the rule gives it
 * no meaning): the field is then left out of the validated DTO, as if its key were absent.
 */
export const NOT_SENT: unique symbol = Symbol('not sent');

/** Records a rule's outcome on the instance: true when it passed (its value stored), false with the message kept. */
function settle(args: ValidationArguments, run: () => unknown): boolean {
  let value: unknown;
  try {
    value = run();
  } catch (error) {
    return fail(args, error);
  }
  if (value === NOT_SENT) delete (args.object as Record<string, unknown>)[args.property];
  else if (value !== undefined) (args.object as Record<string, unknown>)[args.property] = value;
  return true;
}

function fail(args: ValidationArguments, error: unknown): false {
  if (!(error instanceof BadRequestException)) throw error;
  let map = failures.get(args.object);
  if (!map) failures.set(args.object, (map = new Map()));
  map.set(args.property, error.message);
  return false;
}

function ruleValidator(name: string, rule: FieldRule | AsyncFieldRule, async: boolean, groups?: string[]): PropertyDecorator {
  return ValidateBy(
    {
      name,
      async,
      validator: {
        validate(value: unknown, args: ValidationArguments): boolean | Promise<boolean> {
          if (failed(args.object)) return true; // an earlier field answers
          if (!async) return settle(args, () => (rule as FieldRule)(value, args.object as Record<string, unknown>));
          return (rule as AsyncFieldRule)(value).then(
            (stored) => settle(args, () => stored),
            (error: unknown) => fail(args, error),
          );
        },
        defaultMessage(args: ValidationArguments): string {
          return failures.get(args.object)?.get(args.property) ?? `${args.property} is invalid`;
        },
      },
    },
    { groups },
  );
}

/** How a field is declared: its name in the API, its OpenAPI schema, whether it is required, the messages it can answer. */
interface FieldDeclaration {
  /** The field's name in the request (the DTO property may be named otherwise: `list_id` on `listId`). */
  name: string;
  api: ApiPropertyOptions;
  required: boolean;
  messages: string[];
  /** D3 step 4: a field naming the target of a create, validated before the access check. */
  target?: boolean;
}

/**
 * The part every body field shares. class-transformer copies only declared
 * fields (unknown fields are dropped, D7) and never walks a client's value:
 * `Type(() => Object)` stops it at the first level and the Transform puts
 * the raw value back (its own walk throws a TypeError on objects with a
 * `constructor` key: typestack/class-transformer#1462).
 */
function declareField(declaration: FieldDeclaration, ...validators: PropertyDecorator[]): PropertyDecorator {
  const { name, api, required, messages } = declaration;
  return (prototype, property) => {
    Expose({ name })(prototype, property);
    Type(() => Object)(prototype, property);
    Transform(({ obj }) => (obj as Record<string, unknown>)[name], { toClassOnly: true })(prototype, property);
    (required ? ApiProperty : ApiPropertyOptional)({ ...api, name })(prototype, property);
    for (const validator of validators) validator(prototype, property);
    const dto = prototype.constructor;
    Reflect.defineMetadata(NAMES_KEY, new Map(bodyFieldNames(dto)).set(String(property), name), dto);
    Reflect.defineMetadata(MESSAGES_KEY, [...(Reflect.getOwnMetadata(MESSAGES_KEY, dto) ?? []), ...messages], dto);
  };
}

/** A field checked and normalised by a contextual rule. */
export function RuleField(declaration: FieldDeclaration, rule: FieldRule): PropertyDecorator {
  return declareField(declaration, ruleValidator(declaration.name, rule, false, declaration.target ? [TARGET_GROUP] : undefined));
}

/** A field checked by a rule that needs I/O. */
export function AsyncRuleField(declaration: FieldDeclaration, rule: AsyncFieldRule): PropertyDecorator {
  return declareField(declaration, ruleValidator(declaration.name, rule, true, declaration.target ? [TARGET_GROUP] : undefined));
}

type ApiExtras = Pick<ApiPropertyOptions, 'description' | 'example'>;

/** Options of an id field (D5, D6). */
export interface IdFieldOptions extends ApiExtras {
  /** Required: the message when missing or null (`list_id is required`). */
  missing?: string;
  /** The message when malformed; default `<field> must be a valid numeric ID`. */
  invalid?: string;
  /** null is a value rather than malformed: null or absent stores null (on update, `update`: absent stays absent). */
  nullable?: boolean;
  /** An update's field: not sent stays undefined (with `nullable`, null is then a value sent). */
  update?: boolean;
  /** D3 step 4: names the target of a create. */
  target?: boolean;
}

/**
 * D5, D6: an id sent as a JSON number or a string of digits, stored as a
 * number. `@IsNumericId('status_id')`: optional, malformed or null is 400
 * `status_id must be a valid numeric ID`; with `missing`, absent or null is that 400.
 */
export function IsNumericId(name: string, options: IdFieldOptions = {}): PropertyDecorator {
  const invalid = options.invalid ?? `${name} must be a valid numeric ID`;
  const { missing, nullable } = options;
  return RuleField(
    {
      name,
      api: {
        ...BODY_ID,
        ...(nullable ? { nullable: true } : {}),
        description: options.description,
        ...(options.example !== undefined ? { example: options.example } : {}),
      },
      required: missing !== undefined,
      messages: missing ? [missing, invalid] : [invalid],
      target: options.target,
    },
    (value) => {
      if (value === undefined || value === null) {
        if (missing) throw new BadRequestException(missing);
        if (value === undefined && options.update) return undefined;
        if (nullable) return null;
        if (value === undefined) return undefined;
      }
      return requireId(value, invalid);
    },
  );
}

/**
 * D3 step 4, D6: the parent id of a create (`workspace_id`, `folder_id`), checked
 * before access: absent, null or malformed is 400 `<field> is required`.
 */
export function ParentId(name: string, description: string): PropertyDecorator {
  const required = requiredMessage(name);
  return IsNumericId(name, { missing: required, invalid: required, target: true, description });
}

/** Options of a text field (D8). */
export interface TextFieldOptions extends ApiExtras {
  max: number;
  /** Create: missing, blank or another type is `<field> is required`. Otherwise update: `<field> must be a string`, `<field> cannot be empty`. */
  required: boolean;
}

/** D8: a text trimmed before it is checked and stored (`title`, `name`), NUL rejected (checkText). */
export function TrimmedText(name: string, options: TextFieldOptions): PropertyDecorator {
  const { max, required, ...api } = options;
  return RuleField(
    {
      name,
      api: { type: 'string', maxLength: max, ...api },
      required,
      messages: required ? requiredTextMessages(name, max) : patchTextMessages(name, max),
    },
    required ? (value) => requiredText(name, value, max) : (value) => patchText(name, value, max),
  );
}

/** An optional plain string attribute (`icon`, `color`): null allowed, at most 255 characters, NUL rejected. */
export function PlainString(name: string, api: ApiExtras = {}): PropertyDecorator {
  return RuleField(
    { name, api: { type: 'string', nullable: true, maxLength: MAX_LENGTH.name, ...api }, required: false, messages: optionalStringMessages(name) },
    (value) => optionalString(name, value),
  );
}

/**
 * D8, D9: an HTML field (`description`, `content`), sanitized before storage.
 * Optional (description): null or `""` stores null, another type is 400
 * `<field> must be a string`, nothing left after sanitizing stores null.
 * Required (content): trimmed; blank, another type or nothing left after
 * sanitizing is 400 `<field> is required`.
 */
export function SanitizedHtml(name: HtmlField, options: ApiExtras & { required?: boolean } = {}): PropertyDecorator {
  const { required = false, ...api } = options;
  const max = MAX_LENGTH[name];
  const declaration: FieldDeclaration = {
    name,
    api: { type: 'string', maxLength: max, ...(required ? {} : { nullable: true }), ...api },
    required,
    messages: required ? requiredTextMessages(name, max) : [notStringMessage(name), nulMessage(name), tooLongMessage(name, max)],
  };
  if (required) {
    return AsyncRuleField(declaration, async (value) => {
      const clean = await sanitizeHtmlField(name, requiredText(name, value, max), true);
      if (clean === '') throw new BadRequestException(requiredMessage(name));
      return clean;
    });
  }
  return AsyncRuleField(declaration, async (value) => {
    if (value === undefined) return undefined;
    if (value === null || value === '') return null;
    if (typeof value !== 'string') throw new BadRequestException(notStringMessage(name));
    const clean = await sanitizeHtmlField(name, value);
    return clean === '' ? null : clean;
  });
}

/**
 * D11: a date in one of the accepted forms, stored as `YYYY-MM-DDTHH:mm:ss.sssZ`;
 * null or `""` is no date on create (`update: false`) and removes it on update.
 */
export function IsApiDate(name: string, options: { update: boolean }): PropertyDecorator {
  return RuleField(
    {
      name,
      api: {
        type: 'string',
        nullable: true,
        // "" is accepted too (no date).
        pattern: `^$|${DATE_PATTERN}`,
        description: `ISO 8601: \`YYYY-MM-DD\`, \`YYYY-MM-DDTHH:mm[:ss[.ffffff]]\`, with \`Z\`, \`±HH:MM\` or nothing (UTC). \`null\` or \`""\`: ${options.update ? 'removes the date' : 'no date'}.`,
        example: DATE_EXAMPLE,
      },
      required: false,
      messages: [invalidDateMessage(name)],
    },
    (value) => optionalDate(name, value),
  );
}

/**
 * D12, D14: an array of ids; not an array is 400 `<field> must be an array`;
 * malformed elements are dropped, duplicates collapse (stored in first-seen order).
 */
export function IdArray(name: string, api: ApiExtras = {}): PropertyDecorator {
  return RuleField(
    // Items: any JSON value, as the service takes them (ids as in BODY_ID; anything else is dropped).
    {
      name,
      api: { type: 'array', items: { description: 'An id: a number, or a string of digits; other values are ignored' }, ...api },
      required: false,
      messages: [`${name} must be an array`],
    },
    (value) => {
      if (value === undefined) return undefined;
      if (!Array.isArray(value)) throw new BadRequestException(`${name} must be an array`);
      const ids = new Set<number>();
      for (const element of value) {
        const id = parseId(element);
        if (id) ids.add(id); // 0 (a well-formed id past any row) names nothing
      }
      return [...ids];
    },
  );
}

/**
 * An enumerated field: one of `values` (exact, case-sensitive), else 400 `message`
 * (null and other types included). Optional unless `required`.
 */
export function IsOneOf(
  name: string,
  values: readonly string[],
  message: string,
  options: ApiExtras & { required?: boolean; default?: string } = {},
): PropertyDecorator {
  const { required = false, ...api } = options;
  const validators = [IsIn(values as string[], { message })];
  if (!required) validators.unshift(ValidateIf((_object, value) => value !== undefined));
  return declareField({ name, api: { enum: values as string[], ...api }, required, messages: [message] }, ...validators);
}

/** D25: a sort position, an integer (PostgreSQL `integer`), else 400 `position must be an integer`. Optional. */
export function IsPosition(api: ApiExtras = {}): PropertyDecorator {
  const message = 'position must be an integer';
  return declareField(
    {
      name: 'position',
      api: { type: 'integer', minimum: -MAX_POSITION, maximum: MAX_POSITION, description: 'Sort position', ...api },
      required: false,
      messages: [message],
    },
    ValidateIf((_object, value) => value !== undefined),
    IsInt({ message }),
    Min(-MAX_POSITION, { message }),
    Max(MAX_POSITION, { message }),
  );
}
