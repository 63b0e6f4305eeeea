// The rules of this table as users read them: docs/api.md ("Roles and restricted members", "Order of checks").
/** Workspace roles (spec: Authentication). */
export type Role = 'owner' | 'admin' | 'member' | 'viewer';

/** Role classes of D1: any member, writer (not viewer), manager (owner or admin); D39: the owner alone. */
export type RoleClass = 'member' | 'writer' | 'manager' | 'owner';

/** The caller's membership in one workspace, with the grants of D29 when restricted. */
export interface Membership {
  role: Role;
  restricted: boolean;
  /** Granted folders (restricted members only). */
  folderIds: number[];
  /** Granted lists (restricted members only). */
  listIds: number[];
  /** The folders of the granted lists (restricted members only; D39: such a folder is readable). */
  listFolderIds?: number[];
}

/** Kinds of resource an access check starts from (the target of an operation). */
export type ResourceKind = 'workspace' | 'folder' | 'list' | 'task' | 'status' | 'label' | 'webhook' | 'comment' | 'member' | 'custom_field' | 'attachment';

/** How the access restriction of D30 applies to an operation. */
export type Restriction =
  | 'none' // workspace-level: not restricted
  | 'list' // the target list must be permitted (tasks, comments, lists)
  | 'folder' // the target folder must be granted (edit folder, create list)
  | 'folderOrList' // the target folder must be granted or hold a permitted list (get folder, a folder's lists: D39)
  | 'deny'; // restricted members may never (create folder)

/** Operations the policy decides. */
export type Operation =
  | 'workspace.read'
  | 'label.create'
  | 'label.delete'
  | 'label.edit'
  | 'status.create'
  | 'status.edit'
  | 'status.delete'
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
  | 'comment.create'
  | 'comment.edit'
  | 'comment.delete'
  | 'webhook.create'
  | 'webhook.list'
  | 'webhook.manage'
  | 'workspace.edit'
  | 'workspace.delete'
  | 'member.add'
  | 'member.edit'
  | 'member.remove'
  | 'member.access'
  | 'custom_field.create'
  | 'custom_field.manage'
  | 'attachment.upload'
  | 'attachment.list'
  | 'attachment.confirm'
  | 'attachment.download'
  | 'attachment.delete';

interface Rule {
  /** The resource the check starts from (its id is the path id, or the parent id of a create). */
  target: ResourceKind;
  /** The 404 when the target does not exist, when not its kind's own (D4: a new task's list). */
  notFound?: string;
  role: RoleClass;
  /** The 403 message for roles the class excludes (D2). */
  denial?: string;
  restriction: Restriction;
  /** D39 "or self": the role check passes when the member the path names is the caller. */
  self?: true;
}

/** D38: the 403 of every webhook route for members and viewers. */
const WEBHOOK_DENIAL = 'Only owners and admins can manage webhooks';
/** D39: the 403 of the member routes (and of the access route) for roles the table excludes. */
export const MEMBERS_DENIAL = 'Only owners and admins can manage members';

/** D39: the 403 of every custom-field definition route for members and viewers. */
const CUSTOM_FIELD_DENIAL = 'Only owners and admins can manage custom fields';

/** D39: the 403 of upload and confirm for viewers. */
const UPLOAD_DENIAL = 'Viewers cannot upload attachments';

/** The 404 of a list or status named in a body (not the path) that is not in the workspace of the request. */
export const NOT_FOUND_IN_WORKSPACE = {
  list: 'List not found in this workspace',
  status: 'Status not found in this workspace',
} as const;

