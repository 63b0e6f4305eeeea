import { HttpException } from '@nestjs/common';

import { isDatabaseUnavailable, isLostRace, pgCode, pgConstraint } from '../database/pg-errors';
import { NAME_TAKEN, WORKSPACE_SLUG_TAKEN } from '../database/unique-messages';
import { BODY_MESSAGES } from '../validation/body-error';

/** An error as the client sees it: status and the `{ error }` message (D31). */
export interface HttpError {
  status: number;
  message: string;
}

/** The answer to a bug (D31: never details). */
export const INTERNAL: HttpError = { status: 500, message: 'Internal server error' };

/** The answer while the database cannot serve (outage, timeout, shutdown). */
export const SERVICE_UNAVAILABLE: HttpError = { status: 503, message: 'Service unavailable' };

/** PostgreSQL unique-violation constraint names and the contract's 409 for each (D25, D28). */
const UNIQUE_VIOLATIONS: Record<string, string> = {
  statuses_workspace_name_key: NAME_TAKEN.status,
  labels_workspace_name_key: NAME_TAKEN.label,
  workspaces_slug_key: WORKSPACE_SLUG_TAKEN,
  custom_fields_workspace_name_key: NAME_TAKEN.customField,
};

/** D7: the 413 of a body over the limit, answered before authentication on every route. */
export const BODY_TOO_LARGE_MESSAGE = 'Request body is too large';

/** D7: the 415 of a body that is not JSON, answered after authentication. */
export const NOT_JSON_MESSAGE = 'Content-Type must be application/json';

/** Fastify's own error codes and the D7/D31 answers for them. */
const FASTIFY_ERRORS: Record<string, HttpError> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, message: BODY_MESSAGES.invalidJson },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, message: BODY_MESSAGES.invalidJson },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: BODY_TOO_LARGE_MESSAGE },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, message: NOT_JSON_MESSAGE },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, message: 'Invalid Content-Length' },
  // The router, before any route runs: bad percent-encoding, an over-long path parameter.
  FST_ERR_BAD_URL: { status: 400, message: 'Malformed URL' },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, message: 'URI too long' },
};

/** The answer to an over-long path parameter (published by the OpenAPI document). */
export const URI_TOO_LONG: HttpError = FASTIFY_ERRORS.FST_ERR_MAX_PARAM_LENGTH;

function messageOf(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown; error?: unknown }).message;
  if (typeof message === 'string') return message;
  if (Array.isArray(message) && typeof message[0] === 'string') return message[0];
  return exception.message;
}

/**
 * Maps anything thrown while serving a request to the status and message the
 * client gets: Nest HTTP exceptions keep theirs; Fastify parser errors and
 * PostgreSQL unique violations get the contract's; a foreign-key violation the
 * 404 of the row that vanished; an unreachable or timed-out database 503
 * `Service unavailable`; everything else is a 500
 * `Internal server error` that reveals nothing (D31).
 */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpException) {
    const status = error.getStatus();
    // D31: a server error never shows its own text (it may carry SQL, a URL or a key).
    if (status === SERVICE_UNAVAILABLE.status) return SERVICE_UNAVAILABLE;
    if (status >= 500) return { status, message: INTERNAL.message };
    // Nest's router answers unknown routes with "Cannot GET /x" (D3: 404 `Not found`).
    const message = status === 404 && /^Cannot [A-Z]+ /.test(messageOf(error)) ? 'Not found' : messageOf(error);
    return { status, message };
  }
  if (typeof error !== 'object' || error === null) return INTERNAL;
  const e = error as { code?: unknown; statusCode?: unknown };
  const code = pgCode(error);
  const constraint = pgConstraint(error) ?? '';
  if (code === '23505' && Object.hasOwn(UNIQUE_VIOLATIONS, constraint)) return { status: 409, message: UNIQUE_VIOLATIONS[constraint] };
  // A race lost again after WriteRequests' retry (a row the write points at deleted meanwhile, by
  // whatever foreign key; a serialization failure; a deadlock): nothing was written, and the client may retry.
  // The retry itself answers what a delete that committed first calls for (the checks' 404), so no table of
  // constraint names is needed, and a new foreign key can never turn a race into a 500.
  if (isLostRace(error) || isDatabaseUnavailable(error)) return SERVICE_UNAVAILABLE;
  if (typeof e.code === 'string' && Object.hasOwn(FASTIFY_ERRORS, e.code)) return FASTIFY_ERRORS[e.code];
  if (typeof e.code === 'string' && e.code.startsWith('FST_') && typeof e.statusCode === 'number' && e.statusCode < 500) {
    return { status: e.statusCode, message: 'Bad request' };
  }
  return INTERNAL;
}
