import { BadRequestException } from '@nestjs/common';
import { ClassConstructor, ClassTransformOptions, plainToInstance } from 'class-transformer';
import { getMetadataStorage, validate, ValidationArguments, ValidationError, ValidationTypes, ValidatorOptions } from 'class-validator';

import { asBody } from './body';
import { bodyFieldNames, TARGET_GROUP } from './body-fields';

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

/** The libraries' own way: class-transformer makes the instance, class-validator's validate() checks it. */
async function runLibraries<T extends object>(dto: ClassConstructor<T>, body: unknown, options: ValidatorOptions): Promise<T> {
  const instance = plainToInstance(dto, asBody(body), TO_INSTANCE);
  const errors = await validate(instance, options);
  if (errors.length > 0) throw new BadRequestException(firstMessage(errors));
  return instance;
}

/** class-validator's metadata of one check (the parts read here). */
interface CheckMetadata {
  type: string;
  propertyName: string;
  constraints: unknown[];
  constraintCls: object;
  message?: string | ((args: ValidationArguments) => string);
  each?: boolean;
  validateIf?: unknown;
  context?: unknown;
}

/** One check of a field: its metadata and the constraint that runs it. */
interface Check {
  metadata: CheckMetadata;
  constraint: {
    async: boolean;
    instance: { validate(value: unknown, args: ValidationArguments): boolean | Promise<boolean>; defaultMessage?(args: ValidationArguments): string };
  };
}

/** A field of a DTO with its checks, in class-validator's order. */
interface FieldPlan {
  property: string;
  /** Its name in the request body. */
  name: string;
  /** ValidateIf conditions: when one is false, the field is not checked. */
  conditions: Array<(object: object, value: unknown) => boolean>;
  checks: Check[];
}

/** Per DTO and validation options: its fields' plans, or null when it uses what runPlan does not do (then the libraries run). */
const PLANS = new Map<ValidatorOptions, Map<object, FieldPlan[] | null>>();

/**
 * The fields of `dto` as class-validator's metadata declares them for `options`' groups, read once.
 * Null for a DTO that has no checks, a field not declared by body-fields.ts, nested or per-element
 * checks, or an asynchronous check before another one on the same field: runLibraries serves those.
 */
function planOf(dto: object, options: ValidatorOptions): FieldPlan[] | null {
  let byDto = PLANS.get(options);
  if (!byDto) PLANS.set(options, (byDto = new Map()));
  let plan = byDto.get(dto);
  if (plan === undefined) {
    plan = buildPlan(dto, options);
    byDto.set(dto, plan);
  }
  return plan;
}

function buildPlan(dto: object, options: ValidatorOptions): FieldPlan[] | null {
  const storage = getMetadataStorage();
  const metadatas = storage.getTargetValidationMetadatas(dto as ClassConstructor<object>, '', false, false, options.groups) as unknown as CheckMetadata[];
  if (metadatas.length === 0) return null;
  const names = bodyFieldNames(dto);
  const plan: FieldPlan[] = [];
  const grouped = storage.groupByPropertyName(metadatas as never) as unknown as Record<string, CheckMetadata[]>;
  for (const [property, list] of Object.entries(grouped)) {
    const name = names.get(property);
    if (name === undefined) return null;
    const field: FieldPlan = { property, name, conditions: [], checks: [] };
    for (const metadata of list) {
      if (metadata.type === ValidationTypes.CONDITIONAL_VALIDATION) {
        field.conditions.push(metadata.constraints[0] as FieldPlan['conditions'][number]);
      } else if (metadata.type === ValidationTypes.CUSTOM_VALIDATION && !metadata.each && !metadata.validateIf && !metadata.context) {
        for (const constraint of storage.getTargetValidatorConstraints(metadata.constraintCls as never))
          field.checks.push({ metadata, constraint } as unknown as Check);
      } else {
        return null;
      }
    }
    if (field.checks.some((check, i) => check.constraint.async && i < field.checks.length - 1)) return null;
    plan.push(field);
  }
  return plan;
}