/** The policy table: D1 (roles), D2 (messages), D4 (targets), D30 (restriction). */
export const POLICY: Record<Operation, Rule> = {
  'workspace.read': { target: 'workspace', role: 'member', restriction: 'none' },
  'label.create': { target: 'workspace', role: 'manager', denial: 'Only owners and admins can create labels', restriction: 'none' },
  'label.delete': { target: 'label', role: 'manager', denial: 'Only owners and admins can delete labels', restriction: 'none' },
  'status.create': { target: 'workspace', role: 'manager', denial: 'Only owners and admins can create statuses', restriction: 'none' },
  'status.edit': { target: 'status', role: 'manager', denial: 'Only owners and admins can edit statuses', restriction: 'none' },
  'label.edit': { target: 'label', role: 'manager', denial: 'Only owners and admins can edit labels', restriction: 'none' },
  'status.delete': { target: 'status', role: 'manager', denial: 'Only owners and admins can delete statuses', restriction: 'none' },
  // D29, D39: get folder and a folder's lists (filtered to the permitted ones) when the folder is granted or holds a permitted list.
  'folder.read': { target: 'folder', role: 'member', restriction: 'folderOrList' },
  'folder.create': { target: 'workspace', role: 'writer', denial: 'Viewers cannot create folders', restriction: 'deny' },
  'folder.edit': { target: 'folder', role: 'writer', denial: 'Viewers cannot edit folders', restriction: 'folder' },
  'folder.delete': { target: 'folder', role: 'manager', denial: 'Only owners and admins can delete folders', restriction: 'folder' },
  'list.read': { target: 'list', role: 'member', restriction: 'list' },
  'list.create': { target: 'folder', role: 'writer', denial: 'Viewers cannot create lists', restriction: 'folder' },
  'list.edit': { target: 'list', role: 'writer', denial: 'Viewers cannot edit lists', restriction: 'list' },
  'list.delete': { target: 'list', role: 'manager', denial: 'Only owners and admins can delete lists', restriction: 'list' },
  'task.read': { target: 'task', role: 'member', restriction: 'list' },
  'task.create': { target: 'list', notFound: NOT_FOUND_IN_WORKSPACE.list, role: 'writer', denial: 'Viewers cannot create tasks', restriction: 'list' },
  'task.edit': { target: 'task', role: 'writer', denial: 'Viewers cannot edit tasks', restriction: 'list' },
  'task.delete': { target: 'task', role: 'writer', denial: 'Viewers cannot delete tasks', restriction: 'list' },
  'comment.read': { target: 'task', role: 'member', restriction: 'list' },
  'comment.create': { target: 'task', role: 'writer', denial: 'Viewers cannot comment', restriction: 'list' },
  // D44: the comment's task decides the restriction; author and manager rules come at step 9 (CommentsService).
  'comment.edit': { target: 'comment', role: 'writer', denial: 'Viewers cannot edit comments', restriction: 'list' },
  'comment.delete': { target: 'comment', role: 'writer', denial: 'Viewers cannot delete comments', restriction: 'list' },
  // D38: every webhook route is for managers, with one message.
  'webhook.create': { target: 'workspace', role: 'manager', denial: WEBHOOK_DENIAL, restriction: 'none' },
  'webhook.list': { target: 'workspace', role: 'manager', denial: WEBHOOK_DENIAL, restriction: 'none' },
  'webhook.manage': { target: 'webhook', role: 'manager', denial: WEBHOOK_DENIAL, restriction: 'none' },
  // D39, D40: workspaces; creating one needs no role (the caller becomes its owner).
  'workspace.edit': { target: 'workspace', role: 'manager', denial: 'Only owners and admins can edit workspaces', restriction: 'none' },
  'workspace.delete': { target: 'workspace', role: 'owner', denial: 'Only the owner can delete the workspace', restriction: 'none' },
  // D39, D41: members. A `member` target is the member the path names in the workspace the path names.
  'member.add': { target: 'workspace', role: 'manager', denial: MEMBERS_DENIAL, restriction: 'none' },
  'member.edit': { target: 'member', role: 'manager', denial: MEMBERS_DENIAL, restriction: 'none' },
  'member.remove': { target: 'member', role: 'manager', denial: MEMBERS_DENIAL, restriction: 'none', self: true },
  'member.access': { target: 'member', role: 'manager', denial: MEMBERS_DENIAL, restriction: 'none', self: true },
  // D39, D42: definitions are for managers, whatever the field's allowed users; workspace-level (D30).
  'custom_field.create': { target: 'workspace', role: 'manager', denial: CUSTOM_FIELD_DENIAL, restriction: 'none' },
  'custom_field.manage': { target: 'custom_field', role: 'manager', denial: CUSTOM_FIELD_DENIAL, restriction: 'none' },
  // D39, D47: attachments, on the task's list like comments; confirm is part of uploading.
  'attachment.upload': { target: 'task', role: 'writer', denial: UPLOAD_DENIAL, restriction: 'list' },
  'attachment.list': { target: 'task', role: 'member', restriction: 'list' },
  'attachment.confirm': { target: 'attachment', role: 'writer', denial: UPLOAD_DENIAL, restriction: 'list' },
  'attachment.download': { target: 'attachment', role: 'member', restriction: 'list' },
  'attachment.delete': { target: 'attachment', role: 'writer', denial: 'Viewers cannot delete attachments', restriction: 'list' },
};

