import SwaggerParser from '@apidevtools/swagger-parser';
import { execFileSync } from 'child_process';
import { readFileSync } from 'fs';
import { resolve } from 'path';

import { SCOPES } from '../../src/common/auth/scope';
import type { FixtureWorld } from '../../src/fixtures/fixture.types';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { LabelDto } from '../../src/labels/labels.dto';
import { operations, reachableSchemas, responseAndRequestRoots } from '../../src/openapi/openapi.finalize';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { Exchange, OpenApiResponseValidator } from '../setup/openapi-validator';
import { ROOT } from '../setup/paths';

/**
 * Issue 5: the OpenAPI 3.1 document (D1: GET /api/v1/openapi.json and /docs,
 * public), the committed openapi.json and the typed client kept in step with
 * it, and the response validator of the e2e suite (test/setup/openapi-validator.ts).
 */

type Doc = Record<string, any>;

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
interface RouteCase {
  method: Method;
  path: string;
  scope: string;
  /** Response schema of the success answer: a component name, or [name] for an array of it; null for 204. */
  /** A schema name, [name] for an array of it, { oneOf } for alternatives, null for no body (or a 201 with any named schema). */
  returns: string | [string] | { oneOf: string[] } | null;
  /** Messages the route must document, per status (a subset: more may be listed). */
  errors: Partial<Record<400 | 403 | 404 | 409 | 413 | 415, string[]>>;
  /** The success status when not the method's usual one (a DELETE answering 200; D47: confirm 200, download 302). */
  success?: string;
  /** Statuses beyond those every route of its kind answers (412 and 428 of If-Match, 413 of a route that ignores its body). */
  more?: string[];
  /** A POST whose body is never parsed (D47's confirm): no 400/415 of D7. */
  bodyIgnored?: boolean;
}

const PRIORITY = 'Invalid priority. Must be one of: urgent, high, medium, low, none';
const DUE = 'Invalid due_date format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z';
const START = 'Invalid start_date format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z';

