import { Injectable } from '@nestjs/common';

import { type Membership, roleIn } from '../common/access/access.policy';
import { grantParams, permittedListSql } from '../common/access/access.sql';
import { Sql } from '../common/database/sql';
import { SqlParams } from '../common/database/sql-params';
import { fieldVisibleSql } from '../custom-fields/custom-fields.sql';
import type { EventQuery } from './event-query';
import { EVENT_TYPES } from './event-types';
import { eventHorizonSql } from './events.sql';

/** One page of the feed: its events as JSON text, and the `next_after` it answers (null: the `after` sent). */
export interface EventPageRows {
  data: string;
  last: string | null;
}

/** D37: a page examines at most this many of the workspace's events after `after` (a bound on every page's cost). */
export const EVENTS_EXAMINED_MAX = 1000;

/** SQL literal list of the event types starting with one of `prefixes`. */
const typesOf = (...prefixes: string[]) =>
  EVENT_TYPES.filter((t) => prefixes.some((prefix) => t.startsWith(prefix)))
    .map((t) => `'${t}'`)
    .join(', ');

/** SQL of an integer in an event's data. */
const dataId = (key: string) => `(e.data->>'${key}')::int`;

/** SQL for the events feed (D37) and their retention. */
@Injectable()
export class EventsRepository {
  constructor(private readonly sql: Sql) {}

  /** The event horizon of workspace `workspaceId` (eventHorizonSql), in a statement of its own. */
  async horizon(workspaceId: number): Promise<string> {
    const rows = await this.sql.rows<{ horizon: string }>(`SELECT (${eventHorizonSql('$1::int')})::text AS horizon`, [workspaceId]);
    return rows[0].horizon;
  }

  /**
   * One page of workspace `workspaceId`'s events after `query.afterId`, in id
   * order, filtered in SQL (types, task, and for a restricted `membership` the
   * visibility rule of D37 against its current grants). The page examines at
   * most EVENTS_EXAMINED_MAX of the workspace's events after `after`, all at
   * or below the horizon (horizon()); `last` is the last returned id when the
   * page is full, else the last examined id when the bound was met, else the
   * last returned id (null: none). Each event is rendered by event_json(); for
   * a restricted member, a `parent_id` naming a task outside the permitted
   * lists reads null (D33). Custom-field events (D48) go to managers, and to user
   * `userId` while the field exists and its allowed users admit them now.
   * Two statements whatever the limit: the horizon, then the page (its snapshot taken after the horizon).
   */
  async page(workspaceId: number, userId: number, membership: Membership, query: EventQuery): Promise<EventPageRows> {
    const horizon = await this.horizon(workspaceId);
    const p = new SqlParams();
    const ws = p.add(workspaceId, 'int');
    const after = p.add(query.afterId, 'bigint');
    const below = p.add(horizon, 'bigint');
    const where: string[] = [];
    if (query.types) where.push(`e.type = ANY(${p.add(query.types, 'text[]')})`);
    if (query.taskId !== null) where.push(`e.data ? 'task_id'`, `${dataId('task_id')} = ${p.add(query.taskId, 'int')}`);
    if (!roleIn(membership.role, 'manager')) {
      // D48: a deleted field's events are the managers' only; otherwise its allowed users decide, as they are now.
      where.push(`(e.type NOT IN (${typesOf('custom_field.')}) OR EXISTS (
          SELECT 1 FROM custom_fields cf WHERE cf.id = ${dataId('custom_field_id')} AND cf.workspace_id = e.workspace_id
             AND ${fieldVisibleSql('cf', p.add(userId, 'int'))}))`);
    }
    let render = 'event_json(e)';
    if (membership.restricted) {
      const g = grantParams(p, membership);
      const permitted = (listExpr: string) => permittedListSql(listExpr, g);
      const granted = (folderExpr: string) => `COALESCE(${folderExpr} = ANY(${g.folderIds}), false)`;
      where.push(`CASE
          WHEN e.type IN (${typesOf('task.created', 'task.deleted', 'comment.', 'attachment.')}) THEN ${permitted(dataId('list_id'))}
          WHEN e.type = 'task.updated' THEN ${permitted(dataId('list_id'))} OR ${permitted(dataId('previous_list_id'))}
          WHEN e.type IN (${typesOf('list.')}) THEN ${permitted(dataId('list_id'))} OR ${granted(dataId('folder_id'))} OR ${granted(dataId('previous_folder_id'))}
          WHEN e.type IN (${typesOf('folder.')}) THEN ${granted(dataId('folder_id'))}
          ELSE true END`);
      render = `CASE WHEN e.data->>'parent_id' IS NOT NULL
                      AND NOT EXISTS (SELECT 1 FROM tasks pt WHERE pt.id = ${dataId('parent_id')} AND ${permitted('pt.list_id')})
                     THEN jsonb_set(event_json(e), '{data,parent_id}', 'null') ELSE event_json(e) END`;
    }
    const limit = p.add(query.limit, 'int');
    // The examined events: the first EVENTS_EXAMINED_MAX of the workspace's after `after`, filtered, the first `limit`
    // kept. Only a short page asks for the last examined id: the bound's id when it was met. The range is written
    // over (workspace_id, id) so that only events_workspace_id_idx serves it, starting at the workspace's `after`:
    // with `workspace_id = ws AND id > after`, PostgreSQL may walk the primary key through every workspace's events.
    const examined = `FROM events x WHERE (x.workspace_id, x.id) > (${ws}, ${after}) AND (x.workspace_id, x.id) <= (${ws}, ${below})
                ORDER BY x.workspace_id, x.id`;
    const text = `SELECT COALESCE(json_agg(page.event ORDER BY page.id), '[]')::text AS data,
              CASE WHEN count(*) < ${limit}
                   THEN COALESCE((SELECT x.id ${examined} OFFSET ${EVENTS_EXAMINED_MAX - 1} LIMIT 1), max(page.id))
                   ELSE max(page.id) END::text AS last
         FROM (SELECT e.id, ${render} AS event
                 FROM (SELECT x.* ${examined} LIMIT ${EVENTS_EXAMINED_MAX}) e
                ${where.length ? `WHERE ${where.join('\n                  AND ')}` : ''}
                ORDER BY e.workspace_id, e.id LIMIT ${limit}) page`;
    const rows = await this.sql.rows<EventPageRows>(text, p.values);
    return rows[0];
  }

  /**
   * Deletes at most `limit` of the events older than `days` days (D37 retention), oldest first; returns how
   * many went. Safe to run from several processes at once. Periods past a million days (about 2,700 years) keep everything.
   */
  async prune(days: number, limit: number): Promise<number> {
    const rows: { n: number }[] = await this.sql.rows(
      `WITH gone AS (DELETE FROM events WHERE id = ANY(ARRAY(
         SELECT id FROM events WHERE occurred_at < now() - make_interval(days => LEAST($1::bigint, 1000000)::int)
          ORDER BY occurred_at LIMIT $2)) RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [days, limit],
    );
    return rows[0].n;
  }
}
