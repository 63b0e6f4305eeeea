// The rules of this table as users read them: docs/api.md ("Roles and restricted members", "Order of checks").
/** Workspace roles (spec: Authentication). */
export type Role = 'owner' | 'admin' | 'member' | 'viewer';

/** Role classes of D1: any member, writer (not viewer), manager (owner or admin). */
export type RoleClass = 'member' | 'writer' | 'manager';

/** The caller's membership in one workspace, with the grants of D29 when restricted. */
export interface Membership {
  role: Role;
  restricted: boolean;
  /** Granted folders (restricted members only). */
  folderIds: number[];
  /** Granted lists (restricted members only). */
  listIds: number[];
}

/** How the access restriction of D30 applies to an operation. */
export type Restriction =
  | 'none' // workspace-level: not restricted
  | 'list' // the target list must be permitted (tasks, comments, lists)
  | 'folder' // the target folder must be granted (edit folder, create list)
  | 'deny'; // restricted members may never (create folder)

/** Operations the policy decides. */
export type Operation =
  | 'workspace.read'
  | 'label.create'
  | 'label.delete'
  | 'status.create'
  | 'status.edit'
  | 'folder.read'
  | 'folder.create'
  | 'folder.edit'
  | 'folder.delete'
  | 'list.read'
  | 'list.create'
  | 'list.edit'
  | 'list.delete'
  | 'task.read'
  | 'task.create'
  | 'task.edit'
  | 'task.delete'
  | 'comment.read'
  | 'comment.create';

interface Rule {
  role: RoleClass;
  /** The 403 message for roles the class excludes (D2). */
  denial?: string;
  restriction: Restriction;
}

/** The policy table: D1 (roles), D2 (messages), D30 (restriction). */
export const POLICY: Record<Operation, Rule> = {
  'workspace.read': { role: 'member', restriction: 'none' },
  'label.create': { role: 'manager', denial: 'Only owners and admins can create labels', restriction: 'none' },
  'label.delete': { role: 'manager', denial: 'Only owners and admins can delete labels', restriction: 'none' },
  'status.create': { role: 'manager', denial: 'Only owners and admins can create statuses', restriction: 'none' },
  'status.edit': { role: 'manager', denial: 'Only owners and admins can edit statuses', restriction: 'none' },
  'folder.read': { role: 'member', restriction: 'none' },
  'folder.create': { role: 'writer', denial: 'Viewers cannot create folders', restriction: 'deny' },
  'folder.edit': { role: 'writer', denial: 'Viewers cannot edit folders', restriction: 'folder' },
  'folder.delete': { role: 'manager', denial: 'Only owners and admins can delete folders', restriction: 'folder' },
  'list.read': { role: 'member', restriction: 'list' },
  'list.create': { role: 'writer', denial: 'Viewers cannot create lists', restriction: 'folder' },
  'list.edit': { role: 'writer', denial: 'Viewers cannot edit lists', restriction: 'list' },
  'list.delete': { role: 'manager', denial: 'Only owners and admins can delete lists', restriction: 'list' },
  'task.read': { role: 'member', restriction: 'list' },
  'task.create': { role: 'writer', denial: 'Viewers cannot create tasks', restriction: 'list' },
  'task.edit': { role: 'writer', denial: 'Viewers cannot edit tasks', restriction: 'list' },
  'task.delete': { role: 'writer', denial: 'Viewers cannot delete tasks', restriction: 'list' },
  'comment.read': { role: 'member', restriction: 'list' },
  'comment.create': { role: 'writer', denial: 'Viewers cannot comment', restriction: 'list' },
};

const ROLE_CLASSES: Record<RoleClass, readonly Role[]> = {
  member: ['owner', 'admin', 'member', 'viewer'],
  writer: ['owner', 'admin', 'member'],
  manager: ['owner', 'admin'],
};

/** True when a role belongs to a role class of D1. */
export function roleIn(role: Role, roleClass: RoleClass): boolean {
  return ROLE_CLASSES[roleClass].includes(role);
}

/** D29: a list is permitted when granted itself or when its folder is granted; unrestricted members see all. */
export function permitsList(membership: Membership, listId: number | null, folderId: number | null): boolean {
  if (!membership.restricted) return true;
  if (listId === null) return false; // D30: tasks not in a list are outside
  return membership.listIds.includes(listId) || (folderId !== null && membership.folderIds.includes(folderId));
}

/** D29: a folder is granted to a restricted member only explicitly. */
export function permitsFolder(membership: Membership, folderId: number | null): boolean {
  if (!membership.restricted) return true;
  return folderId !== null && membership.folderIds.includes(folderId);
}

/**
 * D30, D33: a restricted member may move a list from folder `fromFolderId` to
 * `toFolderId` only when both folders are granted (a list granted on its own
 * cannot be taken out of a folder the member may not edit); unrestricted members always.
 */
export function permitsListMove(membership: Membership, fromFolderId: number | null, toFolderId: number | null): boolean {
  return permitsFolder(membership, fromFolderId) && permitsFolder(membership, toFolderId);
}

/**
 * The policy decision for `operation` on a target at (folderId, listId):
 * null when allowed, else the 403 message (role message first, then `Access denied`; D3 step 6).
 */
export function decide(membership: Membership, operation: Operation, folderId: number | null, listId: number | null): string | null {
  const rule = POLICY[operation];
  if (!roleIn(membership.role, rule.role)) return rule.denial ?? 'Access denied';
  if (!membership.restricted) return null;
  switch (rule.restriction) {
    case 'none':
      return null;
    case 'deny':
      return 'Access denied';
    case 'folder':
      return permitsFolder(membership, folderId) ? null : 'Access denied';
    case 'list':
      return permitsList(membership, listId, folderId) ? null : 'Access denied';
  }
}

/** spec: Workspace member: `email` is returned only when the caller is the workspace owner. */
export function seesMemberEmails(membership: Membership): boolean {
  return membership.role === 'owner';
}
