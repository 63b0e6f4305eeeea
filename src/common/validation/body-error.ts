import type { HttpException } from '@nestjs/common';

/** Request property holding a body error found while parsing (D7), answered after authentication. */
const BODY_ERROR = 'bodyError';

/**
 * Keeps a body parse error (400 bad JSON or non-object, 415 other content
 * type) on the request instead of failing at once, so that authentication and
 * scope answer first (D3 steps 2 and 3); the guard then throws it.
 */
export function deferBodyError(request: object, error: HttpException): void {
  (request as Record<string, unknown>)[BODY_ERROR] = error;
}

/** The deferred body error of this request, if any. */
export function deferredBodyError(request: object): HttpException | undefined {
  return (request as Record<string, unknown>)[BODY_ERROR] as HttpException | undefined;
}
