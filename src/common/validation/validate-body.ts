import { BadRequestException } from '@nestjs/common';
import { ClassConstructor, ClassTransformOptions, plainToInstance } from 'class-transformer';
import { validate, ValidationError, ValidatorOptions } from 'class-validator';

import { asBody } from './body';
import { TARGET_GROUP } from './body-fields';

/** Only declared fields are copied (unknown fields are dropped, D7); fields not sent stay undefined. */
const TO_INSTANCE: ClassTransformOptions = { excludeExtraneousValues: true, exposeUnsetFields: false };

/** Whitelist (never forbid: D7 ignores unknown fields); one message per field; errors without the instance. */
const VALIDATION: ValidatorOptions = {
  whitelist: true,
  forbidNonWhitelisted: false,
  stopAtFirstError: true,
  validationError: { target: false, value: false },
};
const TARGET_VALIDATION: ValidatorOptions = { ...VALIDATION, groups: [TARGET_GROUP] };

function firstMessage(errors: ValidationError[]): string {
  const constraints = errors[0].constraints ?? {};
  return Object.values(constraints)[0] ?? 'Invalid request body';
}

async function run<T extends object>(dto: ClassConstructor<T>, body: unknown, options: ValidatorOptions): Promise<T> {
  const instance = plainToInstance(dto, asBody(body), TO_INSTANCE);
  const errors = await validate(instance, options);
  if (errors.length > 0) throw new BadRequestException(firstMessage(errors));
  return instance;
}

/**
 * D3 step 7: the request body as a validated `dto` (a class declared with the
 * decorators of body-fields.ts): every field normalised (trimmed text, numeric
 * ids, sanitized HTML, dates as `YYYY-MM-DDTHH:mm:ss.sssZ`), unknown fields
 * dropped. Throws 400 with the message of the first failing field in the
 * DTO's field order (the order of the contract's tables). Call it after the
 * access check: a caller who may not act gets 403, not 400.
 */
export function validateBody<T extends object>(dto: ClassConstructor<T>, body: unknown): Promise<T> {
  return run(dto, body, VALIDATION);
}

/**
 * D3 step 4: only the fields of `dto` that name the target of a create
 * (declared with `target: true`: `workspace_id`, `list_id` of a new task,
 * `folder_id` of a new list), checked before the target is looked up.
 * Throws 400 with the first failing one's message; the other fields are left out.
 */
export function validateTarget<T extends object>(dto: ClassConstructor<T>, body: unknown): Promise<T> {
  return run(dto, body, TARGET_VALIDATION);
}

/** A create's body after D3 steps 4 and 7 (validateCreate). */
export interface CreateBody<T> {
  /** The fields naming the target (D3 step 4), valid. */
  target: T;
  /** The whole body, valid (D3 step 7); throws its 400 when it is not. Call after the access check. */
  body(): T;
}

/**
 * D3 steps 4 and 7 of a create in one pass when the body is valid (the usual
 * case): the body is validated once, and its target fields are part of it. When
 * it is invalid, the target fields alone are validated (their 400 is thrown now),
 * and the body's 400 waits in `body()` for the access check to pass first.
 */
export async function validateCreate<T extends object>(dto: ClassConstructor<T>, body: unknown): Promise<CreateBody<T>> {
  let valid: T;
  try {
    valid = await validateBody(dto, body);
  } catch (invalid) {
    if (!(invalid instanceof BadRequestException)) throw invalid;
    const target = await validateTarget(dto, body);
    return {
      target,
      body: () => {
        throw invalid;
      },
    };
  }
  return { target: valid, body: () => valid };
}
