import { applyDecorators } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';

import { DATE_EXAMPLE, DATE_PATTERN, invalidDateMessage } from '../common/validation/dates';
import { MAX_VALUES, onlyOnceMessage, PAGE_LIMIT, tooManyValuesMessage, unknownParameterMessage } from '../common/validation/query-reader';
import { STATUS_CATEGORIES } from '../statuses/statuses.dto';
import { CURSOR_MAX_LENGTH, DATE_PARAMS, Q_MAX_LENGTH, Q_MAX_TERMS, QUERY_MESSAGES, SORT_KEYS } from './task-query';
import { PRIORITIES } from './tasks.dto';

/*
 * The OpenAPI description of List tasks' query parameters (D22, D34), beside
 * the parser they describe (task-query.ts): names, forms, examples, and the
 * 400 messages in the order they are checked.
 */

/** The 400 messages of the query, in D34's order; `<name>` stands for a parameter name. */
export const QUERY_400 = [
  unknownParameterMessage('<name>'),
  onlyOnceMessage('<name>'),
  tooManyValuesMessage('<name>'),
  QUERY_MESSAGES.page,
  QUERY_MESSAGES.limit,
  QUERY_MESSAGES.listId,
  QUERY_MESSAGES.statusId,
  QUERY_MESSAGES.statusCategory,
  QUERY_MESSAGES.assigneeId,
  QUERY_MESSAGES.labelId,
  QUERY_MESSAGES.priority,
  QUERY_MESSAGES.parentId,
  QUERY_MESSAGES.includeSubtasks,
  ...DATE_PARAMS.map(invalidDateMessage),
  QUERY_MESSAGES.qEmpty,
  QUERY_MESSAGES.qLong,
  QUERY_MESSAGES.qTerms,
  QUERY_MESSAGES.sort,
  QUERY_MESSAGES.includeTotal,
  QUERY_MESSAGES.pageCombined,
  QUERY_MESSAGES.cursor,
];

const MULTI = `Several values: a comma list, the parameter repeated, or both (at most ${MAX_VALUES} values in all); a task matching any of them is kept.`;
/** A query value as comma list of `item`s (a pattern without anchors), as the parser takes it. */
const commaList = (item: string) => `^(${item})(,(${item}))*$`;
/** A multi-valued parameter: repeated, each value a comma list, at most MAX_VALUES values (so at most as many repetitions). */
const multi = (item: string) => ({ type: 'array', maxItems: MAX_VALUES, items: { type: 'string', pattern: commaList(item) } }) as const;
const ID_LIST = multi('[0-9]+');
const DATE_SCHEMA = { type: 'string', pattern: DATE_PATTERN } as const;
const DATE = `One instant: \`YYYY-MM-DD\`, \`YYYY-MM-DDTHH:mm[:ss[.ffffff]]\`, with \`Z\`, \`±HH:MM\` or nothing (UTC).`;

