/**
 * Typed client of the work-tracking API: `openapi-fetch` over the types that
 * `openapi-typescript` generates from openapi.json (`npm run client` rewrites
 * schema.d.ts after `npm run openapi`). Every path, parameter, body and answer
 * is typed by the document:
 *
 *   const api = createApiClient('http://localhost:3000', 'svc_...');
 *   const { data, error, response } = await api.GET('/api/v1/tasks/{task_id}', { params: { path: { task_id: 41 } } });
 *
 * Safe retries and edits: a POST takes `params.header['Idempotency-Key']` (newIdempotencyKey()),
 * and `isReplay(response)` tells a stored answer; task answers carry `etagOf(response)`, which
 * Update and Delete task take back as `params.header['If-Match']` (412 when the task changed).
 */
import { randomUUID } from 'crypto';
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema';

export type { components, operations, paths } from './schema';

/** The component schemas of the document by name: `Schemas['Task']`, `Schemas['Error']`, ... */
export type Schemas = components['schemas'];

/** A client bound to one server and one API key. */
export type ApiClient = Client<paths>;

/**
 * A client of the API at `baseUrl` (scheme, host and port; the paths carry
 * `/api/v1`) sending `apiKey` as `Authorization: Bearer <key>` (D20).
 */
export function createApiClient(baseUrl: string, apiKey: string, options: Omit<ClientOptions, 'baseUrl'> = {}): ApiClient {
  return createClient<paths>({
    ...options,
    baseUrl,
    headers: { ...(options.headers as Record<string, string> | undefined), authorization: `Bearer ${apiKey}` },
  });
}

/** A new value for the `Idempotency-Key` header of a POST: one per request you may retry, reused for each retry of it. */
export function newIdempotencyKey(): string {
  return randomUUID();
}

/** True when `response` is the stored answer of an earlier request with the same `Idempotency-Key` (`Idempotent-Replayed: true`). */
export function isReplay(response: Response): boolean {
  return response.headers.get('idempotent-replayed') === 'true';
}

/** The `ETag` of a task answer (Get, Create and Update task), to send back as `If-None-Match` or `If-Match`; undefined when absent. */
export function etagOf(response: Response): string | undefined {
  return response.headers.get('etag') ?? undefined;
}
