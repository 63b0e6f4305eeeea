import { BadRequestException } from '@nestjs/common';
import fc from 'fast-check';

import type { QueryPairs } from '../common/validation/query-reader';
import { openCursor, sealCursor, useCursorSecret } from './task-cursor';
import { parseSort, parseTaskQuery, QUERY_MESSAGES, QUERY_PARAMS, queryInstant, TaskQuery } from './task-query';

/** Unit spec of the List tasks query parser and cursors (D34). */

const CONTEXT = { workspaceId: 3, userId: 7 };

beforeAll(() => useCursorSecret('unit test secret'));

const parse = (pairs: QueryPairs, context = CONTEXT): TaskQuery => parseTaskQuery(pairs, context);
const errorOf = (pairs: QueryPairs): string | null => {
  try {
    parse(pairs);
    return null;
  } catch (error) {
    if (error instanceof BadRequestException) return (error.getResponse() as { message: string }).message;
    throw error;
  }
};

/** A bad value of each parameter and its message (cursor: well-formed text that is no cursor of ours). */
const BAD: Record<(typeof QUERY_PARAMS)[number], [string, string]> = {
  page: ['0', QUERY_MESSAGES.page],
  limit: ['101', QUERY_MESSAGES.limit],
  list_id: ['x', QUERY_MESSAGES.listId],
  status_id: ['1,x', QUERY_MESSAGES.statusId],
  status_category: ['done', QUERY_MESSAGES.statusCategory],
  assignee_id: ['ME', QUERY_MESSAGES.assigneeId],
  label_id: ['', QUERY_MESSAGES.labelId],
  priority: ['High', QUERY_MESSAGES.priority],
  parent_id: ['-1', QUERY_MESSAGES.parentId],
  include_subtasks: ['1', QUERY_MESSAGES.includeSubtasks],
  due_after: ['2025-02-30', 'Invalid due_after format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z'],
  due_before: ['soon', 'Invalid due_before format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z'],
  created_after: ['', 'Invalid created_after format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z'],
  updated_after: ['2025-1-1', 'Invalid updated_after format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z'],
  q: [' ', QUERY_MESSAGES.qEmpty],
  sort: ['-', QUERY_MESSAGES.sort],
  include_total: ['no', QUERY_MESSAGES.includeTotal],
  cursor: ['AAAA', QUERY_MESSAGES.cursor],
};

