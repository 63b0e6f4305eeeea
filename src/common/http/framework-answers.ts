import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'http';
import type { Duplex } from 'stream';

import { keepOutOfCaches } from '../cache/cache-control';
import { sendError } from '../errors/error.filter';
import { HttpError, SERVICE_UNAVAILABLE } from '../errors/to-http-error';

/*
 * D31: the answers Fastify and Node give on their own, before any
 * route runs, leave as `{ "error": string }` with a JSON content type too.
 */

/** Node's HTTP parser failures and the answer each gets; any other is 400 `Malformed HTTP request`. */
export const CLIENT_ERRORS: Record<string, HttpError> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'Request timeout' },
  HPE_HEADER_OVERFLOW: { status: 431, message: 'Request headers are too large' },
};
const MALFORMED: HttpError = { status: 400, message: 'Malformed HTTP request' };

/**
 * Fastify `clientErrorHandler`: a request Node could not parse (400), headers
 * over the size limit (431), or a request not received whole in time (408).
 * Writes the answer on the raw socket unless a response already started, then
 * closes it. A reset connection gets nothing.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, message } = Object.hasOwn(CLIENT_ERRORS, error.code ?? '') ? CLIENT_ERRORS[error.code!] : MALFORMED;
  const pending = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !pending?.headersSent) {
    const body = JSON.stringify({ error: message });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** Fastify `frameworkErrors`: the router's bad percent-encoding (400) and over-long path parameter (414), through toHttpError. */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  keepOutOfCaches(reply, request.url);
  sendError(reply, error, request);
}

/**
 * Once the server begins to close (D32: SIGTERM), a request arriving on a
 * connection still open answers 503 `Service unavailable` and closes it; requests
 * already running finish. Use with the adapter's `return503OnClosing: false`.
 */
export function answerWhileClosing(fastify: FastifyInstance): void {
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    if (!closing) return done();
    keepOutOfCaches(reply, request.url);
    void reply
      .status(SERVICE_UNAVAILABLE.status)
      .header('connection', 'close')
      .header('content-type', 'application/json; charset=utf-8')
      .send({ error: SERVICE_UNAVAILABLE.message });
  });
}
