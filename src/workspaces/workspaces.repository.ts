import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ColumnField, FieldsMatch, selectListSql } from '../common/database/field-table';
import type { MemberDto, WorkspaceDto } from './workspaces.dto';

/** spec: Workspace, key by key in response order, over `workspaces w` joined with the caller's membership `m` (field-table.ts; the API writes no workspaces). */
const WORKSPACE_FIELDS = [
  { key: 'id', sql: 'w.id' },
  { key: 'name', sql: 'w.name' },
  { key: 'slug', sql: 'w.slug' },
  { key: 'description', sql: 'w.description' },
  { key: 'icon', sql: 'w.icon' },
  { key: 'color', sql: 'w.color' },
  { key: 'image_url', sql: 'w.image_url' },
  { key: 'owner_id', sql: 'w.owner_id' },
  { key: 'role', sql: 'm.role' },
  { key: 'created_at', sql: 'api_ts(w.created_at)' },
] as const satisfies readonly ColumnField[];

/** Fails to compile when WORKSPACE_FIELDS and the response disagree on a key. */
const FIELDS_MATCH_DTO: FieldsMatch<typeof WORKSPACE_FIELDS, WorkspaceDto> = true;
void FIELDS_MATCH_DTO;

const WORKSPACE_COLUMNS = selectListSql(WORKSPACE_FIELDS);

/** SQL for workspaces and their members. */
@Injectable()
export class WorkspacesRepository {
  constructor(private readonly db: DataSource) {}

  /** Workspace `id` as seen by member `userId` (role included), or null. */
  async findForMember(id: number, userId: number): Promise<WorkspaceDto | null> {
    const rows: WorkspaceDto[] = await this.db.query(
      `SELECT ${WORKSPACE_COLUMNS} FROM workspaces w
         JOIN workspace_members m ON m.workspace_id = w.id AND m.user_id = $2
        WHERE w.id = $1`,
      [id, userId],
    );
    return rows[0] ?? null;
  }

  /** Every workspace user `userId` is a member of, by created_at then id (D23). */
  async listForMember(userId: number): Promise<WorkspaceDto[]> {
    return this.db.query(
      `SELECT ${WORKSPACE_COLUMNS} FROM workspace_members m
         JOIN workspaces w ON w.id = m.workspace_id
        WHERE m.user_id = $1
        ORDER BY w.created_at, w.id`,
      [userId],
    );
  }

  /** Members of workspace `id` by joined_at then user id (D23); emails only when `withEmails`. */
  async listMembers(id: number, withEmails: boolean): Promise<MemberDto[]> {
    return this.db.query(
      `SELECT u.id, CASE WHEN $2 THEN u.email END AS email, u.name, u.avatar_url, m.role,
              api_ts(m.joined_at) AS joined_at
         FROM workspace_members m
         JOIN users u ON u.id = m.user_id
        WHERE m.workspace_id = $1
        ORDER BY m.joined_at, u.id`,
      [id, withEmails],
    );
  }
}