/** Documents every query parameter of List tasks. */
export function TaskQueryParams() {
  return applyDecorators(
    ApiQuery({
      name: 'page',
      required: false,
      schema: { type: 'integer', minimum: 1, default: 1, example: 2 },
      description: '1-based page number (offset pages only)',
    }),
    ApiQuery({
      name: 'limit',
      required: false,
      schema: { type: 'integer', minimum: PAGE_LIMIT.min, maximum: PAGE_LIMIT.max, default: PAGE_LIMIT.default, example: 25 },
    }),
    ApiQuery({ name: 'list_id', required: false, type: 'string', description: 'Only tasks of this list (numeric id)', example: '3' }),
    ApiQuery({
      name: 'status_id',
      required: false,
      schema: { ...ID_LIST, example: ['4', '5'] },
      style: 'form',
      explode: true,
      description: `Status ids. ${MULTI}`,
    }),
    ApiQuery({
      name: 'status_category',
      required: false,
      style: 'form',
      explode: true,
      schema: { ...multi(STATUS_CATEGORIES.join('|')), example: ['pending,in_progress'] },
      description: `Categories of the task's status (a task without status never matches). ${MULTI}`,
    }),
    ApiQuery({
      name: 'assignee_id',
      required: false,
      style: 'form',
      explode: true,
      schema: { ...multi('[0-9]+|me|none'), example: ['me', '7'] },
      description: `User ids, \`me\` (the key's user) or \`none\` (tasks without assignee). ${MULTI}`,
    }),
    ApiQuery({ name: 'label_id', required: false, schema: { ...ID_LIST, example: ['7'] }, style: 'form', explode: true, description: `Label ids. ${MULTI}` }),
    ApiQuery({
      name: 'priority',
      required: false,
      style: 'form',
      explode: true,
      schema: { ...multi(PRIORITIES.join('|')), example: ['urgent,high'] },
      description: `${PRIORITIES.map((p) => '`' + p + '`').join(', ')}. ${MULTI}`,
    }),
    ApiQuery({
      name: 'parent_id',
      required: false,
      type: 'string',
      example: '41',
      description: 'The subtasks of this task instead of top-level tasks (`include_subtasks` then changes nothing)',
    }),
    ApiQuery({
      name: 'include_subtasks',
      required: false,
      schema: { type: 'string', enum: ['true', 'false'], default: 'false', example: 'true' },
      description: '`true`: subtasks are rows too, beside top-level tasks',
    }),
    ApiQuery({
      name: 'due_after',
      required: false,
      schema: { ...DATE_SCHEMA, example: DATE_EXAMPLE },
      description: `due_date >= this (tasks without due date never match). ${DATE}`,
    }),
    ApiQuery({
      name: 'due_before',
      required: false,
      schema: { ...DATE_SCHEMA, example: '2025-01-22' },
      description: `due_date < this (tasks without due date never match). ${DATE}`,
    }),
    ApiQuery({ name: 'created_after', required: false, schema: { ...DATE_SCHEMA, example: '2025-01-01' }, description: `created_at >= this. ${DATE}` }),
    ApiQuery({
      name: 'updated_after',
      required: false,
      schema: { ...DATE_SCHEMA, example: '2025-01-01T00:00:00Z' },
      description: `Last change (any accepted update) >= this. ${DATE}`,
    }),
    ApiQuery({
      // No maxLength: the limit counts after trimming, which a schema cannot say.
      name: 'q',
      required: false,
      schema: { type: 'string', minLength: 1, example: 'login bug' },
      description:
        `Text search, 1 to ${Q_MAX_LENGTH} characters after trimming, at most ${Q_MAX_TERMS} whitespace-separated terms: every term must occur, ignoring case, ` +
        'in the title or in the description text (outside HTML tags). Commas are text.',
    }),
    ApiQuery({
      name: 'sort',
      required: false,
      schema: { type: 'string', default: '-created_at', example: 'priority,-due_date' },
      description:
        `One to three comma-separated keys of ${SORT_KEYS.map((k) => '`' + k + '`').join(', ')}, each at most once, \`-\` for descending; ties by id in the last key's direction. ` +
        '`priority` ascending is urgent, high, medium, low, none; `title` compares with ASCII letters lower-cased, by code point; ' +
        'tasks without due date come last both ways.',
    }),
    ApiQuery({
      name: 'include_total',
      required: false,
      schema: { type: 'string', enum: ['true', 'false'], example: 'false' },
      description: '`false`: a keyset page without counting (`{ data, limit, next_cursor }`); `true` with a `cursor` adds `total`',
    }),
    ApiQuery({
      name: 'cursor',
      required: false,
      schema: { type: 'string', pattern: `^[A-Za-z0-9_-]{1,${CURSOR_MAX_LENGTH}}$`, example: 'AbC123-_xyz' },
      description: 'The `next_cursor` of the previous page, sent with the same filters and sort; cannot be combined with `page`',
    }),
  );
}
