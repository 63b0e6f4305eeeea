import { DataSource, EntityManager } from 'typeorm';

import { ApiKeysRepository } from '../api-keys/api-keys.repository';
import { API_KEY_ERRORS } from '../api-keys/api-keys.service';
import { generateApiKey, hashApiKey } from '../common/auth/api-key';
import { SCOPES } from '../common/auth/scope';
import { type Role, ROLES } from '../fixtures/fixture.types';
import { parseFixtureTimestamp } from '../fixtures/fixture-parser';
import { MembersRepository } from '../members/members.repository';
import type { StatusDto } from '../statuses/statuses.dto';
import type { CurrentUserDto } from '../users/users.dto';
import { UsersRepository } from '../users/users.repository';
import type { WorkspaceDto } from '../workspaces/workspaces.dto';
import { WorkspacesRepository } from '../workspaces/workspaces.repository';

/*
 * The operator commands of D32: users, workspaces, members and API keys. Each
 * throws CliError with the message the CLI prints on stderr; results are plain
 * objects the CLI prints as JSON. Timestamps come out as the API writes them
 * (api_ts: UTC, ms, Z). Every write is the repository statement the API's route
 * of the same write runs (create workspace, add member, create and revoke API
 * key), so rules and locks cannot drift; the CLI records no event (D37), and
 * its own checks (messages, the owner role, no calling key) come first.
 */

/** A refused operator command; the CLI prints the message and exits 1. */
export class CliError extends Error {}

const INT4_MAX = 2147483647;
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const SLUG = /^[A-Za-z0-9._~-]+$/;

/** Parses a positive integer id given on the command line, or throws `<what> must be a positive integer`. */
export function cliId(value: unknown, what: string): number {
  const text = String(value ?? '').trim();
  if (!/^[0-9]+$/.test(text) || Number(text) < 1 || Number(text) > INT4_MAX) throw new CliError(`${what} must be a positive integer`);
  return Number(text);
}

/** Parses a comma-separated id list (`1,2,3`); empty gives []. */
export function cliIds(value: unknown, what: string): number[] {
  const text = String(value ?? '').trim();
  if (text === '') return [];
  return [...new Set(text.split(',').map((part) => cliId(part, what)))];
}

/** `users create`'s answer: the user as `GET /me` shows it. */
export type UserOut = CurrentUserDto;

/** The CLI's answer to a blank --name. */
const NAME_EMPTY = '--name cannot be empty';

/** `users create`: a new user; the email is unique ignoring case. */
export async function createUser(ds: DataSource, input: { email: string; name: string; avatarUrl?: string | null }): Promise<UserOut> {
  const email = (input.email ?? '').trim();
  const name = (input.name ?? '').trim();
  if (!EMAIL.test(email)) throw new CliError('--email must be an email address');
  if (name === '') throw new CliError(NAME_EMPTY);
  const user = await new UsersRepository(ds).insert({ email, name, avatarUrl: input.avatarUrl ?? null });
  if (!user) throw new CliError(`A user with email ${email} already exists`);
  return user;
}

/** `workspaces create`'s answer: the workspace object without the caller's role, with its statuses. */
export type WorkspaceOut = Omit<WorkspaceDto, 'role'> & { statuses: Array<Pick<StatusDto, 'id' | 'name' | 'category' | 'position'>> };

/** `workspaces create`: a workspace with the four default statuses; the owner becomes its member with role owner. */
export async function createWorkspace(ds: DataSource, input: { name: string; slug: string; ownerId: number }): Promise<WorkspaceOut> {
  const name = (input.name ?? '').trim();
  const slug = (input.slug ?? '').trim();
  if (name === '') throw new CliError(NAME_EMPTY);
  if (!SLUG.test(slug)) throw new CliError('--slug must be URL-safe (letters, digits, ".", "_", "~", "-")');
  return ds.transaction(async (em) => {
    await requireUser(em, input.ownerId);
    const created = await new WorkspacesRepository(ds).insert(input.ownerId, { name }, slug, false, em);
    if (!created) throw new CliError(`A workspace with slug ${slug} already exists`);
    const { role: _owner, ...ws } = created;
    const statuses: WorkspaceOut['statuses'] = await em.query('SELECT id, name, category, position FROM statuses WHERE workspace_id = $1 ORDER BY position', [
      ws.id,
    ]);
    return { ...ws, statuses };
  });
}

export interface MemberOut {
  workspace_id: number;
  user_id: number;
  role: string;
  restricted: boolean;
  joined_at: string;
  folder_ids: number[];
  list_ids: number[];
}

/**
 * `members add`: adds a user to a workspace. `restricted` (member or viewer
 * only, D29) with its folder and list grants, which must be of that workspace.
 */