/** D1, with the messages of the specification's catalog, D2, D4, D6 and D22 each route can answer. */
const D1: RouteCase[] = [
  { method: 'GET', path: '/api/v1/me', scope: 'users:read', returns: 'CurrentUser', errors: { 404: ['User not found'] } },
  { method: 'GET', path: '/api/v1/workspaces', scope: 'workspaces:read', returns: ['Workspace'], errors: {} },
  {
    method: 'GET',
    path: '/api/v1/workspaces/{workspace_id}',
    scope: 'workspaces:read',
    returns: 'Workspace',
    errors: { 400: ['Invalid workspace ID'], 404: ['Workspace not found'] },
  },
  {
    method: 'GET',
    path: '/api/v1/workspaces/{workspace_id}/members',
    scope: 'workspaces:read',
    returns: ['Member'],
    errors: { 400: ['Invalid workspace ID'], 404: ['Workspace not found'] },
  },
  {
    method: 'GET',
    path: '/api/v1/workspaces/{workspace_id}/labels',
    scope: 'workspaces:read',
    returns: ['Label'],
    errors: { 400: ['Invalid workspace ID'], 404: ['Workspace not found'] },
  },
  {
    method: 'POST',
    path: '/api/v1/labels',
    scope: 'workspaces:write',
    returns: 'Label',
    errors: {
      400: ['workspace_id is required', 'name is required'],
      403: ['Only owners and admins can create labels'],
      404: ['Workspace not found'],
      409: ['A label with this name already exists'],
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/labels/{label_id}',
    scope: 'workspaces:write',
    returns: null,
    errors: { 400: ['Invalid label ID'], 403: ['Only owners and admins can delete labels', 'Access denied'], 404: ['Label not found'] },
  },
  {
    method: 'GET',
    path: '/api/v1/workspaces/{workspace_id}/statuses',
    scope: 'workspaces:read',
    returns: ['Status'],
    errors: { 400: ['Invalid workspace ID'], 404: ['Workspace not found'] },
  },
  {
    method: 'POST',
    path: '/api/v1/statuses',
    scope: 'workspaces:write',
    returns: 'Status',
    errors: {
      400: ['workspace_id is required', 'name is required', 'Invalid category. Must be one of: pending, in_progress, completed, cancelled'],
      403: ['Only owners and admins can create statuses'],
      404: ['Workspace not found'],
      409: ['A status with this name already exists'],
    },
  },
  {
    method: 'PATCH',
    path: '/api/v1/statuses/{status_id}',
    scope: 'workspaces:write',
    returns: 'Status',
    errors: {
      400: ['Invalid status ID', 'At least one completed status must remain in the workspace'],
      403: ['Only owners and admins can edit statuses', 'Access denied'],
      404: ['Status not found'],
      409: ['A status with this name already exists'],
    },
  },
  {
    method: 'GET',
    path: '/api/v1/workspaces/{workspace_id}/folders',
    scope: 'folders:read',
    returns: ['Folder'],
    errors: { 400: ['Invalid workspace ID'], 404: ['Workspace not found'] },
  },
  {
    method: 'POST',
    path: '/api/v1/folders',
    scope: 'folders:write',
    returns: 'Folder',
    errors: { 400: ['workspace_id is required', 'name is required'], 403: ['Viewers cannot create folders', 'Access denied'], 404: ['Workspace not found'] },
  },
  {
    method: 'PATCH',
    path: '/api/v1/folders/{folder_id}',
    scope: 'folders:write',
    returns: 'Folder',
    errors: { 400: ['Invalid folder ID', 'name cannot be empty'], 403: ['Viewers cannot edit folders'], 404: ['Folder not found'] },
  },
  {
    method: 'DELETE',
    path: '/api/v1/folders/{folder_id}',
    scope: 'folders:write',
    returns: null,
    errors: { 400: ['Invalid folder ID'], 403: ['Only owners and admins can delete folders'], 404: ['Folder not found'] },
  },
  {
    method: 'GET',
    path: '/api/v1/folders/{folder_id}/lists',
    scope: 'folders:read',
    returns: ['List'],
    errors: { 400: ['Invalid folder ID'], 404: ['Folder not found'] },
  },
  {
    method: 'POST',
    path: '/api/v1/lists',
    scope: 'lists:write',
    returns: 'List',
    errors: {
      400: ['workspace_id is required', 'folder_id is required', 'name is required'],
      403: ['Viewers cannot create lists'],
      404: ['Folder not found', 'List not found'],
    },
  },
  {
    method: 'PATCH',
    path: '/api/v1/lists/{list_id}',
    scope: 'lists:write',
    returns: 'List',
    errors: { 400: ['Invalid list ID', 'name cannot be empty'], 403: ['Viewers cannot edit lists', 'Access denied'], 404: ['List not found'] },
  },
  {
    method: 'DELETE',
    path: '/api/v1/lists/{list_id}',
    scope: 'lists:write',
    returns: null,
    errors: { 400: ['Invalid list ID'], 403: ['Only owners and admins can delete lists', 'Access denied'], 404: ['List not found'] },
  },
  {
    method: 'GET',
    path: '/api/v1/workspaces/{workspace_id}/tasks',
    scope: 'tasks:read',
    // D34: offset pages, keyset pages, keyset pages with total.
    returns: { oneOf: ['TaskPage', 'TaskCursorPage', 'TaskCursorPageWithTotal'] },
    errors: {
      400: ['Invalid workspace ID', 'page must be a positive integer', 'limit must be an integer between 1 and 100', 'list_id must be a valid numeric ID'],
      403: ['Access denied'],
      404: ['Workspace not found', 'List not found in this workspace'],
    },
  },
  {
    method: 'POST',
    path: '/api/v1/tasks',
    scope: 'tasks:write',
    returns: null,
    errors: {
      400: [
        'list_id is required',
        'title is required',
        'list_id must be a valid numeric ID',
        'status_id must be a valid numeric ID',
        PRIORITY,
        DUE,
        START,
        'assignee_ids must be an array',
        'custom_fields must be an array',
      ],
      403: ['Viewers cannot create tasks', 'Access denied'],
      404: ['List not found in this workspace', 'Status not found in this workspace'],
    },
  },
  {
    method: 'GET',
    path: '/api/v1/tasks/{task_id}',
    scope: 'tasks:read',
    returns: 'Task',
    errors: { 400: ['Invalid task ID'], 403: ['Access denied'], 404: ['Task not found'] },
  },
  {
    method: 'PATCH',
    path: '/api/v1/tasks/{task_id}',
    scope: 'tasks:write',
    returns: null,
    errors: {
      400: ['Invalid task ID', 'title cannot be empty', PRIORITY, DUE, START, 'status_id must be a valid numeric ID', 'list_id must be a valid numeric ID'],
      403: ['Viewers cannot edit tasks', 'Access denied'],
      404: ['Task not found', 'Status not found in this workspace'],
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/tasks/{task_id}',
    scope: 'tasks:write',
    returns: null,
    errors: { 400: ['Invalid task ID'], 403: ['Viewers cannot delete tasks', 'Access denied'], 404: ['Task not found'] },
  },
  {
    method: 'GET',
    path: '/api/v1/tasks/{task_id}/comments',
    scope: 'comments:read',
    returns: ['Comment'],
    errors: { 400: ['Invalid task ID'], 403: ['Access denied'], 404: ['Task not found'] },
  },
  {
    method: 'POST',
    path: '/api/v1/tasks/{task_id}/comments',
    scope: 'comments:write',
    returns: 'Comment',
    errors: { 400: ['Invalid task ID', 'content is required'], 403: ['Viewers cannot comment', 'Access denied'], 404: ['Task not found'] },
  },
  {
    method: 'GET',
    path: '/api/v1/workspaces/{workspace_id}/custom-fields',
    scope: 'tasks:read',
    returns: ['CustomFieldDefinition'],
    errors: { 400: ['Invalid workspace ID'], 404: ['Workspace not found'] },
  },
  {
    method: 'GET',
    path: '/api/v1/workspaces/{workspace_id}/events',
    scope: 'events:read',
    returns: 'EventPage',
    errors: {
      400: ['Invalid workspace ID', 'after must be a non-negative integer', 'limit must be an integer between 1 and 100', 'task_id must be a valid numeric ID'],
      404: ['Workspace not found'],
    },
  },
  // D38: webhooks.
  {
    method: 'POST',
    path: '/api/v1/webhooks',
    scope: 'webhooks:write',
    returns: 'CreatedWebhook',
    errors: {
      400: [
        'workspace_id is required',
        'url must be an https URL',
        'url must not point to a private address',
        'events must be a non-empty array of event types',
      ],
      403: ['Only owners and admins can manage webhooks'],
      404: ['Workspace not found'],
    },
  },
  {
    method: 'GET',
    path: '/api/v1/workspaces/{workspace_id}/webhooks',
    scope: 'webhooks:read',
    returns: ['Webhook'],
    errors: { 400: ['Invalid workspace ID'], 403: ['Only owners and admins can manage webhooks'], 404: ['Workspace not found'] },
  },
  {
    method: 'PATCH',
    path: '/api/v1/webhooks/{webhook_id}',
    scope: 'webhooks:write',
    returns: 'Webhook',
    errors: {
      400: [
        'Invalid webhook ID',
        'url must be an https URL',
        'url must not point to a private address',
        'events must be a non-empty array of event types',
        'active must be a boolean',
      ],
      403: ['Only owners and admins can manage webhooks', 'Access denied'],
      404: ['Webhook not found'],
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/webhooks/{webhook_id}',
    scope: 'webhooks:write',
    returns: null,
    errors: { 400: ['Invalid webhook ID'], 403: ['Only owners and admins can manage webhooks', 'Access denied'], 404: ['Webhook not found'] },
  },
  {
    method: 'GET',
    path: '/api/v1/webhooks/{webhook_id}/deliveries',
    scope: 'webhooks:read',
    returns: ['WebhookDelivery'],
    errors: { 400: ['Invalid webhook ID'], 403: ['Only owners and admins can manage webhooks', 'Access denied'], 404: ['Webhook not found'] },
  },
  // D39: issue 34's routes.
  {
    method: 'PATCH',
    path: '/api/v1/labels/{label_id}',
    scope: 'workspaces:write',
    returns: 'Label',
    errors: {
      400: ['Invalid label ID', 'name cannot be empty', 'color must be a string or null', 'color must be at most 64 characters'],
      403: ['Only owners and admins can edit labels', 'Access denied'],
      404: ['Label not found'],
      409: ['A label with this name already exists'],
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/statuses/{status_id}',
    scope: 'workspaces:write',
    returns: null,
    more: ['413'],
    errors: {
      400: [
        'Invalid status ID',
        'replacement_status_id must be given only once',
        'replacement_status_id must be a valid numeric ID',
        'replacement_status_id cannot be the deleted status',
        'At least one completed status must remain in the workspace',
      ],
      403: ['Only owners and admins can delete statuses', 'Access denied'],
      404: ['Status not found', 'Status not found in this workspace'],
    },
  },
  {
    method: 'GET',
    path: '/api/v1/folders/{folder_id}',
    scope: 'folders:read',
    returns: 'Folder',
    errors: { 400: ['Invalid folder ID'], 403: ['Access denied'], 404: ['Folder not found'] },
  },
  {
    method: 'GET',
    path: '/api/v1/lists/{list_id}',
    scope: 'folders:read',
    returns: 'List',
    errors: { 400: ['Invalid list ID'], 403: ['Access denied'], 404: ['List not found'] },
  },
  ...(['PUT', 'DELETE'] as const).map((method): RouteCase => ({
    method,
    path: '/api/v1/tasks/{task_id}/labels/{label_id}',
    scope: 'tasks:write',
    returns: null,
    success: '200',
    more: ['412', '413', '428'],
    errors: { 400: ['Invalid task ID', 'Invalid label ID'], 403: ['Viewers cannot edit tasks', 'Access denied'], 404: ['Task not found', 'Label not found'] },
  })),
  {
    method: 'PATCH',
    path: '/api/v1/comments/{comment_id}',
    scope: 'comments:write',
    returns: 'Comment',
    errors: {
      400: ['Invalid comment ID', 'content cannot be empty', 'resolved must be a boolean'],
      403: ['Viewers cannot edit comments', 'Access denied', 'Only the author can edit a comment'],
      404: ['Comment not found'],
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/comments/{comment_id}',
    scope: 'comments:write',
    returns: null,
    errors: {
      400: ['Invalid comment ID'],
      403: ['Viewers cannot delete comments', 'Access denied', 'Only the author or owners and admins can delete a comment'],
      404: ['Comment not found'],
    },
  },
  // D39-D41, D46: workspaces, members, API keys.
  {
    method: 'POST',
    path: '/api/v1/workspaces',
    scope: 'workspaces:write',
    returns: 'Workspace',
    errors: {
      400: ['name is required', 'slug must be 1 to 64 URL-safe characters (letters, digits, ".", "_", "~", "-")', 'image_url must be an http or https URL'],
      409: ['A workspace with this slug already exists'],
    },
  },
  {
    method: 'PATCH',
    path: '/api/v1/workspaces/{workspace_id}',
    scope: 'workspaces:write',
    returns: 'Workspace',
    errors: {
      400: ['Invalid workspace ID', 'name cannot be empty', 'description must be a string or null'],
      403: ['Only owners and admins can edit workspaces'],
      404: ['Workspace not found'],
      409: ['A workspace with this slug already exists'],
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/workspaces/{workspace_id}',
    scope: 'workspaces:write',
    returns: null,
    errors: { 400: ['Invalid workspace ID'], 403: ['Only the owner can delete the workspace'], 404: ['Workspace not found'] },
  },
  {
    method: 'POST',
    path: '/api/v1/workspaces/{workspace_id}/members',
    scope: 'members:write',
    returns: 'Member',
    errors: {
      400: [
        'Invalid workspace ID',
        'user_id or email is required',
        'Send user_id or email, not both',
        'Invalid role. Must be one of: admin, member, viewer',
        'Only members and viewers can be access-restricted',
      ],
      403: ['Only owners and admins can manage members', 'Only the owner can manage admins'],
      404: ['Workspace not found', 'User not found', 'Folder not found', 'List not found'],
      409: ['User is already a member of this workspace'],
    },
  },
  {
    method: 'PATCH',
    path: '/api/v1/workspaces/{workspace_id}/members/{user_id}',
    scope: 'members:write',
    returns: 'Member',
    errors: {
      400: ['Invalid workspace ID', 'Invalid user ID', 'restricted must be a boolean', 'Only members and viewers can be access-restricted'],
      403: ['Only owners and admins can manage members', 'The workspace owner cannot be changed', 'Only the owner can manage admins'],
      404: ['Workspace not found', 'Member not found', 'Folder not found'],
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/workspaces/{workspace_id}/members/{user_id}',
    scope: 'members:write',
    returns: null,
    errors: {
      400: ['Invalid workspace ID', 'Invalid user ID'],
      403: ['Only owners and admins can manage members', 'The workspace owner cannot be removed', 'Only the owner can manage admins'],
      404: ['Workspace not found', 'Member not found'],
    },
  },
  {
    method: 'GET',
    path: '/api/v1/workspaces/{workspace_id}/members/{user_id}/access',
    scope: 'workspaces:read',
    returns: 'MemberAccess',
    errors: {
      400: ['Invalid workspace ID', 'Invalid user ID'],
      403: ['Only owners and admins can manage members'],
      404: ['Workspace not found', 'Member not found'],
    },
  },
  {
    method: 'POST',
    path: '/api/v1/api-keys',
    scope: 'api_keys:write',
    returns: 'CreatedApiKey',
    errors: {
      400: [
        'name is required',
        'scopes must be a non-empty array of known scopes',
        'expires_at must be in the future',
        "expires_at cannot be later than this key's expiry",
      ],
      403: ['A key cannot grant a scope it does not have: tasks:write'],
      409: ['A user can hold at most 100 active API keys'],
    },
  },
  { method: 'GET', path: '/api/v1/api-keys', scope: 'api_keys:read', returns: ['ApiKey'], errors: {} },
  {
    method: 'DELETE',
    path: '/api/v1/api-keys/{api_key_id}',
    scope: 'api_keys:write',
    returns: null,
    errors: { 400: ['Invalid API key ID'], 404: ['API key not found'] },
  },
  // D39, D42: custom-field definitions.
  {
    method: 'POST',
    path: '/api/v1/custom-fields',
    scope: 'workspaces:write',
    returns: 'CustomField',
    errors: {
      400: [
        'workspace_id is required',
        'name is required',
        'Invalid type. Must be one of: text, number, date, checkbox, rating, dropdown, money, people',
        'config must be an object for dropdown',
        'config must be null for text',
        'list_overrides must be an array of {list_id, access} with access granted or denied',
      ],
      403: ['Only owners and admins can manage custom fields'],
      404: ['Workspace not found', 'Folder not found', 'List not found'],
      409: ['A custom field with this name already exists'],
    },
  },
  {
    method: 'GET',
    path: '/api/v1/custom-fields/{custom_field_id}',
    scope: 'workspaces:read',
    returns: 'CustomField',
    errors: { 400: ['Invalid custom field ID'], 403: ['Only owners and admins can manage custom fields', 'Access denied'], 404: ['Custom field not found'] },
  },
  {
    method: 'PATCH',
    path: '/api/v1/custom-fields/{custom_field_id}',
    scope: 'workspaces:write',
    returns: 'CustomField',
    errors: {
      400: ['Invalid custom field ID', 'type cannot be changed', 'name cannot be empty', 'position must be an integer'],
      403: ['Only owners and admins can manage custom fields', 'Access denied'],
      404: ['Custom field not found', 'Folder not found', 'List not found'],
      409: ['A custom field with this name already exists'],
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/custom-fields/{custom_field_id}',
    scope: 'workspaces:write',
    returns: null,
    errors: { 400: ['Invalid custom field ID'], 403: ['Only owners and admins can manage custom fields', 'Access denied'], 404: ['Custom field not found'] },
  },
  // D39, D47: attachments.
  {
    method: 'POST',
    path: '/api/v1/tasks/{task_id}/attachments',
    scope: 'attachments:write',
    returns: { oneOf: ['Attachment', 'DeclaredAttachment'] },
    errors: {
      400: [
        'Invalid task ID',
        'Invalid multipart body',
        'file is required',
        'Send one file per request',
        'file_name is required',
        'file_name must be 1 to 255 characters',
        'file_size must be a non-negative integer',
        'mime_type must be a MIME type such as application/pdf',
      ],
      403: ['Viewers cannot upload attachments', 'Access denied'],
      404: ['Task not found'],
      413: ['Attachment is too large (at most <limit> bytes)', 'Workspace storage quota exceeded'],
      415: ['Content-Type must be application/json or multipart/form-data'],
    },
  },
  {
    method: 'GET',
    path: '/api/v1/tasks/{task_id}/attachments',
    scope: 'attachments:read',
    returns: ['Attachment'],
    errors: { 400: ['Invalid task ID'], 403: ['Access denied'], 404: ['Task not found'] },
  },
  {
    method: 'POST',
    path: '/api/v1/attachments/{attachment_id}/confirm',
    scope: 'attachments:write',
    returns: 'Attachment',
    success: '200',
    bodyIgnored: true,
    errors: {
      400: ['Invalid attachment ID'],
      403: ['Viewers cannot upload attachments', 'Access denied'],
      404: ['Attachment not found'],
      409: ['Upload is missing or incomplete'],
      413: ['Request body is too large'],
    },
  },
  {
    method: 'GET',
    path: '/api/v1/attachments/{attachment_id}/download',
    scope: 'attachments:read',
    returns: null,
    success: '302',
    errors: { 400: ['Invalid attachment ID'], 403: ['Access denied'], 404: ['Attachment not found'] },
  },
  {
    method: 'DELETE',
    path: '/api/v1/attachments/{attachment_id}',
    scope: 'attachments:write',
    returns: null,
    errors: { 400: ['Invalid attachment ID'], 403: ['Viewers cannot delete attachments', 'Access denied'], 404: ['Attachment not found'] },
  },
];

/** The component schemas the contract's readers (and the client) know by name. */
const SCHEMA_NAMES = [
  'Task',
  'TaskListItem',
  'Subtask',
  'StatusSummary',
  'LabelSummary',
  'Assignee',
  'Attachment',
  'CustomFieldEntry',
  'CustomFieldDefinition',
  'Folder',
  'List',
  'Status',
  'Label',
  'Comment',
  'Workspace',
  'Member',
  'CurrentUser',
  'Error',
  'TaskPage',
  'Event',
  'EventActor',
  'EventPage',
];

const hasBody = (c: RouteCase) => (c.method === 'POST' || c.method === 'PATCH') && !c.bodyIgnored;
/** Public routes outside D1's table (health probes, metrics), documented without a key. */
const PUBLIC_ROUTES = [
  'GET /health',
  'GET /health/live',
  'GET /health/ready',
  'GET /metrics',
  // D47: the local storage driver's signed links (their 403 is the link's, not a key's).
  'PUT /files/{attachment_id}/upload/{expires}/{signature}',
  'GET /files/{attachment_id}/download/{expires}/{signature}',
  'HEAD /files/{attachment_id}/download/{expires}/{signature}',
];

const successStatus = (c: RouteCase) => c.success ?? (c.method === 'DELETE' ? '204' : c.method === 'POST' ? '201' : '200');

function expectedStatuses(c: RouteCase): string[] {
  // 429: the rate limit (issue 12) on every authenticated route.
  // 408, 431 (and 414 with a path parameter): answered before any route runs (issue 8).
  const statuses = new Set([successStatus(c), '401', '403', '408', '429', '431', '500', '503', ...Object.keys(c.errors), ...(c.more ?? [])]);
  if (c.path.includes('{')) statuses.add('414');
  if (hasBody(c)) ['400', '413', '415'].forEach((s) => statuses.add(s));
  // D35: every POST takes an Idempotency-Key (400 bad key, 409 in progress, 422 another request under it); D46: but create API key.
  if (c.method === 'POST' && c.path !== '/api/v1/api-keys') ['400', '409', '422'].forEach((s) => statuses.add(s));
  // D36: conditional requests on a task.
  if (c.path === '/api/v1/tasks/{task_id}') (c.method === 'GET' ? ['304'] : ['412', '428']).forEach((s) => statuses.add(s));
  return [...statuses].sort();
}

/** The messages a documented error response lists (its named examples). */
function messagesOf(doc: Doc, response: Doc): string[] {
  const r = response.$ref ? doc.components.responses[response.$ref.split('/').pop()] : response;
  return Object.values<Doc>(r.content['application/json'].examples ?? {}).map((e) => e.value.error);
}

/** `<name> is up to date`, or where the committed text first differs from the expected one and how to regenerate it. */
function staleness(name: string, committed: string, expected: string, command: string): string {
  if (committed === expected) return `${name} is up to date`;
  const a = committed.split('\n');
  const b = expected.split('\n');
  let line = 0;
  while (line < a.length && a[line] === b[line]) line++;
  return `${name} is stale (run ${command}): line ${line + 1} is ${JSON.stringify(a[line] ?? '<end>')}, expected ${JSON.stringify(b[line] ?? '<end>')}`;
}

const world: FixtureWorld = {
  users: [{ ref: 'alice', email: 'alice@openapi.test', name: 'Alice', created_at: '2025-01-01T00:00:00.000Z' }],
  api_keys: [{ user: 'alice', key: 'svc_oa_owner', scopes: [...SCOPES] }],
  workspaces: [{ ref: 'acme', name: 'Acme', slug: 'oa-acme', owner: 'alice', labels: [{ ref: 'bug', name: 'Bug', color: 'red' }] }],
};

describe('OpenAPI document (issue 5; D1)', () => {
  let t: TestApp;
  let served: string;
  let doc: Doc;

  beforeAll(async () => {
    t = await createTestApp({ validateResponses: true });
    await loadFixture(t.db.ds, world);
    const response = await t.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    served = response.body;
    doc = JSON.parse(served);
  });
  afterAll(async () => {
    await t.close();
  });

  it('is served without a key as JSON, byte for byte the committed openapi.json (regenerate with `npm run openapi`)', async () => {
    const response = await t.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const committed = readFileSync(resolve(ROOT, 'openapi.json'), 'utf8');
    // On failure: the decorators changed; run `npm run openapi && npm run client` and commit both files.
    expect(staleness('openapi.json', committed, served, '`npm run openapi`')).toBe('openapi.json is up to date');
    expect(served).toMatch(/^\{\n {2}"openapi": "3\.1\.0",\n/);
    expect(served.endsWith('}\n')).toBe(true);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    await expect(SwaggerParser.validate(JSON.parse(served))).resolves.toMatchObject({ openapi: '3.1.0' });
  });

  it('has a title, version and description, and the two security schemes of D20', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toEqual({ title: 'Work-tracking API', version: '1.0.0', description: expect.stringContaining('X-API-Key') });
    expect(doc.components.securitySchemes).toEqual({
      bearer: { type: 'http', scheme: 'bearer', description: expect.any(String) },
      apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: expect.any(String) },
    });
  });

  it('describes, in order of name, exactly the tags its operations use', () => {
    const used = [...new Set(operations(doc).flatMap(({ op }) => op.tags))].sort();
    expect(doc.tags).toEqual(used.map((name) => ({ name, description: expect.any(String) })));
  });

  it('has every route of D1, the public health and metrics routes, and no other', () => {
    const documented = operations(doc)
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`)
      .sort();
    expect(documented).toEqual([...D1.map((c) => `${c.method} ${c.path}`), ...PUBLIC_ROUTES].sort());
  });

  it.each(PUBLIC_ROUTES)('documents %s as public: no key, no 401, 403 or 429', (route) => {
    const [method, path] = route.split(' ');
    const op = doc.paths[path][method.toLowerCase()];
    const keyAnswers = path.startsWith('/files/') ? ['401', '429'] : ['401', '403', '429'];
    expect([op.security, op['x-scope'], Object.keys(op.responses).filter((s) => keyAnswers.includes(s))]).toEqual([[], undefined, []]);
  });

  describe.each(D1)('$method $path', (c) => {
    const op = () => doc.paths[c.path]?.[c.method.toLowerCase()];

    it(`needs ${c.scope} through either security scheme, and says so with its roles in the description`, () => {
      expect(op()).toBeDefined();
      expect(op()['x-scope']).toBe(c.scope);
      expect(op().security).toEqual([{ bearer: [] }, { apiKey: [] }]);
      expect(op().summary).toEqual(expect.any(String));
      expect(op().description).toContain(c.scope);
      expect(op().description).toMatch(/member|owner|admin|viewer|any key|writer|manager/i);
      expect(op().operationId).toMatch(/^[a-z]+[A-Za-z]+$/);
      expect(op().tags).toHaveLength(1);
    });

    it('documents exactly the statuses it can answer', () => {
      expect(Object.keys(op()?.responses ?? {}).sort()).toEqual(expectedStatuses(c));
    });

    it('documents its success answer with the named schema', () => {
      const success = op()?.responses?.[successStatus(c)];
      if (c.returns === null) {
        if (successStatus(c) === '204') expect(success).toEqual({ description: expect.any(String), headers: expect.any(Object) });
        else if (c.success === '302') expect(success?.headers?.Location?.schema).toEqual({ type: 'string', format: 'uri' });
        else expect(success?.content?.['application/json']?.schema?.$ref).toEqual(expect.stringMatching(/^#\/components\/schemas\/\w+$/));
      } else if (Array.isArray(c.returns)) {
        expect(success?.content?.['application/json']?.schema).toEqual({ type: 'array', items: { $ref: `#/components/schemas/${c.returns[0]}` } });
      } else if (typeof c.returns === 'object') {
        expect(success?.content?.['application/json']?.schema).toEqual({ oneOf: c.returns.oneOf.map((name) => ({ $ref: `#/components/schemas/${name}` })) });
      } else {
        expect(success?.content?.['application/json']?.schema).toEqual({ $ref: `#/components/schemas/${c.returns}` });
      }
    });

    it('documents every error with the Error schema and its messages as named examples', () => {
      const responses = op()?.responses ?? {};
      const expected: Record<string, string[]> = {
        401: ['API key required', 'Invalid API key', 'API key has expired'],
        403: [`Scope '${c.scope}' is required for this endpoint`],
        500: ['Internal server error'],
        ...(hasBody(c)
          ? {
              400: ['Invalid JSON body', 'Request body must be a JSON object'],
              413: ['Request body is too large'],
              415: ['Content-Type must be application/json'],
            }
          : {}),
      };
      // D47: the upload's own 415 replaces D7's.
      if (c.errors[415]) delete expected[415];
      if (c.method === 'POST' && c.path !== '/api/v1/api-keys') {
        expected[400] = [...(expected[400] ?? []), 'Idempotency-Key must be 1 to 255 visible ASCII characters'];
        expected[409] = ['A request with this Idempotency-Key is in progress'];
        expected[422] = ['Idempotency-Key was already used with a different request'];
      }
      if (c.path === '/api/v1/tasks/{task_id}' && c.method !== 'GET') Object.assign(expected, { 412: ['Precondition failed'], 428: ['If-Match is required'] });
      for (const [status, messages] of Object.entries(c.errors)) expected[status] = [...(expected[status] ?? []), ...messages];
      for (const [status, messages] of Object.entries(expected)) {
        expect({ status, messages: messagesOf(doc, responses[status] ?? { content: { 'application/json': {} } }) }).toEqual({
          status,
          messages: expect.arrayContaining(messages),
        });
      }
      for (const [status, response] of Object.entries<Doc>(responses)) {
        if (Number(status) < 400 || response.$ref) continue;
        expect(response.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
        expect(response.description).toBe(
          messagesOf(doc, response)
            .map((m) => '`' + m + '`')
            .join(', '),
        );
      }
    });
  });

  describe('for client generators (issue 10)', () => {
    const KIND_OF_SEGMENT: Record<string, string> = {
      workspaces: 'workspace',
      folders: 'folder',
      lists: 'list',
      tasks: 'task',
      statuses: 'status',
      labels: 'label',
      webhooks: 'webhook',
      comments: 'comment',
      members: 'user',
      'api-keys': 'api_key',
      'custom-fields': 'custom_field',
      attachments: 'attachment',
    };

    it('names each path parameter for its resource and types it as an integer', () => {
      for (const { path, op } of operations(doc)) {
        // D47's signed links are URLs the API hands out whole, not resources of a client.
        if (path.startsWith('/files/')) continue;
        const segments = path.split('/');
        const expected = segments.flatMap((seg, i) => (/^\{.+\}$/.test(seg) ? [`${KIND_OF_SEGMENT[segments[i - 1]]}_id`] : []));
        expect({ path, names: segments.filter((seg) => /^\{.+\}$/.test(seg)).map((seg) => seg.slice(1, -1)) }).toEqual({ path, names: expected });
        const params = (op.parameters ?? []).filter((p: Doc) => p.in === 'path');
        expect({ path, params: params.map((p: Doc) => [p.name, p.required, p.schema.type]) }).toEqual({
          path,
          params: expected.map((n) => [n, true, 'integer']),
        });
      }
    });

    it('types every number a response holds as an integer, declared at its DTO (ApiInteger: nothing rewrites number to integer)', () => {
      const { responses } = responseAndRequestRoots(doc);
      const numbers: string[] = [];
      const visit = (node: unknown, at: string): void => {
        if (Array.isArray(node)) node.forEach((n, i) => visit(n, `${at}[${i}]`));
        else if (node && typeof node === 'object') {
          const o = node as Doc;
          if (o.type === 'number' || (Array.isArray(o.type) && o.type.includes('number'))) numbers.push(at);
          for (const [k, v] of Object.entries(o)) visit(v, `${at}.${k}`);
        }
      };
      responses.forEach((r, i) => visit(r, `response[${i}]`));
      for (const name of reachableSchemas(doc, responses)) visit(doc.components.schemas[name], name);
      expect(numbers).toEqual([]);
      // Issue 32: with a format, for generators that pick a machine type by it (ids: int64).
      expect(doc.components.schemas.Task.properties.id).toEqual({ type: 'integer', format: 'int64', example: 41 });
      expect(doc.components.schemas.Task.properties.list_id.type).toEqual(['integer', 'null']);
    });

    it('lists servers: the serving host first, then a local npm start', () => {
      expect(doc.servers).toEqual([
        { url: '/', description: expect.any(String), 'x-internal': false },
        { url: 'http://localhost:3000', description: expect.any(String), 'x-internal': false },
      ]);
    });

    it('gives every success answer with a body an example the response validator accepts', () => {
      const validator = new OpenApiResponseValidator(doc);
      let checked = 0;
      for (const { path, method, op } of operations(doc)) {
        for (const [status, response] of Object.entries<Doc>(op.responses)) {
          if (!status.startsWith('2') || !response.content) continue;
          if (response.content['*/*']) {
            // D47's download link: the file's bytes.
            expect(response.content['*/*'].schema).toEqual({ type: 'string', format: 'binary' });
            continue;
          }
          if (!response.content['application/json']) {
            // /metrics: Prometheus text.
            expect({ path, example: typeof response.content['text/plain']?.example }).toEqual({ path, example: 'string' });
            continue;
          }
          const example = response.content['application/json'].example;
          expect({ path, status, example: example === undefined ? 'missing' : 'present' }).toEqual({ path, status, example: 'present' });
          const url = path.replace(/\{[^}]+\}/g, '1');
          expect(validator.problems({ method, url, status: Number(status), contentType: 'application/json', body: JSON.stringify(example) })).toEqual([]);
          checked++;
        }
      }
      // D1's routes, the events feed (D37), the 4 webhook routes that answer a body (D38) and those of D39 that do.
      expect(checked).toBe(49);
    });

    it('documents the WWW-Authenticate: Bearer header of every 401, and the service sends it', async () => {
      for (const { path, op } of operations(doc)) {
        if (!op['x-scope']) continue;
        // Issue 32: shared headers are published once, in components.headers.
        expect({ path, headers: op.responses['401'].headers }).toEqual({
          path,
          headers: expect.objectContaining({ 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' } }),
        });
      }
      expect(doc.components.headers['WWW-Authenticate']).toEqual({ description: expect.any(String), schema: { type: 'string', const: 'Bearer' } });
      const res = await t.inject({ method: 'GET', url: '/api/v1/me' });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.json()).toEqual({ error: 'API key required' });
    });

    it('names operations as methods: a verb, then the resource', () => {
      const names = operations(doc)
        .map(({ op }) => op.operationId)
        .sort();
      expect(names.filter((n) => !/^(get|list|create|update|delete|add|remove)[A-Z][A-Za-z]*$/.test(n))).toEqual([]);
    });
  });

  it('has one operationId per handler, unique (the client names operations by them)', () => {
    const ids = operations(doc).map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('names the shared component schemas', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(SCHEMA_NAMES));
    expect(Object.keys(doc.components.schemas).filter((n) => n.endsWith('Dto'))).toEqual([]);
  });

  it('makes every schema a response reaches strict: all properties required, no others (D16)', () => {
    const { responses } = responseAndRequestRoots(doc);
    for (const name of reachableSchemas(doc, responses)) {
      const schema = doc.components.schemas[name];
      if (!schema.properties) continue;
      expect({ name, required: [...(schema.required ?? [])].sort(), additionalProperties: schema.additionalProperties }).toEqual({
        name,
        required: Object.keys(schema.properties).sort(),
        additionalProperties: false,
      });
    }
  });

  it('uses no schema both in a request and in a response (a strict response schema would reject valid requests)', () => {
    const { responses, requests } = responseAndRequestRoots(doc);
    const out = reachableSchemas(doc, responses);
    expect([...reachableSchemas(doc, requests)].filter((n) => out.has(n))).toEqual([]);
  });

  it('serves Swagger UI at /docs without a key, on the same document', async () => {
    const page = await t.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('swagger-ui');
    const init = await t.inject({ method: 'GET', url: '/docs/swagger-ui-init.js' });
    expect(init.statusCode).toBe(200);
    expect(init.body).toContain('"operationId": "getCurrentUser"');
    const bundle = await t.inject({ method: 'GET', url: '/docs/swagger-ui-bundle.js' });
    expect(bundle.statusCode).toBe(200);
    expect(bundle.headers['content-type']).toMatch(/javascript/);
  });

  it('keeps the typed client in step with openapi.json (regenerate with `npm run client`)', () => {
    // The options of `npm run client` (those after its output path), so that both generate the same file.
    const script: string = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')).scripts.client;
    const options = script.split(/\s+/).filter((arg) => arg.startsWith('--'));
    expect(options).toEqual(['--default-non-nullable=false']);
    const generated = execFileSync(process.execPath, [resolve(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), resolve(ROOT, 'openapi.json'), ...options], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const committed = readFileSync(resolve(ROOT, 'clients/typescript/schema.d.ts'), 'utf8');
    expect(staleness('schema.d.ts', committed, generated, '`npm run client`')).toBe('schema.d.ts is up to date');
  });

  it('validates real answers: this file runs with response validation on', async () => {
    const me = await t.inject({ method: 'GET', url: '/api/v1/me', headers: auth('svc_oa_owner') });
    expect(me.statusCode).toBe(200);
    const denied = await t.inject({ method: 'GET', url: '/api/v1/me' });
    expect(JSON.parse(denied.body)).toEqual({ error: 'API key required' });
    const unknown = await t.inject({ method: 'GET', url: '/api/v1/nowhere', headers: auth('svc_oa_owner') });
    expect(JSON.parse(unknown.body)).toEqual({ error: 'Not found' });
  });
});

describe('createTestApp({ validateResponses: true }).inject', () => {
  // A document that lies: LabelDto without created_at (its swagger metadata removed while this app builds its document).
  const KEY = 'swagger/apiModelPropertiesArray';
  let t: TestApp;
  let saved: string[];
  let acme: number;

  beforeAll(async () => {
    saved = Reflect.getMetadata(KEY, LabelDto.prototype);
    Reflect.defineMetadata(
      KEY,
      saved.filter((p) => p !== ':created_at'),
      LabelDto.prototype,
    );
    t = await createTestApp({ validateResponses: true });
    Reflect.defineMetadata(KEY, saved, LabelDto.prototype);
    ({ acme } = await loadFixture(t.db.ds, world));
  });
  afterAll(async () => {
    Reflect.defineMetadata(KEY, saved, LabelDto.prototype);
    await t.close();
  });

  it('throws when an answer does not match the served document, naming method, route, status and the problem', async () => {
    await expect(t.inject({ method: 'GET', url: `/api/v1/workspaces/${acme}/labels`, headers: auth('svc_oa_owner') })).rejects.toThrow(
      new RegExp(
        `^OpenAPI response validation failed: GET /api/v1/workspaces/${acme}/labels \\(route /api/v1/workspaces/\\{workspace_id\\}/labels\\) answered 200:\n {2}- body/0 must NOT have additional properties 'created_at'\n`,
      ),
    );
  });
});

describe('response validator (test/setup/openapi-validator.ts)', () => {
  const doc: Doc = {
    openapi: '3.1.0',
    paths: {
      '/api/v1/things/{id}': {
        get: {
          responses: {
            '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
            '404': {
              description: '`Thing not found`',
              content: {
                'application/json': {
                  schema: { $ref: '#/components/schemas/Error' },
                  examples: { 'Thing not found': { value: { error: 'Thing not found' } } },
                },
              },
            },
            '500': { $ref: '#/components/responses/InternalServerError' },
          },
        },
        delete: { responses: { '204': { description: 'No content' } } },
      },
      '/api/v1/things/mine': {
        get: {
          responses: {
            '200': { description: 'OK', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Thing' } } } } },
          },
        },
      },
    },
    components: {
      schemas: {
        Thing: {
          type: 'object',
          properties: {
            id: { type: 'number' },
            owner: { anyOf: [{ $ref: '#/components/schemas/Owner' }, { type: 'null' }] },
            created_at: { type: 'string', format: 'date-time', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$' },
          },
          required: ['id', 'owner', 'created_at'],
          additionalProperties: false,
        },
        Owner: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
        Error: { type: 'object', properties: { error: { type: 'string' } }, required: ['error'], additionalProperties: false },
      },
      responses: {
        InternalServerError: {
          description: 'x',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, examples: { e: { value: { error: 'Internal server error' } } } } },
        },
      },
    },
  };
  const validator = new OpenApiResponseValidator(doc);
  const thing = { id: 1, owner: { name: 'A' }, created_at: '2025-01-15T09:30:00.000Z' };
  const json = 'application/json; charset=utf-8';
  const ex = (over: Partial<Exchange>): Exchange => ({
    method: 'GET',
    url: '/api/v1/things/1',
    status: 200,
    contentType: json,
    body: JSON.stringify(thing),
    ...over,
  });

  it.each<[string, Partial<Exchange>]>([
    ['a matching body', {}],
    ['a nullable reference set to null', { body: JSON.stringify({ ...thing, owner: null }) }],
    ['a literal path segment before a parameter, with a query string', { url: '/api/v1/things/mine?page=2', body: JSON.stringify([thing]) }],
    ['a documented error message', { status: 404, body: '{"error":"Thing not found"}' }],
    ['a $ref response', { status: 500, body: '{"error":"Internal server error"}' }],
    ['an empty 204', { method: 'DELETE', status: 204, contentType: undefined, body: '' }],
    ['the 404 of an unknown route', { url: '/api/v1/nowhere', status: 404, body: '{"error":"Not found"}' }],
    ['an undocumented method on a documented path answered 404 Not found', { method: 'PUT', status: 404, body: '{"error":"Not found"}' }],
    ['the routes outside the document', { url: '/health', body: '{"status":"ok"}' }],
  ])('accepts %s', (_name, over) => {
    expect(validator.problems(ex(over))).toEqual([]);
  });

  it.each<[string, Partial<Exchange>, unknown]>([
    ['an extra key', { body: JSON.stringify({ ...thing, extra: 1 }) }, ["body must NOT have additional properties 'extra'"]],
    ['a missing key', { body: JSON.stringify({ id: 1, owner: null }) }, ["body must have required property 'created_at'"]],
    ['a wrong type', { body: JSON.stringify({ ...thing, id: '1' }) }, ['body/id must be number']],
    [
      'a timestamp without milliseconds',
      { body: JSON.stringify({ ...thing, created_at: '2025-01-15T09:30:00Z' }) },
      [expect.stringMatching(/^body\/created_at must match pattern/)],
    ],
    [
      'an extra key in a nested object',
      { body: JSON.stringify({ ...thing, owner: { name: 'A', email: 'x' } }) },
      expect.arrayContaining(["body/owner must NOT have additional properties 'email'"]),
    ],
    ['an undocumented status', { status: 403, body: '{"error":"Access denied"}' }, ['status 403 is not documented (documented: 200, 404, 500)']],
    [
      'an undocumented error message',
      { status: 404, body: '{"error":"Task not found"}' },
      ["error message 'Task not found' is not documented for 404 (documented: 'Thing not found')"],
    ],
    [
      'a body that is not JSON',
      { body: 'oops', contentType: 'text/plain' },
      ['content-type is text/plain, expected application/json', 'the body is not JSON: oops'],
    ],
    [
      'a body on a response documented without one',
      { method: 'DELETE', status: 204, body: '{}' },
      ['status 204 is documented without a body, but the answer has one: {}'],
    ],
    [
      'an unknown route answered other than 404 Not found',
      { url: '/api/v1/nowhere', status: 200, body: '{}' },
      ["no documented route GET /api/v1/nowhere (and the answer is not the 404 'Not found' of an unknown route)"],
    ],
  ])('rejects %s', (_name, over, problems) => {
    expect(validator.problems(ex(over))).toEqual(problems);
  });

  it('throws naming the method, URL, route, status and problems', () => {
    expect(() => validator.assert(ex({ status: 403, body: '{"error":"Access denied"}' }))).toThrow(
      'OpenAPI response validation failed: GET /api/v1/things/1 (route /api/v1/things/{id}) answered 403:\n' +
        '  - status 403 is not documented (documented: 200, 404, 500)\n' +
        '  body: {"error":"Access denied"}',
    );
  });
});
