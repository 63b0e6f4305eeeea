/** Where the OpenAPI document is served (public, D1). */
export const OPENAPI_JSON_PATH = '/api/v1/openapi.json';

/**
 * Whether a route (its pattern, or a request's path when no route matched) needs an API key:
 * everything under /api/v1 but the public OpenAPI document.
 */
export function needsKey(route: string | undefined): boolean {
  if (route === undefined || !route.startsWith('/api/v1/')) return false;
  const query = route.indexOf('?');
  return (query < 0 ? route : route.slice(0, query)) !== OPENAPI_JSON_PATH;
}