/** class-validator's message tokens (`$constraint1`, `$value`, `$property`, `$target`), replaced as it does. */
function withTokens(message: string, args: ValidationArguments): string {
  if (!message.includes('$')) return message;
  let text = message;
  args.constraints?.forEach((constraint: unknown, index: number) => {
    const shown = Array.isArray(constraint) ? constraint.join(', ') : typeof constraint === 'symbol' ? constraint.description : `${constraint as string}`;
    text = text.replace(new RegExp(`\\$constraint${index + 1}`, 'g'), () => String(shown));
  });
  const value: unknown = args.value;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') text = text.replace(/\$value/g, () => String(value));
  return text.replace(/\$property/g, () => args.property).replace(/\$target/g, () => args.targetName);
}

/** The message of a failed check, as class-validator makes it. */
function messageOf({ metadata, constraint }: Check, args: ValidationArguments): string {
  let message = '';
  if (typeof metadata.message === 'function') message = metadata.message(args);
  else if (metadata.message) message = metadata.message;
  else if (constraint.instance.defaultMessage instanceof Function) message = constraint.instance.defaultMessage(args);
  return withTokens(message, args);
}

/**
 * What runLibraries does for a DTO of body-fields.ts, without their per-call walks over the metadata:
 * the instance gets the declared fields sent (class-transformer with `excludeExtraneousValues`,
 * unset fields left out), loses every property outside the plan (class-validator's `whitelist`),
 * then each field's conditions and checks run in class-validator's order with its arguments,
 * stopping at a field's first failure (`stopAtFirstError`); asynchronous checks settle before
 * the first failing field in field order answers. Measured on create task: the libraries' calls
 * took most of its validation's time.
 */
async function runPlan<T extends object>(dto: ClassConstructor<T>, plan: FieldPlan[], body: unknown): Promise<T> {
  const sent = asBody(body) as Record<string, unknown>;
  const object = new dto() as Record<string, unknown>;
  for (const { name, property } of plan) {
    const value = sent[name];
    if (value !== undefined) object[property] = value;
  }
  for (const key of Object.keys(object)) if (!plan.some((field) => field.property === key)) delete object[key];
  const outcomes: Array<string | null | Promise<string | null>> = [];
  for (const field of plan) {
    const value = object[field.property];
    let outcome: string | null | Promise<string | null> = null;
    // Every condition is evaluated, as class-validator does.
    if (field.conditions.map((condition) => condition(object, value)).every(Boolean)) {
      for (const check of field.checks) {
        const args: ValidationArguments = { targetName: dto.name, property: field.property, object, value, constraints: check.metadata.constraints };
        const valid = check.constraint.instance.validate(value, args);
        if (typeof valid === 'object' && valid !== null && typeof valid.then === 'function') {
          outcome = Promise.resolve(valid).then((ok) => (ok ? null : messageOf(check, args)));
          break;
        }
        if (!valid) {
          outcome = messageOf(check, args);
          break;
        }
      }
    }
    outcomes.push(outcome);
  }
  const settled = outcomes.some((outcome) => outcome instanceof Promise) ? await Promise.all(outcomes) : (outcomes as Array<string | null>);
  const failure = settled.find((outcome) => outcome !== null);
  if (failure != null) throw new BadRequestException(failure);
  return object as T;
}

/** For tests: whether validateBody checks `dto` by its plan (else by the libraries' calls). */
export const checkedByPlan = (dto: object): boolean => planOf(dto, VALIDATION) !== null;

async function run<T extends object>(dto: ClassConstructor<T>, body: unknown, options: ValidatorOptions): Promise<T> {
  const plan = planOf(dto, options);
  return plan ? runPlan(dto, plan, body) : runLibraries(dto, body, options);
}

/** For tests: the libraries' own result for `dto`, to compare the planned run with (the same 400 or the same instance). */
export const validateWithLibraries = <T extends object>(dto: ClassConstructor<T>, body: unknown, target = false): Promise<T> =>
  runLibraries(dto, body, target ? TARGET_VALIDATION : VALIDATION);

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
