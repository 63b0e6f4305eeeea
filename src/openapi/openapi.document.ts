import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';

import { FILES_OPENAPI } from '../attachments/files.openapi';
import { METRICS_OPENAPI, METRICS_PATH } from '../metrics/metrics';
import { finalizeDocument, JsonObject } from './openapi.finalize';

/** Where the document and Swagger UI are served (D1: public, outside the API key). */
export { OPENAPI_JSON_PATH } from '../common/http/paths';
export const SWAGGER_UI_PATH = 'docs';

/** The document's `info.version`: the API version of the path prefix, with the package's version. */
export const API_VERSION = '1.0.0';

const DESCRIPTION = [
  'JSON-over-HTTP API of a work-tracking product: workspaces contain folders, statuses, labels,',
  'custom fields and members; folders contain lists; lists contain tasks; tasks have comments.',
  '',
  'Every `/api/v1` route needs an API key, sent as `Authorization: Bearer <key>` or `X-API-Key: <key>`,',
  'carrying the scope the route names (`x-scope`). What the key user may do also depends on their role',
  'in the workspace (`owner`, `admin`, `member`, `viewer`) and, for members and viewers, on access',
  'restrictions to folders and lists.',
  '',
  'Identifiers are positive integers, sent as JSON numbers or strings of digits. Timestamps in responses',
  'are UTC ISO-8601 with milliseconds (`2025-01-15T09:30:00.000Z`). Every error body is `{ "error": "<message>" }`;',
  'each operation lists the messages it can answer. A successful delete answers 204 with no body.',
].join('\n');

/** The tags the controllers use, described, in the order the document lists them. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  'API keys': "The key user's API keys: create with a subset of the calling key's scopes, list, revoke",
  Attachments: 'Files attached to tasks: upload, confirm, list, download and delete',
  Comments: 'Comments on tasks',
  'Custom fields': 'Custom-field definitions of a workspace',
  Events: 'What changed in a workspace, in order, for clients that poll',
  Folders: 'Folders of a workspace',
  Health: 'Probes and metrics for operators, without a key',
  Labels: 'Labels of a workspace',
  Lists: 'Lists of tasks, inside folders',
  Statuses: 'Task statuses of a workspace, each in one of four categories',
  Tasks: 'Tasks, with status, assignees, labels, subtasks, attachments and custom-field values',
  Users: 'The user who owns the API key',
  Webhooks: "Signed HTTP deliveries of a workspace's events to subscribed URLs",
  Workspaces: 'Workspaces and their members: create, edit, delete; add, change and remove members',
};

/**
 * The document's static part: info, servers (both the public API, `x-internal: false`
 * for API inventories), the two security schemes `@Authenticated` refers to (D20)
 * and the tags the controllers use, described.
 */
export function documentConfig(): ReturnType<DocumentBuilder['build']> {
  const builder = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Work-tracking API')
    .setVersion(API_VERSION)
    .setDescription(DESCRIPTION)
    .addServer('/', 'The server this document is served from (production, staging or local alike)', undefined, { 'x-internal': false })
    .addServer('http://localhost:3000', 'A local `npm start` (default PORT)', undefined, { 'x-internal': false })
    .addSecurity('bearer', { type: 'http', scheme: 'bearer', description: 'API key as a bearer token: `Authorization: Bearer svc_...`' })
    .addSecurity('apiKey', {
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
      description: 'API key in the `X-API-Key` header (used when there is no bearer token)',
    });
  for (const [name, description] of Object.entries(TAG_DESCRIPTIONS)) builder.addTag(name, description);
  return builder.build();
}

/**
 * The OpenAPI 3.1 document of `app`, scanned from the controllers' decorators
 * and post-processed by finalizeDocument. Needs the module graph only, not
 * instantiated providers (the `npm run openapi` script uses a preview app).
 * Operation ids are the handler names (STYLE: unique, verb + noun).
 */
export function buildOpenApiDocument(app: INestApplication): JsonObject {
  const scanned = SwaggerModule.createDocument(app, documentConfig(), {
    operationIdFactory: (_controller, method) => method,
  });
  const doc = scanned as unknown as JsonObject;
  // A plain Fastify route, not a controller: the scanner does not see it.
  doc.paths[METRICS_PATH] = METRICS_OPENAPI;
  // The local storage driver's links (D47), plain Fastify routes too.
  Object.assign(doc.paths, FILES_OPENAPI);
  return finalizeDocument(doc);
}