/** D4: the 404 for a target that does not exist, per kind. */
export const NOT_FOUND: Record<ResourceKind, string> = {
  workspace: 'Workspace not found',
  folder: 'Folder not found',
  list: 'List not found',
  task: 'Task not found',
  status: 'Status not found',
  label: 'Label not found',
  webhook: 'Webhook not found',
  comment: 'Comment not found',
  member: 'Member not found',
  custom_field: 'Custom field not found',
  attachment: 'Attachment not found',
};

/** D2, D4, D30: the 403 when no more specific message applies. */
export const ACCESS_DENIED = 'Access denied';

/** D4: the kinds of target whose existence is hidden from non-members (they get the kind's own 404). */
const HIDDEN_FROM_NON_MEMBERS: readonly ResourceKind[] = ['workspace', 'folder'];

/** D4: the answer to a caller who is not a member of the target's workspace: the kind's 404, or 403 `Access denied`. */
export function nonMemberAnswer(kind: ResourceKind): { status: 403 | 404; message: string } {
  // D39: member routes are workspace routes (`/workspaces/:id/members/...`).
  if (kind === 'member') return { status: 404, message: NOT_FOUND.workspace };
  return HIDDEN_FROM_NON_MEMBERS.includes(kind) ? { status: 404, message: NOT_FOUND[kind] } : { status: 403, message: ACCESS_DENIED };
}

/**
 * The 404 of `operation` when its target does not exist. A `member` target lies in a
 * workspace: this is the workspace's 404; `Member not found` comes after membership (D39).
 */
export function notFoundMessage(operation: Operation): string {
  const rule = POLICY[operation];
  if (rule.target === 'member') return NOT_FOUND.workspace;
  return rule.notFound ?? NOT_FOUND[rule.target];
}

/**
 * Every 403 and 404 the access check of `operation` can answer (D2, D4, D30),
 * for the OpenAPI document: the target's not-found, the non-member answer,
 * the role message, and `Access denied` when restriction applies.
 */
export function accessAnswers(operation: Operation): { 403: string[]; 404: string[] } {
  const rule = POLICY[operation];
  const answers: { 403: string[]; 404: string[] } = { 403: [], 404: [notFoundMessage(operation)] };
  if (rule.target === 'member') answers[404].push(NOT_FOUND.member);
  const nonMember = nonMemberAnswer(rule.target);
  answers[nonMember.status].push(nonMember.message);
  if (rule.denial) answers[403].push(rule.denial);
  if (rule.restriction !== 'none') answers[403].push(ACCESS_DENIED);
  return { 403: [...new Set(answers[403])], 404: [...new Set(answers[404])] };
}

const ROLE_WORDING: Record<RoleClass, string> = {
  member: 'any member of the workspace',
  writer: 'owners, admins and members (not viewers)',
  manager: 'owners and admins only',
  owner: 'the workspace owner only',
};

