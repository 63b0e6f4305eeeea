import type { ColumnTable } from '../common/database/field-table';
import type { SqlParams } from '../common/database/sql-params';
import {
  type Args,
  columnChanges,
  insertRow,
  type LockTable,
  sentKey,
  type StatementEvent,
  updateRow,
  type WriteStatement,
  writeStatement,
} from '../common/database/write-statement';
import { EVENT_DATA_KEYS, EventType } from './event-types';

/** Who made a write (D37 `actor`): the API key's user and the key. */
export interface Actor {
  userId: number;
  keyId: number;
}

/**
 * First half of the two-int advisory lock key of D37's per-workspace event
 * lock (`(EVENTS_LOCK_NAMESPACE, workspace_id)`): 'EVNT', so that no other
 * advisory lock of the service can collide with it. Writers hold it shared
 * (they do not wait for each other), the feed exclusively for one statement (EventsRepository.horizon).
 */
export const EVENTS_LOCK_NAMESPACE = 0x45564e54;

type DataKey<T extends EventType> = Exclude<(typeof EVENT_DATA_KEYS)[T][number], 'changes'>;

/** One event a write statement records, described over the rows that write returned. */
export interface EventWrite<T extends EventType> {
  type: T;
  /**
   * FROM items with one row per event: the write's RETURNING CTE (joined with
   * the row before the write for updates). No row, no event: a write that
   * wrote nothing records nothing.
   */
  from: string;
  /** SQL of the event's workspace id over those rows. */
  workspace: string;
  /** SQL of each `data` key over those rows (`NULL` where there is none). */
  data: Record<DataKey<T>, string>;
  /**
   * Updates: for each field `changes` may name, SQL that is true when the
   * stored value after the write differs from the one before it. No true
   * field, no event (D37: a no-op update records nothing).
   */
  changes?: Record<string, string>;
  /**
   * Names of the statement's other data-modifying CTEs (each with RETURNING):
   * they run to completion before the lock, so the statement takes all its
   * row locks before the event lock and never waits on a row while holding it.
   */
  drain?: string[];
}

/**
 * D37's transactional outbox, the one place that writes `events`: CTEs to
 * append to a write's own statement (so no round trip is added), recording
 * one event per row of `w.from`. Their shape:
 *
 *   event_row AS MATERIALIZED (SELECT <workspace> AS workspace_id, jsonb_build_object(<data>) AS data
 *                                FROM <from> [CROSS JOIN LATERAL (<changes>) changed] WHERE <drained> [AND cardinality(changed.names) > 0])
 *   event_lock AS MATERIALIZED (SELECT r.workspace_id, r.data,
 *                                      pg_advisory_xact_lock_shared(EVENTS_LOCK_NAMESPACE, r.workspace_id)::text = '' AS locked
 *                                 FROM event_row r)
 *   event_insert AS (INSERT INTO events (id, workspace_id, type, occurred_at, actor_user_id, actor_api_key_id, data)
 *                    SELECT CASE WHEN l.locked THEN nextval('events_id_seq') END, l.workspace_id, '<type>', now(), $user, $key, l.data
 *                      FROM event_lock l RETURNING id)
 *
 * The order matters for the polling promise: the id is drawn from the
 * service-wide sequence only after the workspace's transaction-level advisory
 * lock is held in shared mode (the nextval expression consumes the lock
 * call's result, so it cannot be evaluated first), and the lock is the
 * statement's last wait: it is taken after the write returned its rows and the
 * `drain` CTEs finished, and held until commit. The feed takes
 * the same lock exclusively for a moment: no writer is then between drawing an id and
 * committing, so every id up to the sequence's last value read then is
 * committed or never will be, and a later writer draws a larger id. A reader of
 * `after < id <= that horizon` (EventsRepository.horizon, released at once: it
 * never holds writers during a scan) therefore never misses an event that
 * commits later with a smaller id, while
 * writers of one workspace still commit side by side (an exclusive writer lock
 * held through each commit's WAL flush made them queue: update task ran at
 * 0.4x of its speed without events). `occurred_at` is now(): the transaction time the write
 * stored as created_at / updated_at. The statement's query must not read the
 * CTE names `event_row`, `event_lock`, `event_insert` (`changed` inside).
 */
export function eventCtes<T extends EventType>(p: SqlParams, actor: Actor, w: EventWrite<T>): string[] {
  return eventCteTexts(w, p.add(actor.userId, 'int'), p.add(actor.keyId, 'int'));
}

/**
 * The event of a WriteStatement (write-statement.ts): eventCtes' CTEs with the actor read from the
 * statement's input, and the drain list the builder derives from its lock and write CTEs (`drain`
 * is not given here). `from`'s CTEs are named in `reads` (not drained twice).
 */
export function statementEvent<I extends { actor: Actor }, T extends EventType>(
  w: Omit<EventWrite<T>, 'drain'> & { reads: readonly string[] },
): StatementEvent<I> {
  return {
    reads: w.reads,
    ctes: (args: Args<I>, drain: readonly string[]) =>
      eventCteTexts(
        { ...w, drain: [...drain] },
        args.arg((i) => i.actor.userId, 'int'),
        args.arg((i) => i.actor.keyId, 'int'),
      ),
  };
}

