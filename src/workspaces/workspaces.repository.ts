import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { MemberDto, WorkspaceDto } from './workspaces.dto';

const WORKSPACE_COLUMNS = `w.id, w.name, w.slug, w.description, w.icon, w.color, w.image_url, w.owner_id, m.role, api_ts(w.created_at) AS created_at`;

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
