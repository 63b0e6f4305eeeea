import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import type { Role } from '../common/access/access.policy';
import { ColumnField, columnTable, FieldsMatch, selectListSql, WritesMatch } from '../common/database/field-table';
import type { Db } from '../common/database/request-db';
import { columnChanges, sentKey, updateRow, type WriteDb, writeStatement } from '../common/database/write-statement';
import { Actor, statementEvent } from '../events/events.sql';
import { DEFAULT_STATUSES } from '../statuses/statuses.dto';
import type { CreateWorkspaceDto, MemberDto, UpdateWorkspaceDto, WorkspaceDto } from './workspaces.dto';

/**
 * spec: Workspace, key by key in response order, over `workspaces w` and the caller's role `m.role`
 * (field-table.ts), with the columns create and update write (D40).
 */
const WORKSPACE_FIELDS = [
  { key: 'id', sql: 'w.id' },
  { key: 'name', sql: 'w.name', write: { column: 'name', cast: 'text' } },
  { key: 'slug', sql: 'w.slug', write: { column: 'slug', cast: 'text' } },
  { key: 'description', sql: 'w.description', write: { column: 'description', cast: 'text' } },
  { key: 'icon', sql: 'w.icon', write: { column: 'icon', cast: 'text' } },
  { key: 'color', sql: 'w.color', write: { column: 'color', cast: 'text' } },
  { key: 'image_url', sql: 'w.image_url', write: { column: 'image_url', cast: 'text' } },
  { key: 'owner_id', sql: 'w.owner_id' },
  { key: 'role', sql: 'm.role' },
  { key: 'created_at', sql: 'api_ts(w.created_at)' },
] as const satisfies readonly ColumnField<keyof UpdateWorkspaceDto>[];

/** Fails to compile when WORKSPACE_FIELDS and the response or the update body disagree on a key. */
const FIELDS_MATCH_DTOS: [FieldsMatch<typeof WORKSPACE_FIELDS, WorkspaceDto>, WritesMatch<typeof WORKSPACE_FIELDS, UpdateWorkspaceDto>] = [true, true];
void FIELDS_MATCH_DTOS;

const WORKSPACE_COLUMNS = selectListSql(WORKSPACE_FIELDS);
/** The written columns (an update's SET list: never from the request). */
export const WORKSPACE_TABLE = columnTable<keyof UpdateWorkspaceDto>(WORKSPACE_FIELDS);

/** D40: the statuses of a new workspace, positions 1-4, color gray, icon null (DEFAULT_STATUSES: the fixtures' too). */
const NEW_WORKSPACE_STATUSES = `(VALUES ${DEFAULT_STATUSES.map((st, i) => `('${st.name}', '${st.category}', ${i + 1})`).join(', ')}) AS st(name, category, position)`;

/** The workspace `w` as the caller with `role` sees it. */
const answer = (w: string, role: string) => `${WORKSPACE_COLUMNS} FROM ${w} w CROSS JOIN (SELECT ${role} AS role) m`;

/** WorkspacesRepository.insert: D40's slug candidates, the workspace, its owner's membership and its statuses. */
const INSERT = writeStatement<{ ownerId: number; body: CreateWorkspaceDto; slug: string; derived: boolean }, WorkspaceDto>(
  'workspace.insert',
  () => '',
  (w) => {
    const base = w.arg((i) => i.slug, 'text');
    const owner = w.arg((i) => i.ownerId, 'int');
    const taken = (candidate: string) => `EXISTS (SELECT 1 FROM workspaces x WHERE lower(x.slug COLLATE "C") = lower((${candidate}) COLLATE "C"))`;
    const values = WORKSPACE_TABLE.writes
      .filter((c) => c.column !== 'slug')
      .map((c) => [c.column, w.arg((i) => (i.body as unknown as Record<string, unknown>)[c.column] ?? null, c.cast)]);
    // D40: <base>-n, <base> cut to 64 minus the suffix's length and its trailing '-' stripped again (slugCandidate's twin).
    const next = `rtrim(left(${base}, 64 - length('-' || (c.n + 1))), '-') || '-' || (c.n + 1)`;
    return w
      .recursive(
        'candidate',
        'n, slug',
        `(
        SELECT 1, ${base}
        UNION ALL
        SELECT c.n + 1, ${next} FROM candidate c WHERE ${w.arg((i) => i.derived, 'boolean')} AND ${taken('c.slug')})`,
      )
      .check('pick', '(SELECT slug FROM candidate ORDER BY n DESC LIMIT 1)')
      .write(
        'w',
        `(INSERT INTO workspaces (slug, owner_id, ${values.map(([c]) => c).join(', ')})
            SELECT pick.slug, ${owner}, ${values.map(([, v]) => v).join(', ')} FROM pick
            ON CONFLICT DO NOTHING
            RETURNING *)`,
      )
      .write(
        'm',
        `(INSERT INTO workspace_members (workspace_id, user_id, role, joined_at)
            SELECT w.id, ${owner}, 'owner', w.created_at FROM w RETURNING 'owner'::text AS role)`,
      )
      .write(
        'st',
        `(INSERT INTO statuses (workspace_id, name, category, color, icon, position)
             SELECT w.id, st.name, st.category, 'gray', NULL, st.position FROM w CROSS JOIN ${NEW_WORKSPACE_STATUSES}
             RETURNING id)`,
      )
      .noEvent('D37 has no workspace.created: a new workspace has no feed reader yet')
      .select(`${WORKSPACE_COLUMNS} FROM w CROSS JOIN m WHERE (SELECT count(*) FROM st) >= 0`);
  },
);

