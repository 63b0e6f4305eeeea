import type { Scope } from '../../src/common/auth/scope';
import type { PathIdKind } from '../../src/common/validation/ids';

/** Who may call a route (D1, D39): any key; any member (viewers too); owners, admins and members; owners and admins; the owner. */
export type RouteRole = 'any key' | 'member' | 'writer' | 'manager' | 'owner';

/** One route of D1. */
export interface RouteSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** As the controllers declare it: path ids named for their resource (`:task_id`). */
  path: string;
  scope: Scope;
  role: RouteRole;
  /**
   * What names the route's target (D3 step 4): its path id, or for a create the
   * parent id in the body (`workspace_id`, a new task's `list_id`); none for `me`
   * and `my workspaces`.
   */
  target?: { in: 'path'; kind: PathIdKind } | { in: 'body'; field: 'workspace_id' | 'list_id' };
  /**
   * D39: a second path id, part of the target (the member of `/workspaces/:workspace_id/members/:user_id`),
   * checked for form after the first; `self`: the role rule lets the member themself pass.
   */
  second?: { kind: PathIdKind; self?: true };
}

const path = (kind: PathIdKind) => ({ in: 'path', kind }) as const;
const body = (field: 'workspace_id' | 'list_id') => ({ in: 'body', field }) as const;

/**
 * Every keyed route (D1, the events feed of D37, the webhook routes of D38, the routes of D39): the one
 * table tests take routes from. No test writes a route count: counts are ROUTES.length.
 */