describe('parseTaskQuery', () => {
  it('with nothing sent: D22 offset pages, newest first, top-level tasks', () => {
    const query = parse([]);
    expect(query).toMatchObject({ mode: 'offset', page: 1, limit: 50, includeTotal: false, after: null, sort: [{ key: 'created_at', desc: true }] });
    expect(query.filters).toEqual({
      listId: null,
      statusIds: null,
      statusCategories: null,
      assignees: null,
      labelIds: null,
      priorities: null,
      parentId: null,
      includeSubtasks: false,
      dueAfter: null,
      dueBefore: null,
      createdAfter: null,
      updatedAfter: null,
      terms: null,
    });
  });

  it('the first bad parameter in D34 order answers, whatever the request order (property)', () => {
    const names = QUERY_PARAMS.filter((n) => n !== 'page'); // page is combined with cursor below
    fc.assert(
      fc.property(fc.shuffledSubarray([...names], { minLength: 1 }), (chosen) => {
        const pairs = chosen.map((name) => [name, BAD[name][0]] as const);
        const first = names.find((n) => chosen.includes(n))!;
        expect(errorOf(pairs)).toBe(BAD[first][1]);
      }),
    );
  });

  it('an unknown parameter answers before anything else; the first one in request order (property)', () => {
    const unknown = fc.string({ minLength: 1, maxLength: 8 }).filter((n) => !(QUERY_PARAMS as readonly string[]).includes(n));
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...QUERY_PARAMS), { maxLength: 4 }), unknown, unknown, fc.nat(4), (known, u1, u2, at) => {
        const pairs: Array<[string, string]> = known.map((n) => [n, BAD[n][0]]);
        pairs.splice(Math.min(at, pairs.length), 0, [u1, '1']);
        pairs.push([u2, '2']);
        expect(errorOf(pairs)).toBe(`Unknown query parameter: ${u1}`);
      }),
    );
  });

  it('multi-valued parameters: comma lists, repetitions and duplicates are one set; 100 values at most (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 100 }), fc.array(fc.nat(3)), (values, cuts) => {
        // Split the list into repeated parameters at arbitrary places.
        const groups: number[][] = [[]];
        values.forEach((v, i) => {
          if (i > 0 && cuts.includes(i % 4)) groups.push([]);
          groups[groups.length - 1].push(v);
        });
        const pairs = groups.map((g) => ['label_id', g.join(',')] as const);
        const query = parse(pairs);
        expect(new Set(query.filters.labelIds)).toEqual(new Set(values));
        expect(query.filters.labelIds).toHaveLength(new Set(values).size);
        expect(query.binding).toBe(parse([['label_id', [...new Set(values)].sort((a, b) => b - a).join(',')]]).binding);
        expect(
          errorOf([
            ...pairs,
            [
              'label_id',
              Array(101 - values.length)
                .fill('1')
                .join(','),
            ],
          ]),
        ).toBe('label_id accepts at most 100 values');
      }),
    );
  });

  it('binds cursors to filters as sets, explicit defaults and me included', () => {
    const base = parse([
      ['assignee_id', 'me,none'],
      ['priority', 'high,urgent'],
    ]).binding;
    expect(
      parse([
        ['priority', 'urgent'],
        ['assignee_id', 'none'],
        ['priority', 'high,high'],
        ['assignee_id', '7'],
        ['include_subtasks', 'false'],
        ['sort', '-created_at'],
      ]).binding,
    ).toBe(base);
    expect(
      parse(
        [
          ['assignee_id', 'me,none'],
          ['priority', 'high,urgent'],
        ],
        { workspaceId: 3, userId: 8 },
      ).binding,
    ).not.toBe(base);
    expect(
      parse(
        [
          ['assignee_id', 'me,none'],
          ['priority', 'high,urgent'],
        ],
        { workspaceId: 4, userId: 7 },
      ).binding,
    ).not.toBe(base);
    expect(
      parse([
        ['assignee_id', 'me,none'],
        ['priority', 'high'],
      ]).binding,
    ).not.toBe(base);
    expect(
      parse([
        ['assignee_id', 'me,none'],
        ['priority', 'high,urgent'],
        ['sort', 'created_at'],
      ]).binding,
    ).not.toBe(base);
    // The same instant in two spellings is the same filter.
    expect(parse([['due_after', '2025-01-01T01:00:00+01:00']]).binding).toBe(parse([['due_after', '2025-01-01']]).binding);
    // parent_id makes include_subtasks change nothing.
    expect(
      parse([
        ['parent_id', '5'],
        ['include_subtasks', 'true'],
      ]).binding,
    ).toBe(parse([['parent_id', '5']]).binding);
  });

  it.each([
    ['title', [{ key: 'title', desc: false }]],
    [
      '-due_date,priority,identifier',
      [
        { key: 'due_date', desc: true },
        { key: 'priority', desc: false },
        { key: 'identifier', desc: false },
      ],
    ],
    [
      'updated_at,-created_at',
      [
        { key: 'updated_at', desc: false },
        { key: 'created_at', desc: true },
      ],
    ],
    ['', null],
    ['title,', null],
    ['title,-title', null],
    ['a,b,c,d', null],
    ['--title', null],
    ['TITLE', null],
    ['id', null],
    ['title,priority,identifier,due_date', null],
  ])('parseSort(%j)', (text, expected) => {
    expect(parseSort(text)).toEqual(expected);
  });

  it.each([
    ['2025-01-15', '2025-01-15T00:00:00.000000Z'],
    ['2025-01-15T09:30:00.123456Z', '2025-01-15T09:30:00.123456Z'],
    ['2025-01-15T09:30:00.1234+02:00', '2025-01-15T07:30:00.123400Z'],
    ['2025-01-15T09:30', '2025-01-15T09:30:00.000000Z'],
    ['2025-02-30', null],
    ['2025-01-15T09:30:00.1234567Z', null],
    ['', null],
  ])('queryInstant(%j) keeps microseconds', (text, expected) => {
    expect(queryInstant(text)).toBe(expected);
  });

  it('q: trimmed, at most 200 code points, at most 10 terms, checked in that order', () => {
    const terms = (n: number, sep = ' ') => Array.from({ length: n }, (_, i) => `t${i}`).join(sep);
    expect(parse([['q', terms(10)]]).filters.terms).toHaveLength(10);
    expect(parse([['q', ` \t${terms(10, ' \n ')}\t `]]).filters.terms).toEqual(terms(10).split(' '));
    expect(errorOf([['q', terms(11)]])).toBe('q accepts at most 10 terms');
    expect(errorOf([['q', terms(11, '\t')]])).toBe('q accepts at most 10 terms');
    expect(errorOf([['q', Array(101).fill('x').join(' ')]])).toBe(QUERY_MESSAGES.qLong);
    expect(
      errorOf([
        ['q', terms(11)],
        ['sort', 'bad'],
      ]),
    ).toBe('q accepts at most 10 terms');
    expect(
      errorOf([
        ['q', terms(11)],
        ['created_after', 'bad'],
      ]),
    ).toBe('Invalid created_after format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z');
  });

  it('cursor mode, include_total and page', () => {
    expect(parse([['include_total', 'false']])).toMatchObject({ mode: 'cursor', includeTotal: false });
    expect(parse([['include_total', 'true']])).toMatchObject({ mode: 'offset', includeTotal: false });
    expect(
      parse([
        ['include_total', 'true'],
        ['page', '3'],
      ]),
    ).toMatchObject({ mode: 'offset', page: 3 });
    expect(
      errorOf([
        ['page', '1'],
        ['include_total', 'false'],
      ]),
    ).toBe(QUERY_MESSAGES.pageCombined);
  });
});

describe('cursors', () => {
  const value = fc.oneof(fc.string(), fc.integer(), fc.constant(null));

  it('open(seal(values)) gives the values back for the same binding, and null for any other (property)', () => {
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 4 }), fc.string(), fc.string(), (values, binding, other) => {
        const cursor = sealCursor(binding, values);
        expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(openCursor(cursor, binding)).toEqual(values);
        if (other !== binding) expect(openCursor(cursor, other)).toBeNull();
      }),
    );
  });

  it('any changed, added or removed character is rejected (property)', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 4 }), fc.nat(), fc.constantFrom(...alphabet), fc.nat(2), (values, at, char, kind) => {
        const cursor = sealCursor('b', values);
        const i = at % cursor.length;
        const changed = [
          cursor.slice(0, i) + char + cursor.slice(i + 1),
          cursor.slice(0, i) + char + cursor.slice(i),
          cursor.slice(0, i) + cursor.slice(i + 1),
        ][kind];
        if (changed !== cursor) expect(openCursor(changed, 'b')).toBeNull();
      }),
    );
  });
});
