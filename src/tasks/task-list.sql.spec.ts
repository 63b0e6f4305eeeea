import fc from 'fast-check';

import type { Membership } from '../common/access/access.policy';
import { StatementTexts } from '../common/database/prepared';
import { STATUS_CATEGORIES } from '../statuses/statuses.dto';
import { checkedTaskListSql, listShape, taskListSql, WALK_ROWS } from './task-list.sql';
import { SORT_KEYS, SortKey, TaskQuery } from './task-query';
import { PRIORITIES } from './tasks.dto';

/**
 * Issue 37: listing statements are kept by the shape of their query (listShape), so a shape must
 * determine the text. Random queries from a small space (so that shapes repeat with other values),
 * grouped by shape: each group builds one text. A shape that leaves out anything the text depends on
 * (a keyset page's row count, the cursor's priority, a short `q` term, a filter) fails this.
 */

const id = fc.integer({ min: 1, max: 9 });
const ids = fc.array(id, { minLength: 1, maxLength: 3 });
const instant = fc.constantFrom('2025-01-01T00:00:00.000000Z', '2026-06-30T12:00:00.500000Z');
/** Mostly null (1 in 8 not), so that a query sets a few filters and shapes repeat in a sample. */
const orNull = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.oneof({ arbitrary: fc.constant(null), weight: 7 }, { arbitrary: arb, weight: 1 });
/** `q` terms: short and long ones, one with a NUL (matches nothing). */
const term = fc.constantFrom('a', 'ab', 'abc', 'abcd', 'é', 'x\0y', 'déjà');

/** Any sort of one to three keys, each ascending or descending. */
const anySort = fc
  .uniqueArray(fc.constantFrom(...SORT_KEYS), { minLength: 1, maxLength: 3 })
  .chain((keys) => fc.tuple(...keys.map((key) => fc.boolean().map((desc) => ({ key, desc })))));
/** A few sorts of each form (one key, several, priority first with the title or not, mixed directions), for samples where shapes repeat. */
const fewSorts = fc
  .constantFrom<SortKey[][]>(['created_at'], ['due_date'], ['title', 'identifier'], ['priority', 'title'], ['priority', 'updated_at'])
  .chain((keys) => fc.tuple(...keys.map((key) => fc.boolean().map((desc) => ({ key, desc })))));

/** A cursor position for `sort`: each key's value (a rank for priority), then the row's id. */
const valueOf = (key: SortKey): fc.Arbitrary<string | number | null> => {
  if (key === 'priority') return fc.integer({ min: 0, max: PRIORITIES.length - 1 });
  if (key === 'identifier') return id;
  if (key === 'title') return fc.constantFrom('alpha', 'beta');
  return key === 'due_date' ? orNull(instant) : instant;
};

const queryOf = (sortArb: fc.Arbitrary<TaskQuery['sort']>): fc.Arbitrary<{ query: TaskQuery; walkRows: number }> =>
  sortArb.chain((sort) =>
    fc.record({
      walkRows: fc.constantFrom(0, 7, WALK_ROWS),
      query: fc.record({
        filters: fc.record({
          listId: orNull(id),
          statusIds: orNull(ids),
          statusCategories: orNull(fc.uniqueArray(fc.constantFrom(...STATUS_CATEGORIES), { minLength: 1, maxLength: 2 })),
          assignees: orNull(fc.record({ ids: fc.array(id, { maxLength: 2 }), none: fc.boolean() })),
          labelIds: orNull(ids),
          priorities: orNull(fc.uniqueArray(fc.constantFrom(...PRIORITIES), { minLength: 1, maxLength: 2 })),
          parentId: orNull(id),
          includeSubtasks: fc.boolean(),
          dueAfter: orNull(instant),
          dueBefore: orNull(instant),
          createdAfter: orNull(instant),
          updatedAfter: orNull(instant),
          terms: orNull(fc.array(term, { minLength: 1, maxLength: 3 })),
        }),
        sort: fc.constant(sort),
        limit: fc.constantFrom(1, 2, 50),
        mode: fc.constantFrom('offset' as const, 'cursor' as const),
        page: fc.integer({ min: 1, max: 3 }),
        includeTotal: fc.boolean(),
        after: orNull(fc.tuple(...sort.map((s) => valueOf(s.key)), id)),
        binding: fc.constant('b'),
      }),
    }),
  );
