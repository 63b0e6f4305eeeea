/**
 * D37: the event types, in the contract's table order, each with the keys of
 * its `data` (every key always present, `null` when absent; no other key).
 * The one list of types: the feed's `type` filter, its message and the
 * webhook subscriptions (D38) come from it.
 */
export const EVENT_DATA_KEYS = {
  'task.created': ['task_id', 'list_id', 'parent_id'],
  'task.updated': ['task_id', 'list_id', 'previous_list_id', 'parent_id', 'changes'],
  'task.deleted': ['task_id', 'list_id', 'parent_id'],
  'comment.created': ['comment_id', 'task_id', 'list_id'],
  'folder.created': ['folder_id'],
  'folder.deleted': ['folder_id'],
  'folder.updated': ['folder_id', 'changes'],
  'list.created': ['list_id', 'folder_id'],
  'list.deleted': ['list_id', 'folder_id'],
  'list.updated': ['list_id', 'folder_id', 'previous_folder_id', 'changes'],
  'status.created': ['status_id'],
  'status.updated': ['status_id', 'changes'],
  'label.created': ['label_id'],
  'label.deleted': ['label_id'],
  // D48, in its table's order.
  'label.updated': ['label_id', 'changes'],
  'status.deleted': ['status_id'],
  'comment.updated': ['comment_id', 'task_id', 'list_id', 'changes'],
  'comment.deleted': ['comment_id', 'task_id', 'list_id'],
  'attachment.created': ['attachment_id', 'task_id', 'list_id'],
  'attachment.deleted': ['attachment_id', 'task_id', 'list_id'],
  'workspace.updated': ['changes'],
  'member.added': ['user_id', 'role'],
  'member.updated': ['user_id', 'changes'],
  'member.removed': ['user_id'],
  'custom_field.created': ['custom_field_id'],
  'custom_field.updated': ['custom_field_id', 'changes'],
  'custom_field.deleted': ['custom_field_id'],
} as const;

/** An event type of D37 (`task.created`, ...). */
export type EventType = keyof typeof EVENT_DATA_KEYS;

/** D37's types in table order. */
export const EVENT_TYPES = Object.keys(EVENT_DATA_KEYS) as EventType[];

/** True when `value` is one of D37's types. */
export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(EVENT_DATA_KEYS, value);
}

/** The event types whose data carries `changes` (D37): the names of the written fields whose stored value changed, derived from each resource's field table (write-statement.ts). */
export type UpdateEventType = { [T in EventType]: 'changes' extends (typeof EVENT_DATA_KEYS)[T][number] ? T : never }[EventType];
