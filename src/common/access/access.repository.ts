import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
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

// Each subquery yields (workspace_id, folder_id, list_id) of the target with id $1.
const TARGETS: Record<ResourceKind, string> = {
  workspace: `SELECT id AS workspace_id, NULL::int AS folder_id, NULL::int AS list_id FROM workspaces WHERE id = $1`,
  folder: `SELECT workspace_id, id AS folder_id, NULL::int AS list_id FROM folders WHERE id = $1`,
  list: `SELECT workspace_id, folder_id, id AS list_id FROM lists WHERE id = $1`,
  task: `SELECT t.workspace_id, l.folder_id, t.list_id FROM tasks t LEFT JOIN lists l ON l.id = t.list_id WHERE t.id = $1`,
  status: `SELECT workspace_id, NULL::int AS folder_id, NULL::int AS list_id FROM statuses WHERE id = $1`,
  label: `SELECT workspace_id, NULL::int AS folder_id, NULL::int AS list_id FROM labels WHERE id = $1`,
};

/** SQL of the access policy: one round trip resolves a target and the caller's membership with grants. */
@Injectable()
export class AccessRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * The target of `kind` with `id` and user `userId`'s membership in its workspace; null
   * when no such target. With `listId`, also whether that list is in the same workspace.
   */
  async resolve(kind: ResourceKind, id: number, userId: number, manager?: EntityManager, listId: number | null = null): Promise<AccessRow | null> {
    const rows: AccessRow[] = await (manager ?? this.db).query(
      `SELECT r.workspace_id, r.folder_id, r.list_id, m.role, m.is_restricted,
              CASE WHEN m.is_restricted THEN ARRAY(
                SELECT g.folder_id FROM member_folder_grants g
                 WHERE g.workspace_id = r.workspace_id AND g.user_id = $2) ELSE '{}' END AS folder_ids,
              CASE WHEN m.is_restricted THEN ARRAY(
                SELECT g.list_id FROM member_list_grants g
                 WHERE g.workspace_id = r.workspace_id AND g.user_id = $2) ELSE '{}' END AS list_ids,
              ol.id IS NOT NULL AS list_found, ol.folder_id AS list_folder_id
         FROM (${TARGETS[kind]}) r
         LEFT JOIN workspace_members m ON m.workspace_id = r.workspace_id AND m.user_id = $2
         LEFT JOIN lists ol ON ol.id = $3::int AND ol.workspace_id = r.workspace_id`,
      [id, userId, listId],
    );
    return rows[0] ?? null;
  }
}