export async function addMember(
  ds: DataSource,
  input: { workspaceId: number; userId: number; role: string; restricted?: boolean; folderIds?: number[]; listIds?: number[] },
): Promise<MemberOut> {
  const { workspaceId, userId, role } = input;
  const restricted = input.restricted ?? false;
  const folderIds = input.folderIds ?? [];
  const listIds = input.listIds ?? [];
  if (!(ROLES as readonly string[]).includes(role)) throw new CliError(`--role must be one of: ${ROLES.join(', ')}`);
  if (restricted && (role === 'owner' || role === 'admin')) throw new CliError('Owners and admins cannot be restricted');
  if (!restricted && (folderIds.length || listIds.length)) throw new CliError('--folders and --lists are grants of a restricted member: add --restricted');
  return ds.transaction(async (em) => {
    const ws: unknown[] = await em.query('SELECT 1 FROM workspaces WHERE id = $1', [workspaceId]);
    if (!ws.length) throw new CliError(`Workspace ${workspaceId} not found`);
    const added = await new MembersRepository().add(null, workspaceId, { id: userId }, { role: role as Role, restricted, folderIds, listIds }, true, false, em);
    if (added.user_id === null) throw new CliError(`User ${userId} not found`);
    if (added.already) throw new CliError(`User ${userId} is already a member of workspace ${workspaceId}`);
    if (added.missing_folder !== null) throw new CliError(`Folder ${added.missing_folder} not found in workspace ${workspaceId}`);
    if (added.missing_list !== null) throw new CliError(`List ${added.missing_list} not found in workspace ${workspaceId}`);
    // A membership made meanwhile by another writer.
    if (!added.member) throw new CliError(`User ${userId} is already a member of workspace ${workspaceId}`);
    return { workspace_id: workspaceId, user_id: userId, role, restricted, joined_at: added.member.joined_at, folder_ids: folderIds, list_ids: listIds };
  });
}

export interface KeyOut {
  id: number;
  user_id: number;
  name: string | null;
  scopes: string[];
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  created_at: string;
}

const KEY_COLUMNS = `id, user_id, name, scopes, api_ts(expires_at) AS expires_at, api_ts(revoked_at) AS revoked_at,
  api_ts(last_used_at) AS last_used_at, api_ts(created_at) AS created_at`;

/**
 * `keys create`: a new API key for a user with exactly `scopes` (D21). The
 * plain key is in the result once; only its SHA-256 hash is stored (D20).
 */
export async function createKey(
  ds: DataSource,
  input: { userId: number; scopes: string[]; name?: string | null; expiresAt?: string | null },
): Promise<KeyOut & { key: string }> {
  const scopes = [...new Set(input.scopes.map((s) => s.trim()).filter((s) => s !== ''))];
  if (scopes.length === 0) throw new CliError(`--scopes must list at least one of: ${SCOPES.join(', ')}`);
  for (const s of scopes) {
    if (!(SCOPES as readonly string[]).includes(s)) throw new CliError(`Unknown scope '${s}'. Scopes: ${SCOPES.join(', ')}`);
  }
  let expiresAt: string | null = null;
  if (input.expiresAt !== undefined && input.expiresAt !== null && input.expiresAt !== '') {
    expiresAt = parseFixtureTimestamp(input.expiresAt);
    if (expiresAt === null) throw new CliError('--expires-at must be an ISO 8601 timestamp, e.g. 2030-01-15T09:30:00.000Z');
  }
  const key = generateApiKey();
  const name = input.name ?? null;
  const created = await new ApiKeysRepository().create(input.userId, null, { hash: hashApiKey(key), last4: key.slice(-4), name, scopes, expiresAt }, ds);
  if (created.active === null) throw new CliError(`User ${input.userId} not found`);
  if (!created.key) throw new CliError(API_KEY_ERRORS.cap);
  // The key as stored: its scopes in the order given (the API's key object sorts them).
  const { id, expires_at, last_used_at, created_at } = created.key;
  return { key, id, user_id: input.userId, name, scopes, expires_at, revoked_at: null, last_used_at, created_at };
}

/** `keys revoke`: marks a key revoked (D20: it then answers 401 `Invalid API key`); revoking twice keeps the first time. */
export async function revokeKey(ds: DataSource, id: number): Promise<KeyOut> {
  await new ApiKeysRepository().revoke(null, id, ds);
  const [row]: KeyOut[] = await ds.query(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]);
  if (!row) throw new CliError(`API key ${id} not found`);
  return row;
}

/** `keys list`: a user's keys, oldest first, without hashes. */
export async function listKeys(ds: DataSource, userId: number): Promise<KeyOut[]> {
  await requireUser(ds.manager, userId);
  return ds.query(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE user_id = $1 ORDER BY created_at, id`, [userId]);
}

async function requireUser(em: EntityManager, id: number): Promise<void> {
  const rows: unknown[] = await em.query('SELECT 1 FROM users WHERE id = $1', [id]);
  if (!rows.length) throw new CliError(`User ${id} not found`);
}
