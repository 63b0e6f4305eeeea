import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { toHttpError } from './to-http-error';
import { WWW_AUTHENTICATE } from './www-authenticate';

/**
 * Writes `{ error }` with the status of toHttpError; 500s are logged with their stack (D31); a 401 names its challenge.
 * A connection already gone (a client that went away or was cut, issue 8) gets nothing and logs nothing.
 */
export function sendError(reply: FastifyReply, error: unknown, logger: Logger): void {
  if (reply.raw.destroyed || reply.raw.socket?.destroyed) return;
  const { status, message } = toHttpError(error);
  // Issue 8: an unavailable database is an expected condition, one line per request, no stack.
  if (status === 503) logger.warn(`${message}: ${String((error as { message?: unknown } | null)?.message ?? error)}`);
  else if (status >= 500) logger.error(error instanceof Error ? error.stack ?? error.message : String(error));
  if (status === 401) void reply.header('www-authenticate', WWW_AUTHENTICATE);
  void reply.status(status).header('content-type', 'application/json; charset=utf-8').send({ error: message });
}

/** The one exception filter: every error a route throws leaves as `{ "error": "<message>" }`. */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('Error');

  catch(exception: unknown, host: ArgumentsHost): void {
    sendError(host.switchToHttp().getResponse<FastifyReply>(), exception, this.logger);
  }
}