export const ROUTES: RouteSpec[] = [
  { method: 'GET', path: '/api/v1/me', scope: 'users:read', role: 'any key' },
  { method: 'GET', path: '/api/v1/workspaces', scope: 'workspaces:read', role: 'member' },
  { method: 'GET', path: '/api/v1/workspaces/:workspace_id', scope: 'workspaces:read', role: 'member', target: path('workspace') },
  { method: 'GET', path: '/api/v1/workspaces/:workspace_id/members', scope: 'workspaces:read', role: 'member', target: path('workspace') },
  { method: 'GET', path: '/api/v1/workspaces/:workspace_id/labels', scope: 'workspaces:read', role: 'member', target: path('workspace') },
  { method: 'POST', path: '/api/v1/labels', scope: 'workspaces:write', role: 'manager', target: body('workspace_id') },
  { method: 'DELETE', path: '/api/v1/labels/:label_id', scope: 'workspaces:write', role: 'manager', target: path('label') },
  { method: 'GET', path: '/api/v1/workspaces/:workspace_id/statuses', scope: 'workspaces:read', role: 'member', target: path('workspace') },
  { method: 'POST', path: '/api/v1/statuses', scope: 'workspaces:write', role: 'manager', target: body('workspace_id') },
  { method: 'PATCH', path: '/api/v1/statuses/:status_id', scope: 'workspaces:write', role: 'manager', target: path('status') },
  { method: 'GET', path: '/api/v1/workspaces/:workspace_id/folders', scope: 'folders:read', role: 'member', target: path('workspace') },
  { method: 'POST', path: '/api/v1/folders', scope: 'folders:write', role: 'writer', target: body('workspace_id') },
  { method: 'PATCH', path: '/api/v1/folders/:folder_id', scope: 'folders:write', role: 'writer', target: path('folder') },
  { method: 'DELETE', path: '/api/v1/folders/:folder_id', scope: 'folders:write', role: 'manager', target: path('folder') },
  { method: 'GET', path: '/api/v1/folders/:folder_id/lists', scope: 'folders:read', role: 'member', target: path('folder') },
  { method: 'POST', path: '/api/v1/lists', scope: 'lists:write', role: 'writer', target: body('workspace_id') },
  { method: 'PATCH', path: '/api/v1/lists/:list_id', scope: 'lists:write', role: 'writer', target: path('list') },
  { method: 'DELETE', path: '/api/v1/lists/:list_id', scope: 'lists:write', role: 'manager', target: path('list') },
  { method: 'GET', path: '/api/v1/workspaces/:workspace_id/tasks', scope: 'tasks:read', role: 'member', target: path('workspace') },
  { method: 'POST', path: '/api/v1/tasks', scope: 'tasks:write', role: 'writer', target: body('list_id') },
  { method: 'GET', path: '/api/v1/tasks/:task_id', scope: 'tasks:read', role: 'member', target: path('task') },
  { method: 'PATCH', path: '/api/v1/tasks/:task_id', scope: 'tasks:write', role: 'writer', target: path('task') },
  { method: 'DELETE', path: '/api/v1/tasks/:task_id', scope: 'tasks:write', role: 'writer', target: path('task') },
  { method: 'GET', path: '/api/v1/tasks/:task_id/comments', scope: 'comments:read', role: 'member', target: path('task') },
  { method: 'POST', path: '/api/v1/tasks/:task_id/comments', scope: 'comments:write', role: 'writer', target: path('task') },
  { method: 'GET', path: '/api/v1/workspaces/:workspace_id/custom-fields', scope: 'tasks:read', role: 'member', target: path('workspace') },
  { method: 'GET', path: '/api/v1/workspaces/:workspace_id/events', scope: 'events:read', role: 'member', target: path('workspace') },
  // D38: webhooks.
  { method: 'POST', path: '/api/v1/webhooks', scope: 'webhooks:write', role: 'manager', target: body('workspace_id') },
  { method: 'GET', path: '/api/v1/workspaces/:workspace_id/webhooks', scope: 'webhooks:read', role: 'manager', target: path('workspace') },
  { method: 'PATCH', path: '/api/v1/webhooks/:webhook_id', scope: 'webhooks:write', role: 'manager', target: path('webhook') },
  { method: 'DELETE', path: '/api/v1/webhooks/:webhook_id', scope: 'webhooks:write', role: 'manager', target: path('webhook') },
  { method: 'GET', path: '/api/v1/webhooks/:webhook_id/deliveries', scope: 'webhooks:read', role: 'manager', target: path('webhook') },
  // D39: labels, statuses, containers, task labels and comments (issue 34).
  { method: 'PATCH', path: '/api/v1/labels/:label_id', scope: 'workspaces:write', role: 'manager', target: path('label') },
  { method: 'DELETE', path: '/api/v1/statuses/:status_id', scope: 'workspaces:write', role: 'manager', target: path('status') },
  { method: 'GET', path: '/api/v1/folders/:folder_id', scope: 'folders:read', role: 'member', target: path('folder') },
  { method: 'GET', path: '/api/v1/lists/:list_id', scope: 'folders:read', role: 'member', target: path('list') },
  { method: 'PUT', path: '/api/v1/tasks/:task_id/labels/:label_id', scope: 'tasks:write', role: 'writer', target: path('task') },
  { method: 'DELETE', path: '/api/v1/tasks/:task_id/labels/:label_id', scope: 'tasks:write', role: 'writer', target: path('task') },
  { method: 'PATCH', path: '/api/v1/comments/:comment_id', scope: 'comments:write', role: 'writer', target: path('comment') },
  { method: 'DELETE', path: '/api/v1/comments/:comment_id', scope: 'comments:write', role: 'writer', target: path('comment') },
  // D39, D42: custom-field definitions.
  { method: 'POST', path: '/api/v1/custom-fields', scope: 'workspaces:write', role: 'manager', target: body('workspace_id') },
  { method: 'GET', path: '/api/v1/custom-fields/:custom_field_id', scope: 'workspaces:read', role: 'manager', target: path('custom_field') },
  { method: 'PATCH', path: '/api/v1/custom-fields/:custom_field_id', scope: 'workspaces:write', role: 'manager', target: path('custom_field') },
  { method: 'DELETE', path: '/api/v1/custom-fields/:custom_field_id', scope: 'workspaces:write', role: 'manager', target: path('custom_field') },
  // D39, D47: attachments.
  { method: 'POST', path: '/api/v1/tasks/:task_id/attachments', scope: 'attachments:write', role: 'writer', target: path('task') },
  { method: 'GET', path: '/api/v1/tasks/:task_id/attachments', scope: 'attachments:read', role: 'member', target: path('task') },
  { method: 'POST', path: '/api/v1/attachments/:attachment_id/confirm', scope: 'attachments:write', role: 'writer', target: path('attachment') },
  { method: 'GET', path: '/api/v1/attachments/:attachment_id/download', scope: 'attachments:read', role: 'member', target: path('attachment') },
  { method: 'DELETE', path: '/api/v1/attachments/:attachment_id', scope: 'attachments:write', role: 'writer', target: path('attachment') },
  // D39, D40: workspaces.
  { method: 'POST', path: '/api/v1/workspaces', scope: 'workspaces:write', role: 'any key' },
  { method: 'PATCH', path: '/api/v1/workspaces/:workspace_id', scope: 'workspaces:write', role: 'manager', target: path('workspace') },
  { method: 'DELETE', path: '/api/v1/workspaces/:workspace_id', scope: 'workspaces:write', role: 'owner', target: path('workspace') },
  // D39, D41: members.
  { method: 'POST', path: '/api/v1/workspaces/:workspace_id/members', scope: 'members:write', role: 'manager', target: path('workspace') },
  {
    method: 'PATCH',
    path: '/api/v1/workspaces/:workspace_id/members/:user_id',
    scope: 'members:write',
    role: 'manager',
    target: path('workspace'),
    second: { kind: 'user' },
  },
  {
    method: 'DELETE',
    path: '/api/v1/workspaces/:workspace_id/members/:user_id',
    scope: 'members:write',
    role: 'manager',
    target: path('workspace'),
    second: { kind: 'user', self: true },
  },
  {
    method: 'GET',
    path: '/api/v1/workspaces/:workspace_id/members/:user_id/access',
    scope: 'workspaces:read',
    role: 'manager',
    target: path('workspace'),
    second: { kind: 'user', self: true },
  },
  // D39, D46: API keys (each key manages its own user's keys).
  { method: 'POST', path: '/api/v1/api-keys', scope: 'api_keys:write', role: 'any key' },
  { method: 'GET', path: '/api/v1/api-keys', scope: 'api_keys:read', role: 'any key' },
  { method: 'DELETE', path: '/api/v1/api-keys/:api_key_id', scope: 'api_keys:write', role: 'any key', target: path('api_key') },
];

/** `METHOD path`, the name tests give a route. */
export const routeName = (r: RouteSpec): string => `${r.method} ${r.path}`;

/** `METHOD /path/{id}` of the OpenAPI document as the `METHOD /path/:id` of a ROUTES row. */
export const documentedRouteName = (method: string, template: string): string => `${method.toUpperCase()} ${template.replace(/\{([a-z_]+)\}/g, ':$1')}`;

/**
 * The route's URL with `id` (any text: malformed ones included) in its first path parameter, and
 * `rest` (a well-formed id by default) in any later one (`/tasks/:task_id/labels/:label_id`).
 */
export function routeUrl(r: RouteSpec, id: string | number, rest: string | number = 1): string {
  return r.path.replace(/:\w+_id\b/, String(id)).replace(/:\w+_id\b/g, String(rest));
}
