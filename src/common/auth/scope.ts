/** The scopes of the specification (Authentication section), and those of its extensions (D37). D21: no wildcards. */
export const SCOPES = [
  'tasks:read',
  'tasks:write',
  'comments:read',
  'comments:write',
  'folders:read',
  'folders:write',
  'lists:write',
  'workspaces:read',
  'workspaces:write',
  'users:read',
  // D37: the events feed.
  'events:read',
  // D38: webhook routes.
  'webhooks:read',
  'webhooks:write',
  // D39: attachments.
  'attachments:read',
  'attachments:write',
] as const;

export type Scope = (typeof SCOPES)[number];

/** True when `value` names one of the specification's scopes. */
export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}