const queryArb = queryOf(anySort);

const membershipArb: fc.Arbitrary<Membership> = fc.record({
  role: fc.constantFrom('owner' as const, 'member' as const),
  restricted: fc.boolean(),
  folderIds: fc.array(id, { maxLength: 2 }),
  listIds: fc.array(id, { maxLength: 2 }),
  listFolderIds: fc.constant([]),
});

/** Texts as built (no kept texts), by kind and shape: every shape must show one text. */
function oneTextPerShape(samples: Array<{ query: TaskQuery; walkRows: number; membership: Membership; workspaceId: number }>): string[] {
  const texts = new Map<string, Set<string>>();
  const see = (shape: string, sql: string) => (texts.get(shape) ?? texts.set(shape, new Set()).get(shape)!).add(sql);
  for (const { query, walkRows, membership, workspaceId } of samples) {
    // The offset mode has no cursor: a query of that mode never carries one.
    const q: TaskQuery = query.mode === 'offset' ? { ...query, after: null, includeTotal: false } : query;
    see(`page|${listShape(q, walkRows)}`, taskListSql({ workspaceId, membership }, 5, q, walkRows, null).sql);
    see(`checked|${listShape(q, WALK_ROWS)}`, checkedTaskListSql(workspaceId, 5, q, null).sql);
  }
  return [...texts].filter(([, set]) => set.size > 1).map(([shape]) => shape);
}

describe('listing statements kept by shape (issue 37)', () => {
  it('one text per shape, over random queries, memberships and workspaces', () => {
    const sample = fc.sample(fc.record({ q: queryOf(fewSorts), membership: membershipArb, workspaceId: id }), { numRuns: 20000, seed: 37 });
    const shapes = new Set(sample.map(({ q }) => listShape(q.query, q.walkRows)));
    // The space is small enough for shapes to repeat (the check compares texts within a shape): a fifth of the sample does.
    expect(sample.length - shapes.size).toBeGreaterThan(sample.length / 5);
    expect(oneTextPerShape(sample.map(({ q, membership, workspaceId }) => ({ ...q, membership, workspaceId })))).toEqual([]);
  });

  it('as a property (fast-check): a query and one with other values where the shape leaves them out (page, list, statuses, grants, workspace) build one text', () => {
    fc.assert(
      fc.property(queryArb, membershipArb, membershipArb, (a, m1, m2) => {
        // b: a's shape with other values wherever the shape ignores them.
        const b: TaskQuery = {
          ...a.query,
          page: a.query.page + 1,
          filters: {
            ...a.query.filters,
            listId: a.query.filters.listId === null ? null : a.query.filters.listId + 1,
            statusIds: a.query.filters.statusIds && [...a.query.filters.statusIds, 9],
          },
        };
        expect(listShape(b, a.walkRows)).toBe(listShape(a.query, a.walkRows));
        expect(
          oneTextPerShape([
            { ...a, membership: m1, workspaceId: 1 },
            { query: b, walkRows: a.walkRows, membership: m2, workspaceId: 2 },
          ]),
        ).toEqual([]);
      }),
      { seed: 3737, numRuns: 300 },
    );
  });

  it('StatementTexts gives the kept text for a shape; checking whole texts (the test setup turns it on), it throws when the text differs', () => {
    expect(StatementTexts.checkWholeTexts).toBe(true);
    const texts = new StatementTexts();
    const first = ['SELECT ', '$1::int'].join('');
    const again = ['SELECT $1', '::int'].join('');
    expect(texts.intern('s', first)).toBe(first);
    expect(texts.intern('s', again)).toBe(first);
    expect(() => texts.intern('s', 'SELECT $1::bigint')).toThrow('StatementTexts: shape s built two texts');
    expect(texts.intern('t', 'SELECT 2')).toBe('SELECT 2');
    // Not checking (the service): a text of another length is used as built and kept; one of the same length is not compared.
    StatementTexts.checkWholeTexts = false;
    try {
      expect(texts.intern('s', 'SELECT $1::bigint')).toBe('SELECT $1::bigint');
      expect(texts.intern('s', 'SELECT $1::bigYnt')).toBe('SELECT $1::bigint');
    } finally {
      StatementTexts.checkWholeTexts = true;
    }
  });
});