const RESTRICTION_WORDING: Record<Restriction, string> = {
  none: '',
  list: '; an access-restricted member only within the lists permitted to them',
  folder: '; an access-restricted member only within the folders granted to them',
  folderOrList: '; an access-restricted member only for folders granted to them or holding a list permitted to them',
  deny: '; not access-restricted members',
};

/** Who may call `operation`, in words, for the OpenAPI document: `owners, admins and members (not viewers); ...`. */
export function accessWording(operation: Operation): string {
  const rule = POLICY[operation];
  return ROLE_WORDING[rule.role] + (rule.self ? ', or the member themself' : '') + RESTRICTION_WORDING[rule.restriction];
}

const ROLE_CLASSES: Record<RoleClass, readonly Role[]> = {
  member: ['owner', 'admin', 'member', 'viewer'],
  writer: ['owner', 'admin', 'member'],
  manager: ['owner', 'admin'],
  owner: ['owner'],
};

/** The roles of a role class of D1. */
export function rolesOf(roleClass: RoleClass): readonly Role[] {
  return ROLE_CLASSES[roleClass];
}

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
 * `self`: the member the path names is the caller (rules marked `self` then allow any role).
 */
export function decide(membership: Membership, operation: Operation, folderId: number | null, listId: number | null, self = false): string | null {
  const rule = POLICY[operation];
  if (!roleIn(membership.role, rule.role) && !(rule.self && self)) return rule.denial ?? ACCESS_DENIED;
  if (!membership.restricted) return null;
  switch (rule.restriction) {
    case 'none':
      return null;
    case 'deny':
      return ACCESS_DENIED;
    case 'folder':
      return permitsFolder(membership, folderId) ? null : ACCESS_DENIED;
    case 'folderOrList':
      return permitsFolder(membership, folderId) || (folderId !== null && (membership.listFolderIds ?? []).includes(folderId)) ? null : ACCESS_DENIED;
    case 'list':
      return permitsList(membership, listId, folderId) ? null : ACCESS_DENIED;
  }
}

/** spec: Workspace member: `email` is returned only when the caller is the workspace owner. */
export function seesMemberEmails(membership: Membership): boolean {
  return membership.role === 'owner';
}

/** D41 step 9: a change to a membership, as the rules about the owner and admins see it. */
export interface MemberChange {
  kind: 'add' | 'edit' | 'remove';
  /** The caller's role in the workspace. */
  callerRole: Role;
  /** The member the path names is the caller (remove: an admin may remove themself). */
  self: boolean;
  /** The named member's role now (null on add). */
  targetRole: Role | null;
  /** The role the change gives (add: the body's or `member`; edit: the body's, if sent). */
  newRole?: Role;
}

/** D41 step 9: the 403 messages of member changes. */
export const MEMBER_CHANGE_DENIALS = {
  ownerRemoved: 'The workspace owner cannot be removed',
  ownerChanged: 'The workspace owner cannot be changed',
  admins: 'Only the owner can manage admins',
} as const;

/**
 * D41 step 9, the 403s in their order: the owner cannot be changed (any PATCH naming the
 * owner, even an empty one) or removed; then only the owner adds an admin, edits an admin
 * (the admin themself included), makes someone admin or removes an admin, except that an
 * admin may remove themself. null when allowed.
 */
export function memberChangeDenial(change: MemberChange): string | null {
  const { kind, callerRole, self, targetRole, newRole } = change;
  if (targetRole === 'owner') return kind === 'remove' ? MEMBER_CHANGE_DENIALS.ownerRemoved : MEMBER_CHANGE_DENIALS.ownerChanged;
  if (callerRole === 'owner') return null;
  const touchesAdmin = kind === 'add' ? newRole === 'admin' : kind === 'edit' ? targetRole === 'admin' || newRole === 'admin' : targetRole === 'admin' && !self;
  return touchesAdmin ? MEMBER_CHANGE_DENIALS.admins : null;
}

/** D41: only members and viewers may be access-restricted (D29). */
export function mayBeRestricted(role: Role): boolean {
  return role === 'member' || role === 'viewer';
}
