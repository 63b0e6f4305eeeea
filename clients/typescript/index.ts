/**
 * Typed client of the work-tracking API: `openapi-fetch` over the types that
 * `openapi-typescript` generates from openapi.json (`npm run client` rewrites
 * schema.d.ts after `npm run openapi`). Every path, parameter, body and answer
 * is typed by the document:
 *
 *   const api = createApiClient('http://localhost:3000', 'svc_...');
 *   const { data, error, response } = await api.GET('/api/v1/tasks/{task_id}', { params: { path: { task_id: 41 } } });
 */
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
