import type { DataSource } from 'typeorm';

import { Scope, SCOPES } from '../../src/common/auth/scope';
import type { FixtureMember, FixtureUser, FixtureWorkspace, FixtureWorld } from '../../src/fixtures/fixture.types';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { TestApp, TestAppOptions, useTestApp } from './create-app';

/**
 * The shared role world of the e2e tests: the one place tests get their
 * workspace, roles and keys from. Built per test file with a prefix, so
 * several worlds fit in one database without clashing emails, slugs or keys.
 * A file adds the objects its own rules need through `extend` (see
 * `RoleWorldExtras`): more workspaces with the same members (`team`), fields
 * of the role users, more users and keys.
 *
 * Workspace `ws` (owner `owner`) has an admin, a member, a viewer, a
 * restricted member (D29: granted folder `eng`) and a restricted viewer
 * (granted list `inbox`); the default statuses plus `review`; label `bug`;
 * folders `eng` (list `backlog`) and `ops` (list `inbox`); a list with no
 * folder `loose`; custom field `notes`; tasks `t_backlog` (with subtask
 * `t_sub` and comment `comment_backlog`) and `t_inbox` (with comment `comment_inbox`). Workspace `other` belongs to
 * `outsider`, who is no member of `ws`, with one of each kind of object.
 */

/** The roles of `ws` that have a user and a key, and the outsider. */
export const WORLD_ROLES = ['owner', 'admin', 'member', 'viewer', 'restricted', 'restrictedViewer', 'outsider'] as const;
export type WorldRole = (typeof WORLD_ROLES)[number];

/** The keys of the role world `prefix`: known before it is loaded (test tables name them). */
export interface RoleKeys {
  /** The key of a role, with every scope. */
  key(role: WorldRole): string;
  /** A key of the owner that has every scope but `scope` (D21: scopes are exact). */
  keyWithout(scope: Scope): string;
  /** A key of the owner past its `expires_at`. */
  expiredKey: string;
  /** A revoked key of the owner. */
  revokedKey: string;
  /** A key of the owner that has `scope` only. */
  keyOnly(scope: Scope): string;
}

/** A loaded role world: ids by ref, and keys. */
export interface RoleWorld extends RoleKeys {
  /** Every ref of the world (without the prefix) mapped to its id: `ws`, `eng`, `t_backlog`, `owner`, ... */
  ids: Record<string, number>;
}

const scopeName = (s: Scope) => s.replace(':', '_');

/** The keys of the role world `prefix`. */
export function roleKeys(prefix: string): RoleKeys {
  return {
    key: (role) => `svc_${prefix}_${role}`,
    keyWithout: (scope) => `svc_${prefix}_without_${scopeName(scope)}`,
    keyOnly: (scope) => `svc_${prefix}_only_${scopeName(scope)}`,
    expiredKey: `svc_${prefix}_expired`,
    revokedKey: `svc_${prefix}_revoked`,
  };
}

