/**
 * D37: the event types, in the contract's table order (webhook subscriptions
 * are stored in this order, D38). The one list: the feed's `type` filter and
 * webhook `events` take it from here.
 */
export const EVENT_TYPES = [
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
] as const;

export type EventType = (typeof EVENT_TYPES)[number];
