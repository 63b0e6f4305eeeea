import { BadRequestException, HttpException } from '@nestjs/common';

/** Request property holding a body error found while parsing (D7), answered after authentication. */
const BODY_ERROR = 'bodyError';

/** D7: deepest nesting of arrays and objects a body may have (the body object itself is level 1). */
export const MAX_BODY_DEPTH = 32;

/** D7: the answers of a body the parser refuses. */
export const BODY_MESSAGES = {
  invalidJson: 'Invalid JSON body',
  notObject: 'Request body must be a JSON object',
  tooDeep: 'Request body is nested too deeply',
} as const;

/** D7: the 400 messages of a JSON body that is refused, in the order they are checked. */
export const BODY_400_MESSAGES = [BODY_MESSAGES.invalidJson, BODY_MESSAGES.notObject, BODY_MESSAGES.tooDeep];

/**
 * Keeps a body parse error (400 bad JSON, non-object or too deep, 415 other
 * content type) on the request instead of failing at once, so that
 * authentication and scope answer first (D3 steps 2 and 3); the guard then throws it.
 */
export function deferBodyError(request: object, error: HttpException): void {
  (request as Record<string, unknown>)[BODY_ERROR] = error;
}

/** The deferred body error of this request, if any. */
export function deferredBodyError(request: object): HttpException | undefined {
  return (request as Record<string, unknown>)[BODY_ERROR] as HttpException | undefined;
}

/**
 * True when arrays or objects in `value` nest deeper than `max` levels (a
 * scalar is level 0, `{}` level 1). Stops descending at `max + 1`, so its own
 * recursion is bounded whatever the input.
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (max === 0) return true;
  for (const child of Array.isArray(value) ? value : Object.values(value)) {
    if (nestedDeeperThan(child, max - 1)) return true;
  }
  return false;
}

/**
 * D7: the body of an `application/json` request. Returns the parsed object;
 * blank text is no body (undefined); malformed JSON, a non-object and nesting
 * deeper than MAX_BODY_DEPTH are deferred on the request (answered by the
 * guard, D3) and give undefined.
 */
export function parseJsonBody(request: object, text: string): object | undefined {
  if (text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return refuse(request, new BadRequestException(BODY_MESSAGES.invalidJson));
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return refuse(request, new BadRequestException(BODY_MESSAGES.notObject));
  }
  if (nestedDeeperThan(parsed, MAX_BODY_DEPTH)) return refuse(request, new BadRequestException(BODY_MESSAGES.tooDeep));
  return parsed;
}

function refuse(request: object, error: HttpException): undefined {
  deferBodyError(request, error);
  return undefined;
}

const NOT_STORED = Symbol('notStored');

/**
 * Marks a D7 answer that a route throws itself (`BodyErrors('route')`) so that D35 never stores
 * it, as it never stores the ones the guard answers: a retry with a good body runs anew.
 */
export function neverStored<T extends HttpException>(error: T): T {
  (error as unknown as Record<symbol, boolean>)[NOT_STORED] = true;
  return error;
}

/** True for an answer marked by neverStored. */
export function isNeverStored(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, boolean>)[NOT_STORED] === true;
}
