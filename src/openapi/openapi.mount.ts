import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';

import { buildOpenApiDocument, OPENAPI_JSON_PATH, SWAGGER_UI_PATH } from './openapi.document';
import { JsonObject, serializeDocument } from './openapi.finalize';

/**
 * D1: serves the OpenAPI 3.1 document at `GET /api/v1/openapi.json` and
 * Swagger UI at `/docs` (unless `ui: false`), both without an API key (plain Fastify routes: the
 * Nest guard does not run on them). The document is built on first use and
 * kept; the JSON answer is byte-for-byte what `npm run openapi` writes to
 * openapi.json (a test compares them). Call before `app.init()`.
 */
export function mountOpenApi(app: NestFastifyApplication, options: { ui?: boolean } = {}): void {
  let document: JsonObject | undefined;
  let text: string | undefined;
  const getDocument = (): JsonObject => (document ??= buildOpenApiDocument(app));

  app
    .getHttpAdapter()
    .getInstance()
    .get(OPENAPI_JSON_PATH, async (_request, reply) => {
      text ??= serializeDocument(getDocument());
      return reply.header('content-type', 'application/json; charset=utf-8').send(text);
    });

  if (options.ui === false) return;
  SwaggerModule.setup(SWAGGER_UI_PATH, app, () => getDocument() as never, {
    raw: false,
    customSiteTitle: 'Work-tracking API',
    swaggerOptions: { persistAuthorization: true, displayOperationId: true },
  });
}
