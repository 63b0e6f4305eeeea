import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Sql } from '../database/sql';
import { SqlParams } from '../database/sql-params';
import type { ResourceKind } from './access.policy';

/** A resource's place in its workspace and the caller's membership there (null fields when not a member). */
export interface AccessRow {
  workspace_id: number;
  folder_id: number | null;
  list_id: number | null;
  role: 'owner' | 'admin' | 'member' | 'viewer' | null;
  is_restricted: boolean | null;
  folder_ids: number[];
  list_ids: number[];
  /** When a list id was asked for: whether that list is in the target's workspace, and its folder. */
  list_found: boolean;
  list_folder_id: number | null;
}

/** An access row with the value a read computed in the same statement (null when the check did not pass). */
export type AccessRowWith = AccessRow & { body: string | null };

// Each subquery yields (workspace_id, folder_id, list_id) of the target whose id is the placeholder `id`.
const TARGETS: Record<ResourceKind, (id: string) => string> = {
  workspace: (id) => `SELECT id AS workspace_id, NULL::int AS folder_id, NULL::int AS list_id FROM workspaces WHERE id = ${id}`,
  folder: (id) => `SELECT workspace_id, id AS folder_id, NULL::int AS list_id FROM folders WHERE id = ${id}`,
  list: (id) => `SELECT workspace_id, folder_id, id AS list_id FROM lists WHERE id = ${id}`,
  task: (id) => `SELECT t.workspace_id, (SELECT l.folder_id FROM lists l WHERE l.id = t.list_id) AS folder_id, t.list_id FROM tasks t WHERE t.id = ${id}`,
  status: (id) => `SELECT workspace_id, NULL::int AS folder_id, NULL::int AS list_id FROM statuses WHERE id = ${id}`,
  label: (id) => `SELECT workspace_id, NULL::int AS folder_id, NULL::int AS list_id FROM labels WHERE id = ${id}`,
};

/** The access row (AccessRow's columns) of target `kind` with id `id` for user `user`, and list `list` (placeholders). */
function accessRowSql(kind: ResourceKind, id: string, user: string, list: string): string {
  return `SELECT r.workspace_id, r.folder_id, r.list_id, m.role, m.is_restricted,
              CASE WHEN m.is_restricted THEN ARRAY(
                SELECT g.folder_id FROM member_folder_grants g
                 WHERE g.workspace_id = r.workspace_id AND g.user_id = ${user}) ELSE '{}' END AS folder_ids,
              CASE WHEN m.is_restricted THEN ARRAY(
                SELECT g.list_id FROM member_list_grants g
                 WHERE g.workspace_id = r.workspace_id AND g.user_id = ${user}) ELSE '{}' END AS list_ids,
              ol.id IS NOT NULL AS list_found, ol.folder_id AS list_folder_id
         FROM (${TARGETS[kind](id)}) r
         LEFT JOIN workspace_members m ON m.workspace_id = r.workspace_id AND m.user_id = ${user}
         LEFT JOIN lists ol ON ol.id = ${list} AND ol.workspace_id = r.workspace_id`;
}

/** What a read inside the access statement gets: the statement's parameters, and the placeholder of the target id. */
export interface ReadContext {
  p: SqlParams;
  /** Placeholder of the target id. */
  id: string;
}

/** SQL of the access policy: one round trip resolves a target and the caller's membership with grants. */
@Injectable()
export class AccessRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * The target of `kind` with `id` and user `userId`'s membership in its workspace; null
   * when no such target. With `listId`, also whether that list is in the same workspace.
   */
  async resolve(kind: ResourceKind, id: number, userId: number, manager?: EntityManager, listId: number | null = null): Promise<AccessRow | null> {
    const text = accessRowSql(kind, '$1', '$2', '$3::int');
    const values = [id, userId, listId];
    const rows: AccessRow[] = manager ? await manager.query(text, values) : await this.sql.rows(text, values);
    return rows[0] ?? null;
  }

  /**
   * resolve() and, in the same statement (one round trip), the text `read`
   * builds, computed only where `allowed` (an SQL condition over the access row
   * `a`) holds; `body` is null elsewhere. `read` may refer to `a`'s columns.
   */
  async resolveAndRead(
    kind: ResourceKind,
    id: number,
    userId: number,
    allowed: string,
    read: (context: ReadContext) => string,
  ): Promise<AccessRowWith | null> {
    const p = new SqlParams();
    const idParam = p.add(id, 'int');
    const user = p.add(userId, 'int');
    const row = accessRowSql(kind, idParam, user, 'NULL::int');
    const rows: AccessRowWith[] = await this.sql.rows(
      `WITH a AS MATERIALIZED (${row})
       SELECT a.*, CASE WHEN ${allowed} THEN (${read({ p, id: idParam })}) END AS body FROM a`,
      p.values,
    );
    return rows[0] ?? null;
  }
}
