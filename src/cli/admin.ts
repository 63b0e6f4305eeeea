import { DataSource, EntityManager } from 'typeorm';

import { generateApiKey, hashApiKey } from '../common/auth/api-key';
import { SCOPES } from '../common/auth/scope';
import { insertRowSql } from '../common/database/field-table';
import { SqlParams } from '../common/database/sql-params';
import { ROLES } from '../fixtures/fixture.types';
import { parseFixtureTimestamp } from '../fixtures/fixture-parser';
import { DEFAULT_STATUSES } from '../statuses/statuses.dto';
import { STATUS_TABLE } from '../statuses/statuses.repository';

/*
 * The operator commands of D32 that the API does not offer: users,
 * workspaces, members and API keys. Each throws CliError with the message the
 * CLI prints on stderr; results are plain objects the CLI prints as JSON.
 * Timestamps come out as the API writes them (api_ts: UTC, ms, Z).
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

export interface UserOut {
  id: number;
  email: string;
  name: string;
  avatar_url: string | null;
  created_at: string;
}

/** The CLI's answer to a blank --name. */
const NAME_EMPTY = '--name cannot be empty';

/** `users create`: a new user; the email is unique ignoring case. */
export async function createUser(ds: DataSource, input: { email: string; name: string; avatarUrl?: string | null }): Promise<UserOut> {
  const email = (input.email ?? '').trim();
  const name = (input.name ?? '').trim();
  if (!EMAIL.test(email)) throw new CliError('--email must be an email address');
  if (name === '') throw new CliError(NAME_EMPTY);
  return ds.transaction(async (em) => {
    const taken: unknown[] = await em.query('SELECT 1 FROM users WHERE lower(email) = lower($1)', [email]);
    if (taken.length) throw new CliError(`A user with email ${email} already exists`);
    const [user]: UserOut[] = await em.query(
      `INSERT INTO users (email, name, avatar_url) VALUES ($1, $2, $3)
       RETURNING id, email, name, avatar_url, api_ts(created_at) AS created_at`,
      [email, name, input.avatarUrl ?? null],
    );
    return user;
  });
}

export interface WorkspaceOut {
  id: number;
  name: string;
  slug: string;
  description: string | null;
  icon: string | null;
  color: string | null;
  image_url: string | null;
  owner_id: number;
  created_at: string;
  statuses: Array<{ id: number; name: string; category: string; position: number }>;
}

/** `workspaces create`: a workspace with the four default statuses; the owner becomes its member with role owner. */
export async function createWorkspace(ds: DataSource, input: { name: string; slug: string; ownerId: number }): Promise<WorkspaceOut> {
  const name = (input.name ?? '').trim();
  const slug = (input.slug ?? '').trim();
  if (name === '') throw new CliError(NAME_EMPTY);
  if (!SLUG.test(slug)) throw new CliError('--slug must be URL-safe (letters, digits, ".", "_", "~", "-")');
  return ds.transaction(async (em) => {
    await requireUser(em, input.ownerId);
    const taken: unknown[] = await em.query('SELECT 1 FROM workspaces WHERE lower(slug COLLATE "C") = lower($1 COLLATE "C")', [slug]);
    if (taken.length) throw new CliError(`A workspace with slug ${slug} already exists`);
    const [ws]: Array<Omit<WorkspaceOut, 'statuses'>> = await em.query(
      `INSERT INTO workspaces (name, slug, owner_id) VALUES ($1, $2, $3)
       RETURNING id, name, slug, description, icon, color, image_url, owner_id, api_ts(created_at) AS created_at`,
      [name, slug, input.ownerId],
    );
    await em.query(
      `INSERT INTO workspace_members (workspace_id, user_id, role, joined_at)
       SELECT id, owner_id, 'owner', created_at FROM workspaces WHERE id = $1`,
      [ws.id],
    );
    // Created as the API creates a status (its columns and defaults), one after another: each takes the next position.
    const statuses: WorkspaceOut['statuses'] = [];
    for (const status of DEFAULT_STATUSES) {
      const p = new SqlParams();
      const [row] = await em.query(
        `${insertRowSql(p, 'statuses', STATUS_TABLE.writes, status, p.add(ws.id, 'int'))} RETURNING id, name, category, position`,
        p.values,
      );
      statuses.push(row);
    }
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
    await requireUser(em, userId);
    const member: unknown[] = await em.query('SELECT 1 FROM workspace_members WHERE workspace_id = $1 AND user_id = $2', [workspaceId, userId]);
    if (member.length) throw new CliError(`User ${userId} is already a member of workspace ${workspaceId}`);
    await requireInWorkspace(em, 'folders', 'Folder', folderIds, workspaceId);
    await requireInWorkspace(em, 'lists', 'List', listIds, workspaceId);
    const [row]: Array<{ joined_at: string }> = await em.query(
      `INSERT INTO workspace_members (workspace_id, user_id, role, is_restricted) VALUES ($1, $2, $3, $4)
       RETURNING api_ts(joined_at) AS joined_at`,
      [workspaceId, userId, role, restricted],
    );
    if (folderIds.length) {
      await em.query('INSERT INTO member_folder_grants (workspace_id, user_id, folder_id) SELECT $1, $2, unnest($3::int[])', [workspaceId, userId, folderIds]);
    }
    if (listIds.length) {
      await em.query('INSERT INTO member_list_grants (workspace_id, user_id, list_id) SELECT $1, $2, unnest($3::int[])', [workspaceId, userId, listIds]);
    }
    return { workspace_id: workspaceId, user_id: userId, role, restricted, joined_at: row.joined_at, folder_ids: folderIds, list_ids: listIds };
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
  return ds.transaction(async (em) => {
    await requireUser(em, input.userId);
    const key = generateApiKey();
    const [row]: KeyOut[] = await em.query(
      `INSERT INTO api_keys (user_id, key_hash, last4, name, scopes, expires_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${KEY_COLUMNS}`,
      [input.userId, hashApiKey(key), key.slice(-4), input.name ?? null, scopes, expiresAt],
    );
    return { key, ...row };
  });
}

/** `keys revoke`: marks a key revoked (D20: it then answers 401 `Invalid API key`); revoking twice keeps the first time. */
export async function revokeKey(ds: DataSource, id: number): Promise<KeyOut> {
  // Wrapped in a SELECT: TypeORM returns [rows, count] for a bare UPDATE.
  const [row]: KeyOut[] = await ds.query(
    `WITH revoked AS (
       UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1
       RETURNING id, user_id, name, scopes, expires_at, revoked_at, last_used_at, created_at
     ) SELECT ${KEY_COLUMNS} FROM revoked`,
    [id],
  );
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

async function requireInWorkspace(em: EntityManager, table: 'folders' | 'lists', what: string, ids: number[], workspaceId: number): Promise<void> {
  if (!ids.length) return;
  const rows: Array<{ id: number }> = await em.query(`SELECT id FROM ${table} WHERE id = ANY($1::int[]) AND workspace_id = $2`, [ids, workspaceId]);
  const found = new Set(rows.map((r) => r.id));
  const missing = ids.find((id) => !found.has(id));
  if (missing !== undefined) throw new CliError(`${what} ${missing} not found in workspace ${workspaceId}`);
}
