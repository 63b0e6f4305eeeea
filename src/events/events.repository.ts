import { Injectable } from '@nestjs/common';
import type { Membership } from '../common/access/access.policy';
import { grantParams, permittedListSql } from '../common/access/access.sql';
import { Sql } from '../common/database/sql';
import { SqlParams } from '../common/database/sql-params';
import type { EventQuery } from './event-query';
import { EVENT_TYPES } from './event-types';
import { EVENTS_LOCK_NAMESPACE } from './events.sql';

/** One page of the feed: its events as JSON text, and the last id on it (null when empty). */
export interface EventPageRows {
  data: string;
  last: string | null;
}

/** SQL literal list of the event types starting with one of `prefixes`. */
const typesOf = (...prefixes: string[]) =>
  EVENT_TYPES.filter((t) => prefixes.some((prefix) => t.startsWith(prefix))).map((t) => `'${t}'`).join(', ');

/** SQL of an integer in an event's data. */
const dataId = (key: string) => `(e.data->>'${key}')::int`;

/** SQL for the events feed (D37) and their retention. */
@Injectable()
export class EventsRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * One page of workspace `workspaceId`'s events after `query.afterId`, in id
   * order, filtered in SQL (types, task, and for a restricted `membership` the
   * visibility rule of D37 against its current grants), so that the page is
   * full whenever more such events exist. Each event is rendered by
   * event_json(); for a restricted member, a `parent_id` naming a task outside
   * the permitted lists reads null (D33). One statement whatever the limit.
   */
  async page(workspaceId: number, membership: Membership, query: EventQuery): Promise<EventPageRows> {
    const p = new SqlParams();
    const where = [`e.workspace_id = ${p.add(workspaceId, 'int')}`, `e.id > ${p.add(query.afterId, 'bigint')}`];
    if (query.types) where.push(`e.type = ANY(${p.add(query.types, 'text[]')})`);
    // `data ? 'task_id'`: the predicate of the partial index events_workspace_task_idx.
    if (query.taskId !== null) where.push(`e.data ? 'task_id'`, `${dataId('task_id')} = ${p.add(query.taskId, 'int')}`);
    let render = 'event_json(e)';
    if (membership.restricted) {
      const g = grantParams(p, membership);
      const permitted = (listExpr: string) => permittedListSql(listExpr, g);
      const granted = (folderExpr: string) => `COALESCE(${folderExpr} = ANY(${g.folderIds}), false)`;
      where.push(`CASE
          WHEN e.type IN (${typesOf('task.created', 'task.deleted', 'comment.')}) THEN ${permitted(dataId('list_id'))}
          WHEN e.type = 'task.updated' THEN ${permitted(dataId('list_id'))} OR ${permitted(dataId('previous_list_id'))}
          WHEN e.type IN (${typesOf('list.')}) THEN ${permitted(dataId('list_id'))} OR ${granted(dataId('folder_id'))} OR ${granted(dataId('previous_folder_id'))}
          WHEN e.type IN (${typesOf('folder.')}) THEN ${granted(dataId('folder_id'))}
          ELSE true END`);
      render = `CASE WHEN e.data->>'parent_id' IS NOT NULL
                      AND NOT EXISTS (SELECT 1 FROM tasks pt WHERE pt.id = ${dataId('parent_id')} AND ${permitted('pt.list_id')})
                     THEN jsonb_set(event_json(e), '{data,parent_id}', 'null') ELSE event_json(e) END`;
    }
    const text = `SELECT COALESCE(json_agg(page.event ORDER BY page.id), '[]')::text AS data, max(page.id)::text AS last
         FROM (SELECT e.id, ${render} AS event FROM events e
                WHERE ${where.join('\n                  AND ')}
                ORDER BY e.id LIMIT ${p.add(query.limit, 'int')}) page`;
    if (!Number.isSafeInteger(workspaceId)) throw new Error(`EventsRepository.page: workspace id ${workspaceId}`);
    // The polling promise (D37): writers hold the workspace's event lock in shared mode from drawing their
    // event's id until they commit (events.sql.ts); holding it exclusively, the page is read when no writer
    // of the workspace is between the two, so every id below the largest one read is committed (or never will be).
    // BEGIN and the lock go together by the simple protocol (no parameters: two integers of ours): 3 round trips.
    return this.sql.withClient(async (client) => {
      await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${EVENTS_LOCK_NAMESPACE}, ${workspaceId})`);
      try {
        const { rows } = await client.query<EventPageRows>(text, p.values);
        await client.query('COMMIT');
        return rows[0];
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
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
