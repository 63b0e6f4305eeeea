import type { DataSource } from 'typeorm';

import { EVENTS_LOCK_NAMESPACE } from '../../src/events/events.sql';
import type { Schema } from './api-types';

/**
 * The event types of the contract in its table order (D37's 14, then D48's 13), written out here
 * once so that the tests check the service's list against the contract, not against itself.
 */
export const CONTRACT_EVENT_TYPES = [
  'task.created',
  'task.updated',
  'task.deleted',
  'comment.created',
  'folder.created',
  'folder.deleted',
  'folder.updated',
  'list.created',
  'list.deleted',
  'list.updated',
  'status.created',
  'status.updated',
  'label.created',
  'label.deleted',
  'label.updated',
  'status.deleted',
  'comment.updated',
  'comment.deleted',
  'attachment.created',
  'attachment.deleted',
  'workspace.updated',
  'member.added',
  'member.updated',
  'member.removed',
  'custom_field.created',
  'custom_field.updated',
  'custom_field.deleted',
] satisfies Schema<'Webhook'>['events'];

/** An event object as the feed and webhooks show it (D37). */
export type EventObject = {
  id: number;
  type: string;
  workspace_id: number;
  occurred_at: string;
  actor: { user_id: number | null; api_key_id: number | null };
  data: Record<string, unknown>;
};

/**
 * Records an event the way an API write does (D37: a row of `events`, its id
 * from `events_id_seq` drawn under the workspace's event lock), so webhook tests need no other route. Returns the
 * event object, as `event_json` renders it. Replaceable by a real API write
 * once every write records its event.
 */
export async function recordEvent(
  ds: DataSource,
  event: { workspaceId: number; type: string; data?: Record<string, unknown>; userId?: number | null },
): Promise<EventObject> {
  // As eventCtes: the id is drawn holding the workspace's event lock in shared mode, held until commit, so that a
  // reader's horizon (the feed, the webhook dispatcher) never passes an id that has yet to commit.
  const rows: Array<{ body: EventObject }> = await ds.query(
    `WITH l AS MATERIALIZED (SELECT pg_advisory_xact_lock_shared(${EVENTS_LOCK_NAMESPACE}, $1::int)::text = '' AS locked)
     INSERT INTO events (id, workspace_id, type, occurred_at, actor_user_id, actor_api_key_id, data)
     SELECT CASE WHEN l.locked THEN nextval('events_id_seq') END, $1, $2, now(), $3, NULL, $4 FROM l
     RETURNING event_json(events) AS body`,
    [event.workspaceId, event.type, event.userId ?? null, JSON.stringify(event.data ?? { label_id: 1 })],
  );
  return rows[0].body;
}

/**
 * Deliveries not finished: delivery jobs still in the queue (pending, due
 * later, or running) and the (event, webhook) pairs the dispatcher has not
 * queued yet (subscribed events after an active webhook's dispatch cursor).
 */
export async function pendingDeliveries(ds: DataSource): Promise<number> {
  const rows: Array<{ n: number }> = await ds.query(
    `SELECT (SELECT count(*) FROM graphile_worker.jobs WHERE task_identifier = 'webhook_delivery' AND attempts < max_attempts)::int
          + (SELECT count(*) FROM webhooks w JOIN events e ON e.workspace_id = w.workspace_id AND e.id > w.dispatched_through AND e.type = ANY (w.events)
              WHERE w.active)::int AS n`,
  );
  return rows[0].n;
}
