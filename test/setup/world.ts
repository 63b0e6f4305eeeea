import type { DataSource } from 'typeorm';
import { Scope, SCOPES } from '../../src/common/auth/scope';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import type { FixtureWorld } from '../../src/fixtures/fixture.types';

/**
 * The shared role world of the e2e tests: the one place new tests get their
 * workspace, roles and keys from (issue 10). Built per test file with a
 * prefix, so several worlds fit in one database without clashing emails,
 * slugs or keys.
 *
 * Workspace `ws` (owner `owner`) has an admin, a member, a viewer, a
 * restricted member (D29: granted folder `eng`) and a restricted viewer
 * (granted list `inbox`); the default statuses plus `review`; label `bug`;
 * folders `eng` (list `backlog`) and `ops` (list `inbox`); a list with no
 * folder `loose`; custom field `notes`; tasks `t_backlog` (with subtask
 * `t_sub` and a comment) and `t_inbox`. Workspace `other` belongs to
 * `outsider`, who is no member of `ws`, with one of each kind of object.
 */

/** The roles of `ws` that have a user and a key, and the outsider. */
export const WORLD_ROLES = ['owner', 'admin', 'member', 'viewer', 'restricted', 'restrictedViewer', 'outsider'] as const;
export type WorldRole = (typeof WORLD_ROLES)[number];

/** A loaded role world: ids by ref, and keys. */
export interface RoleWorld {
  /** Every ref of the world (without the prefix) mapped to its id: `ws`, `eng`, `t_backlog`, `owner`, ... */
  ids: Record<string, number>;
  /** The key of a role, with every scope. */
  key(role: WorldRole): string;
  /** A key of the owner that has every scope but `scope` (D21: scopes are exact). */
  keyWithout(scope: Scope): string;
  /** A key of the owner past its `expires_at`. */
  expiredKey: string;
  /** A revoked key of the owner. */
  revokedKey: string;
}

const ALL = [...SCOPES];

/** The fixture of the role world; refs, emails, slugs and keys all carry `prefix`. */
export function roleWorldFixture(prefix: string): FixtureWorld {
  const r = (ref: string) => `${prefix}_${ref}`;
  const key = (name: string) => `svc_${prefix}_${name}`;
  const user = (ref: string, name: string) => ({ ref: r(ref), email: `${ref}@${prefix}.world.test`, name });
  return {
    users: [
      user('owner', 'Olivia Owner'), user('admin', 'Adam Admin'), user('member', 'Mia Member'), user('viewer', 'Vic Viewer'),
      user('restricted', 'Rita Restricted'), user('restrictedViewer', 'Rob Restricted'), user('outsider', 'Otto Outsider'),
    ],
    api_keys: [
      ...WORLD_ROLES.map((role) => ({ user: r(role), key: key(role), scopes: ALL })),
      ...SCOPES.map((s) => ({ user: r('owner'), key: key(`without_${s.replace(':', '_')}`), scopes: ALL.filter((x) => x !== s) })),
      { user: r('owner'), key: key('expired'), scopes: ALL, expires_at: '2020-01-01T00:00:00Z' },
      { user: r('owner'), key: key('revoked'), scopes: ALL, revoked: true },
    ],
    workspaces: [
      {
        ref: r('ws'), name: 'World', slug: `${prefix}-ws`, owner: r('owner'),
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
          { ref: r('t_backlog'), list: r('backlog'), title: 'Backlog task', comments: [{ user: r('member'), content: '<p>hi</p>' }] },
          { ref: r('t_sub'), parent: r('t_backlog'), list: r('backlog'), title: 'Subtask' },
          { ref: r('t_inbox'), list: r('inbox'), title: 'Inbox task' },
        ],
      },
      {
        ref: r('other'), name: 'Other', slug: `${prefix}-other`, owner: r('outsider'),
        statuses: [{ ref: r('o_todo'), name: 'To Do', category: 'pending' }, { ref: r('o_done'), name: 'Done', category: 'completed' }],
        labels: [{ ref: r('o_bug'), name: 'Bug' }],
        folders: [{ ref: r('o_folder'), name: 'Elsewhere', lists: [{ ref: r('o_list'), name: 'Elsewhere' }] }],
        tasks: [{ ref: r('o_task'), list: r('o_list'), title: 'Elsewhere' }],
      },
    ],
  };
}

/** Loads the role world with `prefix` (a short lowercase word unique in the database) and returns its ids and keys. */
export async function loadRoleWorld(ds: DataSource, prefix: string): Promise<RoleWorld> {
  const loaded = await loadFixture(ds, roleWorldFixture(prefix));
  const ids = Object.fromEntries(Object.entries(loaded).map(([ref, id]) => [ref.slice(prefix.length + 1), id]));
  return {
    ids,
    key: (role) => `svc_${prefix}_${role}`,
    keyWithout: (scope) => `svc_${prefix}_without_${scope.replace(':', '_')}`,
    expiredKey: `svc_${prefix}_expired`,
    revokedKey: `svc_${prefix}_revoked`,
  };
}

/**
 * Users and keys of a hand-made world: for each name a user (ref `name`, email
 * `name@domain`, display name capitalised), and for each entry of `keys`
 * (user ref → key) a key of that user with every scope.
 */
export function usersWithKeys(domain: string, names: string[], keys: Record<string, string>): Pick<FixtureWorld, 'users' | 'api_keys'> {
  return {
    users: names.map((ref) => ({ ref, email: `${ref}@${domain}`, name: ref[0].toUpperCase() + ref.slice(1) })),
    api_keys: Object.entries(keys).map(([user, key]) => ({ user, key, scopes: ALL })),
  };
}