/** The members of `ws` and of every `team` workspace, with their role there. */
const MEMBER_ROLES = ['admin', 'member', 'viewer', 'restricted', 'restrictedViewer'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** Helpers a file's `extend` gets to name the role world's objects. */
export interface WorldBuilder {
  /** The fixture ref of a role's user (for comment authors, assignees, allowed users...). */
  user(role: WorldRole): string;
  /**
   * A workspace owned by `owner` with the admin, member, viewer, restricted
   * member and restricted viewer of `ws` (restricted ones without grants
   * unless `members` gives them); `fields` add its content and may replace
   * name, slug, owner or created_at. Refs inside are used as written.
   */
  team(ref: string, fields?: Partial<FixtureWorkspace>, members?: Partial<Record<MemberRole, Partial<FixtureMember>>>): FixtureWorkspace;
  /** A workspace of `role`'s user alone (the outsider's, say); `fields` as for `team`. */
  solo(ref: string, role: WorldRole, fields?: Partial<FixtureWorkspace>): FixtureWorkspace;
}

/** What a file adds to the role world. Its refs are used as written (no prefix) and must not clash with the world's. */
export interface RoleWorldExtras {
  /** Fields of a role's user beyond the defaults (avatar_url, name, created_at). */
  users?: Partial<Record<WorldRole, Partial<FixtureUser>>>;
  /** More workspaces (`team`, `solo`, or written out). */
  workspaces?: FixtureWorkspace[];
  /** More users (a user of no workspace, say) and keys (with given scopes or dates). */
  more?: Pick<FixtureWorld, 'users' | 'api_keys'>;
}

/** Builds a file's extras with the builder of the world `prefix`. */
export type RoleWorldExtend = (w: WorldBuilder) => RoleWorldExtras;

const ROLE_OF: Record<MemberRole, Pick<FixtureMember, 'role' | 'restricted'>> = {
  admin: { role: 'admin' },
  member: { role: 'member' },
  viewer: { role: 'viewer' },
  restricted: { role: 'member', restricted: true },
  restrictedViewer: { role: 'viewer', restricted: true },
};

function worldBuilder(prefix: string): WorldBuilder {
  const user = (role: WorldRole) => `${prefix}_${role}`;
  const solo = (ref: string, role: WorldRole, fields: Partial<FixtureWorkspace> = {}): FixtureWorkspace => ({
    ref,
    name: ref,
    slug: `${prefix}-${ref}`.replace(/_/g, '-'),
    owner: user(role),
    ...fields,
  });
  return {
    user,
    solo,
    team: (ref, fields = {}, members = {}) =>
      solo(ref, 'owner', {
        members: MEMBER_ROLES.map((m) => ({ user: user(m), ...ROLE_OF[m], ...members[m] })),
        ...fields,
      }),
  };
}

const ALL = [...SCOPES];

/** The display names of the role users. */
export const WORLD_NAMES: Record<WorldRole, string> = {
  owner: 'Olivia Owner',
  admin: 'Adam Admin',
  member: 'Mia Member',
  viewer: 'Vic Viewer',
  restricted: 'Rita Restricted',
  restrictedViewer: 'Rob Restricted',
  outsider: 'Otto Outsider',
};

/** The email of a role user of the world `prefix`. */
export const worldEmail = (prefix: string, role: WorldRole): string => `${role}@${prefix}.world.test`;

/**
 * The fixture of the role world; the world's refs, emails, slugs and keys all
 * carry `prefix`. `extend` adds a file's own objects (see `RoleWorldExtras`).
 */
export function roleWorldFixture(prefix: string, extend?: RoleWorldExtend): FixtureWorld {
  const r = (ref: string) => `${prefix}_${ref}`;
  const keys = roleKeys(prefix);
  const extras = extend?.(worldBuilder(prefix)) ?? {};
  const user = (role: WorldRole): FixtureUser => ({ ref: r(role), email: worldEmail(prefix, role), name: WORLD_NAMES[role], ...extras.users?.[role] });
  return {
    users: [...WORLD_ROLES.map(user), ...(extras.more?.users ?? [])],
    api_keys: [
      ...WORLD_ROLES.map((role) => ({ user: r(role), key: keys.key(role), scopes: ALL })),
      ...SCOPES.map((s) => ({ user: r('owner'), key: keys.keyWithout(s), scopes: ALL.filter((x) => x !== s) })),
      ...SCOPES.map((s) => ({ user: r('owner'), key: keys.keyOnly(s), scopes: [s] })),
      { user: r('owner'), key: keys.expiredKey, scopes: ALL, expires_at: '2020-01-01T00:00:00Z' },
      { user: r('owner'), key: keys.revokedKey, scopes: ALL, revoked: true },
      ...(extras.more?.api_keys ?? []),
    ],
    workspaces: [
      {
        ref: r('ws'),
        name: 'World',
        slug: `${prefix}-ws`,
        owner: r('owner'),
        members: [
          { user: r('admin'), role: 'admin' },
          { user: r('member'), role: 'member' },
          { user: r('viewer'), role: 'viewer' },
          { user: r('restricted'), role: 'member', restricted: true, folders: [r('eng')] },
          { user: r('restrictedViewer'), role: 'viewer', restricted: true, lists: [r('inbox')] },
        ],
        statuses: [
          { ref: r('todo'), name: 'To Do', category: 'pending' },
          { ref: r('review'), name: 'Review', category: 'in_progress' },
          { ref: r('done'), name: 'Done', category: 'completed' },
        ],
        labels: [{ ref: r('bug'), name: 'Bug', color: 'red' }],
        folders: [
          { ref: r('eng'), name: 'Engineering', lists: [{ ref: r('backlog'), name: 'Backlog' }] },
          { ref: r('ops'), name: 'Ops', lists: [{ ref: r('inbox'), name: 'Inbox' }] },
        ],
        lists: [{ ref: r('loose'), name: 'No folder' }],
        custom_fields: [{ ref: r('notes'), name: 'Notes', type: 'text' }],
        tasks: [
          {
            ref: r('t_backlog'),
            list: r('backlog'),
            title: 'Backlog task',
            comments: [{ ref: r('comment_backlog'), user: r('member'), content: '<p>hi</p>' }],
          },
          { ref: r('t_sub'), parent: r('t_backlog'), list: r('backlog'), title: 'Subtask' },
          { ref: r('t_inbox'), list: r('inbox'), title: 'Inbox task', comments: [{ ref: r('comment_inbox'), user: r('member'), content: '<p>inbox</p>' }] },
        ],
      },
      {
        ref: r('other'),
        name: 'Other',
        slug: `${prefix}-other`,
        owner: r('outsider'),
        statuses: [
          { ref: r('o_todo'), name: 'To Do', category: 'pending' },
          { ref: r('o_done'), name: 'Done', category: 'completed' },
        ],
        labels: [{ ref: r('o_bug'), name: 'Bug' }],
        folders: [{ ref: r('o_folder'), name: 'Elsewhere', lists: [{ ref: r('o_list'), name: 'Elsewhere' }] }],
        tasks: [{ ref: r('o_task'), list: r('o_list'), title: 'Elsewhere', comments: [{ ref: r('o_comment'), content: '<p>elsewhere</p>' }] }],
      },
      ...(extras.workspaces ?? []),
    ],
  };
}

/**
 * Loads the role world with `prefix` (a short lowercase word unique in the
 * database) and a file's `extend`, and returns its ids and keys. The world's
 * refs lose their prefix in `ids` (`ids.owner`, `ids.eng`); a file's own refs
 * stay as written; a file ref equal to a world ref is an error.
 */
export async function loadRoleWorld(ds: DataSource, prefix: string, extend?: RoleWorldExtend): Promise<RoleWorld> {
  const loaded = await loadFixture(ds, roleWorldFixture(prefix, extend));
  const ids: Record<string, number> = {};
  for (const [ref, id] of Object.entries(loaded)) {
    const name = ref.startsWith(`${prefix}_`) ? ref.slice(prefix.length + 1) : ref;
    if (name in ids) throw new Error(`role world ${prefix}: the ref ${name} is the world's; name the file's object otherwise`);
    ids[name] = id;
  }
  return { ids, ...roleKeys(prefix) };
}

/**
 * Users and keys of a hand-made world: for each name a user (ref `name`, email
 * `name@domain`, display name capitalised, and the fields `users` gives it),
 * and for each entry of `keys` (user ref → key) a key of that user with every scope.
 */
export function usersWithKeys(
  domain: string,
  names: string[],
  keys: Record<string, string>,
  users: Record<string, Partial<FixtureUser>> = {},
): Pick<FixtureWorld, 'users' | 'api_keys'> {
  return {
    users: names.map((ref) => ({ ref, email: `${ref}@${domain}`, name: ref[0].toUpperCase() + ref.slice(1), ...users[ref] })),
    api_keys: Object.entries(keys).map(([user, key]) => ({ user, key, scopes: ALL })),
  };
}

/**
 * The usual preamble of a domain spec file (`useTestApp`) with the role world
 * `prefix` and the file's `extend` loaded.
 */
export function useRoleWorld(prefix: string, extend?: RoleWorldExtend, options?: TestAppOptions): { t: TestApp; ids: Record<string, number> } {
  return useTestApp(async (ds) => (await loadRoleWorld(ds, prefix, extend)).ids, options);
}
