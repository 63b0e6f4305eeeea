import { HttpException } from '@nestjs/common';

/** An error as the client sees it: status and the `{ error }` message (D31). */
export interface HttpError {
  status: number;
  message: string;
}

const INTERNAL: HttpError = { status: 500, message: 'Internal server error' };

/** PostgreSQL unique-violation constraint names and the contract's 409 for each (D25, D28). */
const UNIQUE_VIOLATIONS: Record<string, string> = {
  statuses_workspace_name_key: 'A status with this name already exists',
  labels_workspace_name_key: 'A label with this name already exists',
};

/** Fastify's own error codes and the D7/D31 answers for them. */
const FASTIFY_ERRORS: Record<string, HttpError> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, message: 'Invalid JSON body' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, message: 'Invalid JSON body' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: 'Request body is too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, message: 'Content-Type must be application/json' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, message: 'Invalid Content-Length' },
};

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
 * PostgreSQL unique violations get the contract's; everything else is a 500
 * `Internal server error` that reveals nothing (D31).
 */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpException) {
    const status = error.getStatus();
    // D31: a server error never shows its own text (it may carry SQL, a URL or a key).
    if (status >= 500) return { status, message: INTERNAL.message };
    // Nest's router answers unknown routes with "Cannot GET /x" (D3: 404 `Not found`).
    const message = status === 404 && /^Cannot [A-Z]+ /.test(messageOf(error)) ? 'Not found' : messageOf(error);
    return { status, message };
  }
  if (typeof error !== 'object' || error === null) return INTERNAL;
  const e = error as { code?: unknown; constraint?: unknown; statusCode?: unknown; driverError?: unknown };
  const driver = (e.driverError ?? e) as { code?: unknown; constraint?: unknown };
  if (driver.code === '23505' && typeof driver.constraint === 'string' && UNIQUE_VIOLATIONS[driver.constraint]) {
    return { status: 409, message: UNIQUE_VIOLATIONS[driver.constraint] };
  }
  if (typeof e.code === 'string' && FASTIFY_ERRORS[e.code]) return FASTIFY_ERRORS[e.code];
  if (typeof e.code === 'string' && e.code.startsWith('FST_') && typeof e.statusCode === 'number' && e.statusCode < 500) {
    return { status: e.statusCode, message: 'Bad request' };
  }
  return INTERNAL;
}
