import { BadRequestException } from '@nestjs/common';

import { MAX_LENGTH } from '../common/validation/body';
import { formatTimestamp, invalidDateMessage, parseIsoDate } from '../common/validation/dates';
import { parseId } from '../common/validation/ids';
import { integer, LIMIT_MESSAGE, PAGE_LIMIT, QueryPairs, QueryReader, unknownParameterMessage } from '../common/validation/query-reader';
import { STATUS_CATEGORIES, StatusCategory } from '../statuses/statuses.dto';
import { CursorValues, openCursor } from './task-cursor';
import { PRIORITIES, Priority, PRIORITY_MESSAGE } from './tasks.dto';

/*
 * The query string of List tasks (D22, D34), parsed from its raw pairs in
 * request order: unknown parameters, then each parameter in the order of D34
 * (first failure answers), then the cursor, which is verified against
 * everything else the request says. Pure: no I/O.
 */

/** D34: `q` length bound, in code points after trimming. */
export const Q_MAX_LENGTH = 200;

/** D34: most whitespace-separated terms in `q` (each term costs a scan of the searchable text). */
export const Q_MAX_TERMS = 10;

/** D34: longest cursor text. */
export const CURSOR_MAX_LENGTH = 4096;

/** D34: the sort keys; `-` prefix for descending. */
export const SORT_KEYS = ['created_at', 'updated_at', 'due_date', 'priority', 'identifier', 'title'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

/** One sort key with its direction. */
export interface SortTerm {
  key: SortKey;
  desc: boolean;
}

/** D22/D34: newest first. */
export const DEFAULT_SORT: readonly SortTerm[] = [{ key: 'created_at', desc: true }];

/** D34: at most this many sort keys. */
export const MAX_SORT_KEYS = 3;

/** D34 messages that are not one-per-parameter templates. */
export const QUERY_MESSAGES = {
  page: 'page must be a positive integer',
  limit: LIMIT_MESSAGE,
  listId: 'list_id must be a valid numeric ID',
  statusId: 'status_id must be a valid numeric ID',
  statusCategory: `Invalid status_category. Must be one of: ${STATUS_CATEGORIES.join(', ')}`,
  assigneeId: 'assignee_id must be a valid numeric ID, me or none',
  labelId: 'label_id must be a valid numeric ID',
  priority: PRIORITY_MESSAGE,
  parentId: 'parent_id must be a valid numeric ID',
  includeSubtasks: 'include_subtasks must be true or false',
  qEmpty: 'q cannot be empty',
  qLong: `q must be at most ${Q_MAX_LENGTH} characters`,
  qTerms: `q accepts at most ${Q_MAX_TERMS} terms`,
  sort: `Invalid sort. Use one to three of: ${SORT_KEYS.join(', ')}, each optionally prefixed with -`,
  includeTotal: 'include_total must be true or false',
  pageCombined: 'page cannot be combined with cursor or include_total=false',
  cursor: 'Invalid cursor',
} as const;

/** D34: the date parameters, in their check order. */
export const DATE_PARAMS = ['due_after', 'due_before', 'created_after', 'updated_after'] as const;

/** Every parameter List tasks knows, in the order D34 checks them. */
export const QUERY_PARAMS = [
  'page',
  'limit',
  'list_id',
  'status_id',
  'status_category',
  'assignee_id',
  'label_id',
  'priority',
  'parent_id',
  'include_subtasks',
  ...DATE_PARAMS,
  'q',
  'sort',
  'include_total',
  'cursor',
] as const;

/** The filters of D34 after parsing; null = parameter not sent. Ids are D5 ids (too large ones become 0: match nothing). */
export interface TaskFilters {
  listId: number | null;
  statusIds: number[] | null;
  statusCategories: StatusCategory[] | null;
  /** Assignee ids with `me` resolved to the caller, and whether `none` was asked. Null when not sent. */
  assignees: { ids: number[]; none: boolean } | null;
  labelIds: number[] | null;
  priorities: Priority[] | null;
  parentId: number | null;
  /** Only meaningful without parentId (D34: parent_id makes it change nothing). */
  includeSubtasks: boolean;
  /** Instants as `YYYY-MM-DDTHH:mm:ss.ffffffZ` (microseconds kept), for timestamptz parameters. */
  dueAfter: string | null;
  dueBefore: string | null;
  createdAfter: string | null;
  updatedAfter: string | null;
  /** `q` split on whitespace (each term must occur). */
  terms: string[] | null;
}

/** A parsed List tasks request. */
export interface TaskQuery {
  filters: TaskFilters;
  sort: SortTerm[];
  limit: number;
  /** `offset`: D22 pages (`page`, `total`, `total_pages`); `cursor`: D34 keyset pages with `next_cursor`. */
  mode: 'offset' | 'cursor';
  /** Offset mode: the 1-based page. */
  page: number;
  /** Cursor mode: whether `total` is answered (include_total=true sent with a cursor). */
  includeTotal: boolean;
  /** Cursor mode: the position after which the page starts (from a verified cursor), or null for the first page. */
  after: CursorValues | null;
  /** What a cursor of this request is bound to (D34): sign next cursors with it. */
  binding: string;
}

/** Who asks, where: what a cursor is bound to beside the filters and sort. */
export interface QueryContext {
  workspaceId: number;
  userId: number;
}

const bad = (message: string) => new BadRequestException(message);

const oneOf =
  <T extends string>(allowed: readonly T[]) =>
  (value: string): T | null =>
    (allowed as readonly string[]).includes(value) ? (value as T) : null;

const boolean = (value: string): boolean | null => (value === 'true' ? true : value === 'false' ? false : null);

/** D34 assignee item: an id, `me` or `none`. */
type AssigneeItem = number | 'me' | 'none';
const assigneeItem = (value: string): AssigneeItem | null => (value === 'me' || value === 'none' ? value : parseId(value));

/**
 * A D11 date as an instant with its microseconds (D11 allows 6 fractional
 * digits; created_at and updated_at hold microseconds), or null.
 */
export function queryInstant(text: string): string | null {
  const date = parseIsoDate(text);
  if (!date) return null;
  const fraction = /T\d{2}:\d{2}:\d{2}\.(\d{1,6})/.exec(text)?.[1] ?? '';
  return formatTimestamp(date).replace(/Z$/, fraction.padEnd(6, '0').slice(3) + 'Z');
}

/** D34: `q` trimmed, 1 to 200 code points, split into at most 10 whitespace-separated terms (empty, then length, then terms). */
function parseSearch(value: string): string[] {
  const text = value.trim();
  if (text === '') throw bad(QUERY_MESSAGES.qEmpty);
  if ([...text].length > Q_MAX_LENGTH) throw bad(QUERY_MESSAGES.qLong);
  const terms = text.split(/\s+/);
  if (terms.length > Q_MAX_TERMS) throw bad(QUERY_MESSAGES.qTerms);
  return terms;
}

/** D34: one to three distinct keys, each optionally prefixed with `-`; null when malformed. */
export function parseSort(value: string): SortTerm[] | null {
  const items = value.split(',');
  if (items.length > MAX_SORT_KEYS) return null;
  const terms: SortTerm[] = [];
  for (const item of items) {
    const desc = item.startsWith('-');
    const key = oneOf(SORT_KEYS)(desc ? item.slice(1) : item);
    if (key === null || terms.some((t) => t.key === key)) return null;
    terms.push({ key, desc });
  }
  return terms;
}

/**
 * Parses the query of List tasks (D22, D34) and verifies its cursor.
 * Throws 400 with the first failure in D34's order: an unknown parameter (first
 * in request order), then page, limit, list_id, status_id, status_category,
 * assignee_id, label_id, priority, parent_id, include_subtasks, the four
 * dates, q, sort, include_total, page with cursor or include_total=false, cursor.
 * `list_id`'s existence and access are the caller's to check afterwards.
 */
export function parseTaskQuery(pairs: QueryPairs, context: QueryContext): TaskQuery {
  const known = new Set<string>(QUERY_PARAMS);
  const unknown = pairs.find(([name]) => !known.has(name));
  if (unknown) throw bad(unknownParameterMessage(unknown[0]));

  const r = new QueryReader(pairs);
  const page = r.single(
    'page',
    (v) => {
      const n = integer(v);
      return n !== null && n >= 1 ? n : null;
    },
    QUERY_MESSAGES.page,
  );
  const limit = r.single(
    'limit',
    (v) => {
      const n = integer(v);
      return n !== null && n >= PAGE_LIMIT.min && n <= PAGE_LIMIT.max ? n : null;
    },
    QUERY_MESSAGES.limit,
  );
  const listId = r.single('list_id', parseId, QUERY_MESSAGES.listId);
  const statusIds = r.multi('status_id', parseId, QUERY_MESSAGES.statusId);
  const statusCategories = r.multi('status_category', oneOf(STATUS_CATEGORIES), QUERY_MESSAGES.statusCategory);
  const assigneeItems = r.multi('assignee_id', assigneeItem, QUERY_MESSAGES.assigneeId);
  const labelIds = r.multi('label_id', parseId, QUERY_MESSAGES.labelId);
  const priorities = r.multi('priority', oneOf(PRIORITIES), QUERY_MESSAGES.priority);
  const parentId = r.single('parent_id', parseId, QUERY_MESSAGES.parentId);
  const includeSubtasks = r.single('include_subtasks', boolean, QUERY_MESSAGES.includeSubtasks);
  const [dueAfter, dueBefore, createdAfter, updatedAfter] = DATE_PARAMS.map((name) => r.single(name, queryInstant, invalidDateMessage(name)) ?? null);
  const terms = r.single('q', parseSearch, QUERY_MESSAGES.qEmpty);
  const sort = r.single('sort', parseSort, QUERY_MESSAGES.sort) ?? [...DEFAULT_SORT];
  const includeTotal = r.single('include_total', boolean, QUERY_MESSAGES.includeTotal);
  const cursorSent = r.has('cursor');
  if (page !== undefined && (cursorSent || includeTotal === false)) throw bad(QUERY_MESSAGES.pageCombined);
  const cursorText = r.single('cursor', (v) => v, QUERY_MESSAGES.cursor);

  let assignees: TaskFilters['assignees'] = null;
  if (assigneeItems) {
    const ids = assigneeItems.flatMap((a) => (a === 'none' ? [] : [a === 'me' ? context.userId : a]));
    assignees = { ids: [...new Set(ids)], none: assigneeItems.includes('none') };
  }
  const filters: TaskFilters = {
    listId: listId ?? null,
    statusIds,
    statusCategories,
    assignees,
    labelIds,
    priorities,
    parentId: parentId ?? null,
    includeSubtasks: parentId === undefined && includeSubtasks === true,
    dueAfter,
    dueBefore,
    createdAfter,
    updatedAfter,
    terms: terms ?? null,
  };
  const binding = cursorBinding(context, filters, sort);

  let after: CursorValues | null = null;
  if (cursorText !== undefined) {
    after = cursorText.length <= CURSOR_MAX_LENGTH ? openCursor(cursorText, binding) : null;
    if (after === null || !cursorValuesFit(sort, after)) throw bad(QUERY_MESSAGES.cursor);
  }
  const cursorMode = cursorSent || includeTotal === false;
  return {
    filters,
    sort,
    limit: limit ?? PAGE_LIMIT.default,
    mode: cursorMode ? 'cursor' : 'offset',
    page: page ?? 1,
    includeTotal: cursorMode && includeTotal === true,
    after,
    binding,
  };
}

const sortedSet = <T extends string | number>(values: T[] | null): T[] | null =>
  values === null ? null : [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * D34: what a cursor is bound to, as canonical text: the workspace, the caller,
 * the filters as sets (order, duplicates and explicit defaults change nothing)
 * and the sort (an explicit `-created_at` equals none).
 */
export function cursorBinding(context: QueryContext, f: TaskFilters, sort: SortTerm[]): string {
  return JSON.stringify([
    context.workspaceId,
    context.userId,
    f.listId,
    sortedSet(f.statusIds),
    sortedSet(f.statusCategories),
    f.assignees && [sortedSet(f.assignees.ids), f.assignees.none],
    sortedSet(f.labelIds),
    sortedSet(f.priorities),
    f.parentId,
    f.includeSubtasks,
    f.dueAfter,
    f.dueBefore,
    f.createdAfter,
    f.updatedAfter,
    sortedSet(f.terms),
    sort.map((s) => (s.desc ? '-' : '') + s.key).join(','),
  ]);
}

/**
 * The values a cursor carries for `key`: timestamps as text with microseconds (years 0001 to 9999), due_date maybe
 * null, ranks and numbers as integers, titles as text a title may hold.
 */
const TIMESTAMP_TEXT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const isRowInt = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= 2147483647;
const isTimestamp = (v: unknown) => typeof v === 'string' && TIMESTAMP_TEXT.test(v) && parseIsoDate(v) !== null;
const CURSOR_VALUE_FITS: Record<SortKey, (v: unknown) => boolean> = {
  created_at: isTimestamp,
  updated_at: isTimestamp,
  due_date: (v) => v === null || isTimestamp(v),
  priority: (v) => isRowInt(v) && (v as number) < PRIORITIES.length,
  identifier: isRowInt,
  // As a stored title is, so that no value of a forged cursor reaches the database as text it refuses.
  title: (v) => typeof v === 'string' && v.length <= MAX_LENGTH.title && !v.includes('\u0000'),
};

/** Whether signed cursor values have the shape the sort needs: one value per key, then the id. */
function cursorValuesFit(sort: SortTerm[], values: CursorValues): boolean {
  return values.length === sort.length + 1 && sort.every((s, i) => CURSOR_VALUE_FITS[s.key](values[i])) && isRowInt(values[sort.length]);
}
