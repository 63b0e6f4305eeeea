import { UnsupportedMediaTypeException } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';

import { AppModule } from './app.module';
import { mountFiles } from './attachments/files.routes';
import { NOT_JSON_MESSAGE } from './common/errors/to-http-error';
import { createAdapter } from './common/http/adapter';
import { continueOnFirstRead } from './common/http/expect-continue';
import { answerWhileClosing } from './common/http/framework-answers';
import { sendRawJsonAsIs } from './common/http/raw-json';
import { registerStreamedBodyParser } from './common/http/streamed-body';
import { keepRawBody } from './common/idempotency/idempotency-key';
import { nestLogger, rootLogger } from './common/logging/logger';
import { deferBodyError, parseJsonBody } from './common/validation/body-error';
import type { AppEnv } from './config/env';
import { configureHttp } from './http.setup';
import { mountOpenApi } from './openapi/openapi.mount';

/**
 * Applies everything the app needs beyond its modules: the JSON body rules of
 * D7 and the OpenAPI document. Errors raised by Fastify itself (bad JSON, too
 * large, unsupported type) and unknown routes reach the ErrorFilter through
 * Nest's own Fastify error and not-found handlers (D31). Shared by main.ts, the tests
 * and the OpenAPI script; call before `app.init()` with the settings the app was built with.
 */
export async function configureApp(app: NestFastifyApplication, env: AppEnv): Promise<void> {
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
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    // D35: a replay of a keyed POST is recognised by its bytes whatever its content type.
    keepRawBody(request, body as Buffer);
    deferBodyError(request, new UnsupportedMediaTypeException(NOT_JSON_MESSAGE));
    done(null, undefined);
  });
  // D47: multipart bodies, read by the upload route itself as a stream.
  registerStreamedBodyParser(fastify);
  // Expect: 100-continue: `100 Continue` only once a body is read (an upload refused from its headers never gets it).
  continueOnFirstRead(fastify.server);
  answerWhileClosing(fastify);
  // Security headers, CORS, request logs, the deadline, /metrics.
  await configureHttp(app, env, rootLogger(env));
  // D47: the local driver's upload and download links.
  mountFiles(app, { cors: env.corsOrigins.length > 0 });
  // D1: GET /api/v1/openapi.json and /docs (unless DOCS_ENABLED=false), public.
  mountOpenApi(app, { ui: env.docsEnabled });
}

/** A fully configured, initialised app with `settings` (its database: `settings.databaseUrl`), not listening. */
export async function buildApp(settings: AppEnv): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(settings), createAdapter(settings), { bodyParser: false, bufferLogs: true });
  app.useLogger(nestLogger(rootLogger(settings)));
  await configureApp(app, settings);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}