/** D40 update workspace: the fields sent; `workspace.updated` when a stored value changed (D37, D48). */
const UPDATE = writeStatement<{ actor: Actor; id: number; role: Role; patch: UpdateWorkspaceDto }, WorkspaceDto>(
  'workspace.update',
  (i) => sentKey(WORKSPACE_TABLE.columns, i.patch),
  (w, sample) => {
    if (
      !updateRow(
        w,
        'workspaces',
        'workspaces',
        WORKSPACE_TABLE,
        (i) => i.id,
        (i) => i.patch,
        sample,
      )
    ) {
      const id = w.arg((i) => i.id, 'int');
      return w.noEvent('nothing sent: nothing changes').select(
        `${answer(
          'workspaces',
          w.arg((i) => i.role, 'text'),
        )} WHERE w.id = ${id}`,
      );
    }
    return w
      .event(
        statementEvent({
          type: 'workspace.updated',
          from: 'r JOIN old ON old.id = r.id',
          reads: ['r', 'old'],
          workspace: 'r.id',
          data: {},
          changes: columnChanges(WORKSPACE_TABLE),
        }),
      )
      .select(
        answer(
          'r',
          w.arg((i) => i.role, 'text'),
        ),
      );
  },
);

/** The write statements of workspaces. */
export const WORKSPACE_WRITES = [INSERT, UPDATE];

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

  /**
   * D40: inserts workspace `body` owned by `ownerId` with slug `slug`, its owner's membership
   * (joined at its `created_at`) and its four statuses, in one statement; answers it with role
   * `owner`. When `derived`, `slug` is the base of D40's candidates and the first one no
   * workspace holds (ignoring ASCII case) is taken; otherwise `slug` alone is tried. null when
   * the slug was taken meanwhile (a concurrent create committed it): nothing was written.
   * The CLI's `workspaces create` (D32) makes its workspaces here too.
   */
  async insert(ownerId: number, body: CreateWorkspaceDto, slug: string, derived: boolean, db: WriteDb): Promise<WorkspaceDto | null> {
    return (await INSERT.run(db, { ownerId, body, slug, derived }))[0] ?? null;
  }

  /**
   * D40: applies `patch` to workspace `id` and answers it with the caller's `role`; records
   * `workspace.updated` by `actor` when a stored value changed (D37, D48). null when it is gone.
   * A slug another workspace holds fails with the unique violation of `workspaces_slug_key`.
   */
  async update(actor: Actor, id: number, role: Role, patch: UpdateWorkspaceDto, db: Db): Promise<WorkspaceDto | null> {
    return (await UPDATE.run(db, { actor, id, role, patch }))[0] ?? null;
  }

  /**
   * D40: deletes workspace `id` and everything in it in one statement (the foreign keys cascade:
   * folders, lists, tasks, statuses, labels, custom fields and values, members and grants,
   * webhooks and their log, events, attachments, comments). The pending delivery jobs of its
   * webhooks are removed in the same transaction; an attempt already under way finds its
   * webhook gone and records nothing. No event (D40).
   */
  async delete(id: number, db: Db): Promise<void> {
    await db.rows(
      `WITH jobs AS (
         SELECT graphile_worker.remove_job(j.key) FROM graphile_worker._private_jobs j
          WHERE j.key LIKE ANY (SELECT 'webhook:' || h.id || ':%' FROM webhooks h WHERE h.workspace_id = $1)),
       d AS (DELETE FROM workspaces WHERE id = $1 RETURNING id)
       SELECT (SELECT count(*) FROM jobs) AS jobs, (SELECT count(*) FROM d) AS deleted`,
      [id],
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
