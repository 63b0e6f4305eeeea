import { BadRequestException } from '@nestjs/common';

import { parseId } from '../common/validation/ids';
import { integer, LIMIT_MESSAGE, PAGE_LIMIT, QueryPairs, QueryReader, unknownParameterMessage } from '../common/validation/query-reader';
import { EVENT_TYPES, EventType, isEventType } from './event-types';

/** D37: the feed's query parameters, in the order they are checked. */
const EVENT_QUERY_PARAMS = ['after', 'limit', 'type', 'task_id'] as const;

/** D37: the feed's value messages (`limit` is List tasks' own, D22). */
export const EVENT_QUERY_MESSAGES = {
  after: 'after must be a non-negative integer',
  limit: LIMIT_MESSAGE,
  type: `Invalid type. Must be one of: ${EVENT_TYPES.join(', ')}`,
  taskId: 'task_id must be a valid numeric ID',
} as const;

/** Largest event id there can be (`bigint`). */
const MAX_EVENT_ID = 9223372036854775807n;

/** A parsed feed request. */
export interface EventQuery {
  /** `after` as sent, without leading zeros (what `next_after` echoes when the page is empty); default `0`. */
  after: string;
  /** `after` as a bigint the database takes (values past every possible id are capped: they still match nothing). */
  afterId: string;
  limit: number;
  /** Types to keep; null: all. */
  types: EventType[] | null;
  /** Events whose `data.task_id` is this; null: all. Too large ids become 0 (match nothing, D5). */
  taskId: number | null;
}

const digits = (value: string): bigint | null => (/^[0-9]+$/.test(value) ? BigInt(value) : null);

/**
 * Parses the feed's query (D37): an unknown parameter first (first in request
 * order), then `after`, `limit`, `type`, `task_id` in turn, each with D34's
 * `must be given only once` / `accepts at most 100 values` at its turn.
 * Throws 400 with the first failure. Pure: no I/O.
 */
export function parseEventQuery(pairs: QueryPairs): EventQuery {
  const known = new Set<string>(EVENT_QUERY_PARAMS);
  const unknown = pairs.find(([name]) => !known.has(name));
  if (unknown) throw new BadRequestException(unknownParameterMessage(unknown[0]));

  const r = new QueryReader(pairs);
  const after = r.single('after', digits, EVENT_QUERY_MESSAGES.after) ?? 0n;
  const limit = r.single(
    'limit',
    (v) => {
      const n = integer(v);
      return n !== null && n >= PAGE_LIMIT.min && n <= PAGE_LIMIT.max ? n : null;
    },
    EVENT_QUERY_MESSAGES.limit,
  );
  const types = r.multi('type', (v) => (isEventType(v) ? v : null), EVENT_QUERY_MESSAGES.type);
  const taskId = r.single('task_id', parseId, EVENT_QUERY_MESSAGES.taskId);
  return {
    after: after.toString(),
    afterId: (after > MAX_EVENT_ID ? MAX_EVENT_ID : after).toString(),
    limit: limit ?? PAGE_LIMIT.default,
    types,
    taskId: taskId ?? null,
  };
}
