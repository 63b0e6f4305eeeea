import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';

import { isLostPreparedStatement, POOLER_PREPARED_HINT } from '../database/pg-errors';
import { loggedUrl, processLogger } from '../logging/logger';
import { toHttpError } from './to-http-error';
import { WWW_AUTHENTICATE } from './www-authenticate';

/** Whether this process has told the operator about POOLER_PREPARED_HINT yet (once, not per request). */
let poolerHintLogged = false;

/**
 * Writes `{ error }` with the status of toHttpError; 500s are logged with their stack and the request id (D31); a 401 names its challenge.
 * A connection already gone (a client that went away or was cut), or an answer already sent (the request deadline), gets nothing and logs nothing.
 * The first lost prepared statement of the process (a pooler that cannot keep them) also logs POOLER_PREPARED_HINT.
 */
export function sendError(reply: FastifyReply, error: unknown, request: FastifyRequest): void {
  if (reply.sent || reply.raw.destroyed || reply.raw.socket?.destroyed) return;
  const { status, message } = toHttpError(error);
  if (status >= 500) {
    const logger = processLogger();
    const context = { request_id: request.id, url: loggedUrl(request.url) };
    // An unavailable database is an expected condition, one line per request, no stack.
    if (status === 503) logger.warn(context, `${message}: ${String((error as { message?: unknown } | null)?.message ?? error)}`);
    else {
      if (!poolerHintLogged && isLostPreparedStatement(error)) {
        poolerHintLogged = true;
        logger.error(context, POOLER_PREPARED_HINT);
      }
      // The Error itself: pino writes it (stack included) as `err` on one JSON line.
      if (error instanceof Error) logger.error({ ...context, err: error }, error.message);
      else logger.error(context, String(error));
    }
  }
  if (status === 401) void reply.header('www-authenticate', WWW_AUTHENTICATE);
  void reply.status(status).header('content-type', 'application/json; charset=utf-8').send({ error: message });
}

/** The one exception filter: every error a route throws leaves as `{ "error": "<message>" }`. */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendError(http.getResponse<FastifyReply>(), exception, http.getRequest<FastifyRequest>());
  }
}