/**
 * The PATCH statement `name` of one row of `table`, whose columns are the field table `fields` (folders,
 * labels, lists, statuses): the fields sent (updateRow), `type` recorded with `data` (SQL over `r`, the row
 * after, and `old`, the row before) when a stored value changed (D37), the row as it is when nothing was sent.
 */
export function patchRowStatement<P extends object, R, T extends EventType>(
  name: string,
  table: LockTable,
  fields: ColumnTable<string>,
  type: T,
  data: EventWrite<T>['data'],
): WriteStatement<{ actor: Actor; id: number; patch: P }, R> {
  return writeStatement<{ actor: Actor; id: number; patch: P }, R>(
    name,
    (i) => sentKey(fields.columns, i.patch),
    (w, sample) =>
      updateRow(
        w,
        table,
        table,
        fields,
        (i) => i.id,
        (i) => i.patch,
        sample,
      )
        ? w
            .event(
              statementEvent({
                type,
                from: 'r JOIN old ON old.id = r.id',
                reads: ['r', 'old'],
                workspace: 'r.workspace_id',
                data,
                changes: columnChanges(fields),
              }),
            )
            .select(`${fields.select} FROM r`)
        : w.noEvent('nothing sent: nothing changes').select(`${fields.select} FROM ${table} WHERE id = ${w.arg((i) => i.id, 'int')}`),
  );
}

/**
 * The create statement `name` of one row of `table` in a workspace, whose columns are the field table `fields`
 * (folders, labels, lists, statuses): the body's written columns, else their create defaults (insertRow), `type`
 * recorded with `data` (SQL over `r`, the row inserted), the row as answered.
 */
export function insertRowStatement<B extends object, R, T extends EventType>(
  name: string,
  table: LockTable,
  fields: ColumnTable<string>,
  type: T,
  data: EventWrite<T>['data'],
): WriteStatement<{ actor: Actor; workspaceId: number; body: B }, R> {
  return writeStatement<{ actor: Actor; workspaceId: number; body: B }, R>(
    name,
    () => '',
    (w) =>
      w
        .write(
          'r',
          `(${insertRow(
            w,
            table,
            fields.writes,
            (i) => i.body,
            w.arg((i) => i.workspaceId, 'int'),
          )} RETURNING *)`,
        )
        .event(statementEvent({ type, from: 'r', reads: ['r'], workspace: 'r.workspace_id', data }))
        .select(`${fields.select} FROM r`),
  );
}

/** eventCtes' texts with the actor's user and key as SQL. */
function eventCteTexts<T extends EventType>(w: EventWrite<T>, user: string, key: string): string[] {
  const keys = EVENT_DATA_KEYS[w.type] as readonly string[];
  const values = w.data as Record<string, string>;
  const data = keys.map((k) => `'${k}', ${k === 'changes' ? 'to_jsonb(changed.names)' : values[k]}`).join(', ');
  const filters = (w.drain ?? []).map((cte) => `(SELECT count(*) FROM ${cte}) >= 0`);
  let from = w.from;
  if (w.changes) {
    const changes = w.changes;
    // D37: the names sorted; every field the write's `changes` covers (its field table's written columns and link sets).
    const names = Object.keys(changes)
      .sort()
      .map((f) => `CASE WHEN ${changes[f]} THEN '${f}' END`);
    from += ` CROSS JOIN LATERAL (SELECT array_remove(ARRAY[${names.join(', ')}]::text[], NULL) AS names) changed`;
    filters.push('cardinality(changed.names) > 0');
  }
  return [
    `event_row AS MATERIALIZED (
       SELECT ${w.workspace} AS workspace_id, jsonb_build_object(${data}) AS data
         FROM ${from}${filters.length ? `\n        WHERE ${filters.join(' AND ')}` : ''})`,
    `event_lock AS MATERIALIZED (
       SELECT r.workspace_id, r.data, pg_advisory_xact_lock_shared(${EVENTS_LOCK_NAMESPACE}, r.workspace_id)::text = '' AS locked FROM event_row r)`,
    `event_insert AS (
       INSERT INTO events (id, workspace_id, type, occurred_at, actor_user_id, actor_api_key_id, data)
       SELECT CASE WHEN l.locked THEN nextval('events_id_seq') END, l.workspace_id, '${w.type}', now(),
              ${user}, ${key}, l.data
         FROM event_lock l
       RETURNING id)`,
  ];
}

/**
 * SQL of the event horizon of workspace `workspace` (an int expression): the
 * largest event id below which every event of the workspace has committed or
 * never will (D37's polling promise). It takes the workspace's event lock
 * exclusively, which waits until no writer of the workspace is between drawing
 * its event's id and committing (eventCtes), then reads the sequence's last
 * value (CASE: only once the lock is held): any later writer draws a larger id.
 * The lock is held until the statement's transaction ends: as a statement of
 * its own, it holds writers for an in-flight commit, never for a scan. A
 * horizon stays true forever, so what reads below it may run later, anywhere.
 */
export function eventHorizonSql(workspace: string): string {
  return `CASE WHEN pg_advisory_xact_lock(${EVENTS_LOCK_NAMESPACE}, ${workspace})::text = ''
               THEN (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM events_id_seq) END`;
}
