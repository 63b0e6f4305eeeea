import { UnsupportedMediaTypeException } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { configureHttp } from './common/http/http.setup';
import { nestLogger, requestId, rootLogger } from './common/logging/logger';
import { AppEnv, loadEnv } from './config/env';
import { answerClientError, answerFrameworkError, answerWhileClosing } from './common/http/framework-answers';
import { sendRawJsonAsIs } from './common/http/raw-json';
import { deferBodyError, parseJsonBody } from './common/validation/body-error';
import { mountOpenApi } from './openapi/openapi.mount';
import { keepRawBody } from './common/idempotency/idempotency-key';

/** D7: largest request body accepted, in bytes (1 MiB). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Longest path parameter the router accepts (issue 8): a digit id of any sensible
 * length reaches its route (D5: 404), anything longer is 414 `URI too long`.
 */
export const MAX_PARAM_LENGTH = 1000;

/**
 * Fastify adapter with the D7 body limit, no Fastify-level logging (the HTTP
 * layer writes one pino line per request), no Express-middleware layer (the app has no Nest middleware), for issue 12 the request id (`X-Request-Id` when
 * sane, else generated) and TRUST_PROXY (client IP from X-Forwarded-For), and for issue 8: the HTTP timeouts of `env.timeouts` (a request must arrive whole
 * within `httpRequest`, else 408; an idle connection closes after `httpIdle`) and
 * every framework answer as `{ "error" }` (malformed HTTP, oversized headers,
 * bad URLs, shutting down).
 */
export function createAdapter(env: AppEnv = loadEnv()): FastifyAdapter {
  const { timeouts } = env;
  return new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    logger: false,
    return503OnClosing: false,
    requestTimeout: timeouts.httpRequest,
    connectionTimeout: timeouts.httpIdle,
    // Node applies requestTimeout to bodies only when given at creation, and checks deadlines
    // every 30 s by default: both are set here so that the timeout means what it says.
    http: { requestTimeout: timeouts.httpRequest, connectionsCheckingInterval: Math.min(1_000, timeouts.httpRequest) },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
    trustProxy: env.trustProxy,
    requestIdHeader: false,
    genReqId: requestId,
    skipMiddie: true,
  });
}

/**
 * Applies everything the app needs beyond its modules: the JSON body rules of
 * D7 and the OpenAPI document. Errors raised by Fastify itself (bad JSON, too
 * large, unsupported type) and unknown routes reach the ErrorFilter through
 * Nest's own Fastify error and not-found handlers (D31). Shared by main.ts, the tests
 * and the OpenAPI script; call before `app.init()`.
 */
export async function configureApp(app: NestFastifyApplication): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();

  sendRawJsonAsIs(fastify);
  fastify.removeAllContentTypeParsers();
  // Body errors are kept on the request and thrown by the guard after authentication and scope (D3).
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    // D35: a keyed POST is "the same request" only with the same body bytes.
    keepRawBody(request, bytes);
    done(null, parseJsonBody(request, bytes.toString('utf8')));
  });
  // D7: any other content type with a body is 415 (read whole, within the body limit, then discarded).
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (request, _body, done) => {
    deferBodyError(request, new UnsupportedMediaTypeException('Content-Type must be application/json'));
    done(null, undefined);
  });
  answerWhileClosing(fastify);
  const env = loadEnv();
  // Issue 12: security headers, CORS, request logs, the deadline, /metrics.
  await configureHttp(app, env, rootLogger(env));
  // D1: GET /api/v1/openapi.json and /docs (unless DOCS_ENABLED=false), public.
  mountOpenApi(app, { ui: env.docsEnabled });
}

/** A fully configured, initialised app on `DATABASE_URL` (not listening). */
export async function buildApp(): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(AppModule, createAdapter(), { bodyParser: false, bufferLogs: true });
  app.useLogger(nestLogger(rootLogger(loadEnv())));
  await configureApp(app);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}
