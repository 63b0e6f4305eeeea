import type { FixtureWorld } from '../../src/fixtures/fixture.types';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { cursorSecret, useCursorSecret } from '../../src/tasks/task-cursor';
import type { Schema } from '../setup/api-types';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { QueryCounter } from '../setup/query-counter';
import { usersWithKeys } from '../setup/world';
import { FIELDS, keys } from './tasks-world';

/**
 * Task queries on List tasks (issue 11): filters, sort, keyset cursors,
 * include_total and the query 400s in their order. D22, D30, D33, D34.
 */

const KEY = { alice: 'svc_tq_alice', bob: 'svc_tq_bob', erin: 'svc_tq_erin', olga: 'svc_tq_olga' } as const;

/**
 * acme: six top-level tasks a..f and two subtasks, covering every filter value,
 * ties (d and e share created_at) and tasks without due date (c, f). Listed
 * in file order, so ids and identifiers grow from a to sub2. `mut` is mutated
 * by the cursor-stability tests; `other` holds look-alike ids of another workspace.
 */
function world(): FixtureWorld {
  return {
    ...usersWithKeys('tq.test', ['alice', 'bob', 'erin', 'olga'], KEY),
    workspaces: [
      {
        ref: 'acme',
        name: 'Acme',
        slug: 'tq-acme',
        owner: 'alice',
        members: [
          { user: 'bob', role: 'member' },
          { user: 'erin', role: 'member', restricted: true, folders: ['eng'] },
        ],
        statuses: [
          { ref: 'todo', name: 'To Do', category: 'pending' },
          { ref: 'doing', name: 'Doing', category: 'in_progress' },
          { ref: 'done', name: 'Done', category: 'completed' },
          { ref: 'dropped', name: 'Dropped', category: 'cancelled' },
        ],
        labels: [
          { ref: 'bug', name: 'bug' },
          { ref: 'ui', name: 'ui' },
        ],
        folders: [
          {
            ref: 'eng',
            name: 'Eng',
            lists: [
              { ref: 'backlog', name: 'Backlog' },
              { ref: 'sprint', name: 'Sprint' },
            ],
          },
          { ref: 'ops', name: 'Ops', lists: [{ ref: 'inbox', name: 'Inbox' }] },
        ],
        tasks: [
          {
            ref: 'a',
            list: 'backlog',
            title: 'Alpha login bug',
            description: '<p>Crash on <b>login</b> page &amp; more</p>',
            priority: 'urgent',
            status: 'todo',
            assignees: ['bob'],
            labels: ['bug'],
            due_date: '2025-03-10T00:00:00.000Z',
            created_at: '2025-01-01T00:00:00.000Z',
          },
          {
            ref: 'b',
            list: 'backlog',
            title: 'beta Export',
            priority: 'high',
            status: 'doing',
            assignees: ['alice', 'bob'],
            labels: ['ui'],
            due_date: '2025-03-05T00:00:00.000Z',
            created_at: '2025-01-02T00:00:00.000Z',
          },
          {
            ref: 'c',
            list: 'sprint',
            title: 'Gamma 50%',
            description: '<p>export to <em>CSV</em></p>',
            priority: 'medium',
            status: 'done',
            created_at: '2025-01-03T00:00:00.000Z',
          },
          {
            ref: 'd',
            list: 'inbox',
            title: 'delta',
            priority: 'low',
            status: 'dropped',
            assignees: ['alice'],
            labels: ['bug', 'ui'],
            due_date: '2025-03-05T00:00:00.000Z',
            created_at: '2025-01-04T00:00:00.000Z',
          },
          { ref: 'e', title: 'Épée ÉCOLE', status: null, due_date: '2025-04-01T00:00:00.000Z', created_at: '2025-01-04T00:00:00.000Z' },
          {
            ref: 'f',
            list: 'backlog',
            title: 'alpha',
            priority: 'urgent',
            status: 'todo',
            created_at: '2025-01-05T00:00:00.000Z',
            updated_at: '2025-02-01T00:00:00.000Z',
          },
          { ref: 'sub1', parent: 'a', list: 'backlog', title: 'Sub of alpha', priority: 'high', assignees: ['bob'], created_at: '2025-01-06T00:00:00.000Z' },
          { ref: 'sub2', parent: 'd', list: 'inbox', title: 'Sub of delta', created_at: '2025-01-07T00:00:00.000Z' },
        ],
      },
      {
        ref: 'other',
        name: 'Other',
        slug: 'tq-other',
        owner: 'alice',
        members: [{ user: 'olga', role: 'member' }],
        statuses: [
          { ref: 'o_todo', name: 'To Do', category: 'pending' },
          { ref: 'o_done', name: 'Done', category: 'completed' },
        ],
        labels: [{ ref: 'o_bug', name: 'bug' }],
        lists: [{ ref: 'o_list', name: 'Other list' }],
        tasks: [{ ref: 'o1', list: 'o_list', title: 'Other alpha', status: 'o_todo', labels: ['o_bug'], assignees: ['olga'] }],
      },
      {
        ref: 'mut',
        name: 'Mutations',
        slug: 'tq-mut',
        owner: 'alice',
        lists: [{ ref: 'm_list', name: 'M' }],
        tasks: Array.from({ length: 10 }, (_, i) => ({
          ref: `m${i}`,
          list: 'm_list',
          title: `M task ${i % 3}`,
          priority: (['urgent', 'high', 'none'] as const)[i % 3],
          due_date: i % 4 === 0 ? null : `2025-05-0${1 + (i % 3)}T00:00:00.000Z`,
          created_at: `2025-01-01T00:00:0${i}.000Z`,
        })),
      },
    ],
  };
}

describe('GET /api/v1/workspaces/:id/tasks: task queries (D34)', () => {
  let t: TestApp;
  let ids: Record<string, number>;
  /** Top-level tasks of acme, newest first (created_at, then id descending). */
  const ALL = ['f', 'e', 'd', 'c', 'b', 'a'];

  const get = (query: string, key: string = KEY.alice, workspace: number = ids.acme) =>
    t.inject({ method: 'GET', url: `/api/v1/workspaces/${workspace}/tasks${query}`, headers: auth(key) });
  /** Replaces `{ref}` by the id of ref. */
  const q = (query: string) => query.replace(/\{(\w+)\}/g, (_, ref: string) => String(ids[ref] ?? `?${ref}`));
  const TASK_REFS = ['a', 'b', 'c', 'd', 'e', 'f', 'sub1', 'sub2', 'o1', ...Array.from({ length: 10 }, (_, i) => `m${i}`)];
  /** Task refs of the rows (the id for a task made by a test). */
  const refsOf = (data: Array<{ id: number }>) => data.map((x) => TASK_REFS.find((ref) => ids[ref] === x.id) ?? x.id);
  const list = async (query: string, key?: string, workspace?: number) => {
    const res = await get(q(query), key, workspace);
    if (res.statusCode !== 200) throw new Error(`${query}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  const error = async (query: string, key?: string) => {
    const res = await get(q(query), key);
    return { status: res.statusCode, body: res.json() };
  };
  /** Follows next_cursor from a first keyset page to the end; the refs in order. */
  const walk = async (query: string, limit: number, key?: string, workspace?: number) => {
    const seen: Array<string | number> = [];
    let body = await list(`?${query}${query ? '&' : ''}include_total=false&limit=${limit}`, key, workspace);
    for (let pages = 0; pages < 100; pages++) {
      expect(body.data.length).toBeLessThanOrEqual(limit);
      seen.push(...refsOf(body.data));
      if (body.next_cursor === null) return seen;
      expect(body.data).toHaveLength(limit);
      body = await list(`?${query}${query ? '&' : ''}cursor=${body.next_cursor}&limit=${limit}`, key, workspace);
    }
    throw new Error('cursor pages never ended');
  };

  beforeAll(async () => {
    t = await createTestApp();
    ids = await loadFixture(t.db.ds, world());
  });
  afterAll(async () => {
    await t.close();
  });

  describe('filters (AND between parameters, OR within one)', () => {
    it.each([
      ['', ALL],
      ['?status_id={todo}', ['f', 'a']],
      ['?status_id={todo},{doing}', ['f', 'b', 'a']],
      ['?status_id={todo}&status_id={doing}', ['f', 'b', 'a']],
      ['?status_id={doing}&status_id={todo},{todo}', ['f', 'b', 'a']],
      ['?status_id=0', []],
      ['?status_id=99999999999999', []],
      ['?status_id={o_todo}', []],
      ['?status_category=pending', ['f', 'a']],
      ['?status_category=completed,cancelled', ['d', 'c']],
      ['?status_category=in_progress&status_category=in_progress', ['b']],
      ['?assignee_id={bob}', ['b', 'a']],
      ['?assignee_id=me', ['d', 'b']],
      ['?assignee_id=me,{alice}', ['d', 'b']],
      ['?assignee_id=none', ['f', 'e', 'c']],
      ['?assignee_id=none,{bob}', ['f', 'e', 'c', 'b', 'a']],
      ['?assignee_id={olga}', []],
      ['?label_id={bug}', ['d', 'a']],
      ['?label_id={bug},{ui}', ['d', 'b', 'a']],
      ['?label_id={o_bug}', []],
      ['?priority=urgent', ['f', 'a']],
      ['?priority=high,low', ['d', 'b']],
      ['?priority=none&priority=medium', ['e', 'c']],
      ['?parent_id={a}', ['sub1']],
      ['?parent_id={a}&include_subtasks=true', ['sub1']],
      ['?parent_id={a}&include_subtasks=false', ['sub1']],
      ['?parent_id={c}', []],
      ['?parent_id={sub1}', []],
      ['?parent_id={o1}', []],
      ['?parent_id=0', []],
      ['?include_subtasks=true', ['sub2', 'sub1', ...ALL]],
      ['?include_subtasks=false', ALL],
      ['?due_after=2025-03-05', ['e', 'd', 'b', 'a']],
      ['?due_before=2025-03-10', ['d', 'b']],
      ['?due_before=2025-04-01', ['d', 'b', 'a']],
      ['?due_after=2025-03-06&due_before=2025-04-01T00:00:00.001Z', ['e', 'a']],
      ['?due_after=2025-03-05T01:00:00%2B01:00', ['e', 'd', 'b', 'a']],
      ['?created_after=2025-01-04', ['f', 'e', 'd']],
      ['?created_after=2025-01-04T00:00:00.000001Z', ['f']],
      ['?created_after=2025-01-06', []],
      ['?created_after=2025-01-06&include_subtasks=true', ['sub2', 'sub1']],
      ['?updated_after=2025-01-05T00:00:01Z', ['f']],
      ['?q=login', ['a']],
      ['?q=LOGIN', ['a']],
      ['?q=++login++', ['a']],
      ['?q=export', ['c', 'b']],
      ['?q=csv+gamma', ['c']],
      ['?q=csv%09gamma', ['c']],
      ['?q=csv+beta', []],
      ['?q=crash+alpha', ['a']],
      ['?q=%26', ['a']],
      ['?q=amp', []],
      ['?q=em', []],
      ['?q=50%25', ['c']],
      ['?q=%25', ['c']],
      ['?q=_', []],
      ['?q=alpha,bug', []],
      ['?q=alpha%00', []],
      ['?q=%00+alpha', []],
      ['?q=%C3%A9cole', ['e']],
      ['?q=%C3%89POUVANTE', []],
      ['?q=%C3%A9P%C3%A9E', ['e']],
      ['?q=of&include_subtasks=true', ['sub2', 'sub1']],
      ['?q=alpha', ['f', 'a']],
      ['?list_id={backlog}&priority=urgent', ['f', 'a']],
      ['?assignee_id={bob}&status_category=pending&due_after=2025-01-01&due_before=2025-12-31', ['a']],
      ['?label_id={bug}&priority=urgent,low&status_id={dropped}', ['d']],
    ])('%s', async (query, expected) => {
      const body = await list(query);
      expect(refsOf(body.data)).toEqual(expected);
      expect(body).toMatchObject({ page: 1, limit: 50, total: expected.length, total_pages: expected.length ? 1 : 0 } satisfies Partial<Schema<'TaskPage'>>);
      for (const task of body.data) expect(keys(task)).toEqual(FIELDS.listItem);
    });

    it('rows keep their direct subtasks, and subtask rows have none', async () => {
      const body = await list('?include_subtasks=true&q=alpha');
      const byRef = (ref: string) => body.data.find((x: { id: number }) => x.id === ids[ref]);
      expect(refsOf(body.data)).toEqual(['sub1', 'f', 'a']);
      expect(byRef('a').subtasks.map((s: { id: number }) => s.id)).toEqual([ids.sub1]);
      expect(byRef('sub1').subtasks).toEqual([]);
    });

    it('pages filtered results with page and limit', async () => {
      const body = await list('?status_id={todo},{doing}&limit=2&page=2');
      expect(refsOf(body.data)).toEqual(['a']);
      expect(body).toEqual({ data: body.data, page: 2, limit: 2, total: 3, total_pages: 2 });
    });
  });

  describe('restricted members see only permitted lists (D30, D33)', () => {
    it.each([
      ['', ['f', 'c', 'b', 'a']],
      ['?include_subtasks=true', ['sub1', 'f', 'c', 'b', 'a']],
      ['?parent_id={a}', ['sub1']],
      ['?parent_id={d}', []],
      ['?q=delta', []],
      ['?label_id={bug}', ['a']],
      ['?assignee_id=none', ['f', 'c']],
      ['?sort=title', ['f', 'a', 'b', 'c']],
    ])('%s', async (query, expected) => {
      expect(refsOf((await list(query, KEY.erin)).data)).toEqual(expected);
    });

    it('a list_id outside the permitted lists is 403 after the query checks', async () => {
      expect(await error('?list_id={inbox}', KEY.erin)).toEqual({ status: 403, body: { error: 'Access denied' } });
      expect(await error('?list_id={inbox}&priority=bad', KEY.erin)).toMatchObject({ status: 400 });
    });

    it('walks cursor pages over permitted tasks only', async () => {
      expect(await walk('sort=priority', 1, KEY.erin)).toEqual(['a', 'f', 'b', 'c']);
    });
  });

  describe('sort (ties by id in the last direction; no due date last both ways)', () => {
    const SORTS: Array<[string, string[]]> = [
      ['created_at', ['a', 'b', 'c', 'd', 'e', 'f']],
      ['-created_at', ALL],
      ['updated_at', ['a', 'b', 'c', 'd', 'e', 'f']],
      ['-updated_at', ['f', 'e', 'd', 'c', 'b', 'a']],
      ['priority', ['a', 'f', 'b', 'c', 'd', 'e']],
      ['-priority', ['e', 'd', 'c', 'b', 'f', 'a']],
      ['due_date', ['b', 'd', 'a', 'e', 'c', 'f']],
      ['-due_date', ['e', 'a', 'd', 'b', 'f', 'c']],
      ['identifier', ['a', 'b', 'c', 'd', 'e', 'f']],
      ['-identifier', ['f', 'e', 'd', 'c', 'b', 'a']],
      ['title', ['f', 'a', 'b', 'd', 'c', 'e']],
      ['-title', ['e', 'c', 'd', 'b', 'a', 'f']],
      ['priority,title', ['f', 'a', 'b', 'c', 'd', 'e']],
      ['-priority,created_at', ['e', 'd', 'c', 'b', 'a', 'f']],
      ['due_date,-priority', ['d', 'b', 'a', 'e', 'c', 'f']],
      ['-due_date,title,created_at', ['e', 'a', 'b', 'd', 'f', 'c']],
      ['priority,-due_date,identifier', ['a', 'f', 'b', 'c', 'd', 'e']],
    ];

    it.each(SORTS)('sort=%s (offset pages)', async (sort, expected) => {
      expect(refsOf((await list(`?sort=${sort}`)).data)).toEqual(expected);
      expect(refsOf((await list(`?sort=${sort}&limit=4&page=2`)).data)).toEqual(expected.slice(4));
    });

    it.each(SORTS)('sort=%s (cursor pages of 1, 2 and 4)', async (sort, expected) => {
      for (const limit of [1, 2, 4]) expect(await walk(`sort=${sort}`, limit)).toEqual(expected);
    });

    it('sorts subtasks as rows too', async () => {
      expect(refsOf((await list('?include_subtasks=true&sort=priority,created_at')).data)).toEqual(['a', 'f', 'b', 'sub1', 'c', 'd', 'e', 'sub2']);
      expect(await walk('include_subtasks=true&sort=-priority,-created_at', 3)).toEqual(['sub2', 'e', 'd', 'c', 'sub1', 'b', 'f', 'a']);
    });

    it('an explicit -created_at answers exactly as no sort', async () => {
      expect((await get('?sort=-created_at')).body).toBe((await get('')).body);
    });
  });

  describe('cursor pages', () => {
    it('answers { data, limit, next_cursor } with include_total=false, and null after the last page', async () => {
      const first = await list('?include_total=false&limit=4');
      expect(keys(first)).toEqual(['data', 'limit', 'next_cursor']);
      expect(first.limit).toBe(4);
      expect(refsOf(first.data)).toEqual(ALL.slice(0, 4));
      expect(first.next_cursor).toMatch(/^[A-Za-z0-9_-]{1,4096}$/);
      const second = await list(`?cursor=${first.next_cursor}&limit=4`);
      expect(keys(second)).toEqual(['data', 'limit', 'next_cursor']);
      expect(refsOf(second.data)).toEqual(ALL.slice(4));
      expect(second.next_cursor).toBeNull();
    });

    it('gives next_cursor null when the page ends exactly at the last task', async () => {
      const body = await list('?include_total=false&limit=6');
      expect(refsOf(body.data)).toEqual(ALL);
      expect(body.next_cursor).toBeNull();
      expect(await list('?include_total=false&status_id=0')).toEqual({ data: [], limit: 50, next_cursor: null });
    });

    it('adds total (all matches) only with include_total=true and a cursor; limit may change', async () => {
      const first = await list('?include_total=false&limit=2&priority=urgent,high,medium');
      const second = await list(`?cursor=${first.next_cursor}&include_total=true&limit=1&priority=medium,high,urgent`);
      expect(keys(second)).toEqual(['data', 'limit', 'next_cursor', 'total'] satisfies Array<keyof Schema<'TaskCursorPageWithTotal'>>);
      expect(second).toMatchObject({ limit: 1, total: 4 } satisfies Partial<Schema<'TaskCursorPageWithTotal'>>);
      expect(refsOf(second.data)).toEqual(['b']);
      const third = await list(`?cursor=${second.next_cursor}&include_total=false&priority=urgent,urgent,high,medium&priority=medium`);
      expect(keys(third)).toEqual(['data', 'limit', 'next_cursor']);
      expect(refsOf(third.data)).toEqual(['a']);
      expect(third.next_cursor).toBeNull();
    });

    it('include_total=true without a cursor is the default answer, byte for byte', async () => {
      expect((await get('?include_total=true')).body).toBe((await get('')).body);
      expect((await get('?include_total=true&page=1')).body).toBe((await get('?page=1')).body);
    });

    it('walks filtered cursor pages', async () => {
      expect(await walk(q('assignee_id=none,{bob}&sort=due_date'), 2)).toEqual(['b', 'a', 'e', 'c', 'f']);
      expect(await walk('q=a&include_subtasks=true', 3)).toEqual(['sub2', 'sub1', 'f', 'd', 'c', 'b', 'a']);
    });

    describe('binding: a cursor is valid only for the same workspace, caller, filters and sort', () => {
      let cursor: string;
      beforeAll(async () => {
        cursor = (await list(q('?include_total=false&limit=1&priority=urgent,high&status_id={todo},{doing}&sort=-due_date'))).next_cursor;
      });

      it.each([
        ['the same filters', '&priority=urgent,high&status_id={todo},{doing}&sort=-due_date'],
        ['values reordered and repeated', '&priority=high&priority=urgent,high&status_id={doing},{todo},{doing}&sort=-due_date'],
        ['parameters in another order, another limit', '&sort=-due_date&status_id={doing}&status_id={todo}&limit=7&priority=high,urgent'],
        ['an explicit include_subtasks=false', '&priority=urgent,high&status_id={todo},{doing}&sort=-due_date&include_subtasks=false'],
      ])('accepted with %s', async (_case, rest) => {
        const res = await get(q(`?cursor=${cursor}${rest}`));
        expect(res.statusCode).toBe(200);
        expect(refsOf(res.json().data)[0]).toBe('b');
      });

      it.each([
        ['no filters', '&sort=-due_date'],
        ['a filter value less', '&priority=urgent&status_id={todo},{doing}&sort=-due_date'],
        ['a filter more', '&priority=urgent,high&status_id={todo},{doing}&sort=-due_date&q=a'],
        ['include_subtasks', '&priority=urgent,high&status_id={todo},{doing}&sort=-due_date&include_subtasks=true'],
        ['another sort', '&priority=urgent,high&status_id={todo},{doing}&sort=due_date'],
        ['no sort', '&priority=urgent,high&status_id={todo},{doing}'],
        ['a date filter', '&priority=urgent,high&status_id={todo},{doing}&sort=-due_date&due_after=2000-01-01'],
      ])('400 with %s', async (_case, rest) => {
        expect(await error(`?cursor=${cursor}${rest}`)).toEqual({ status: 400, body: { error: 'Invalid cursor' } });
      });

      it('400 for another caller and in another workspace', async () => {
        const rest = q('&priority=urgent,high&status_id={todo},{doing}&sort=-due_date');
        const bob = await get(`?cursor=${cursor}${rest}`, KEY.bob);
        expect({ status: bob.statusCode, body: bob.json() }).toEqual({ status: 400, body: { error: 'Invalid cursor' } });
        const other = await get(`?cursor=${cursor}${rest}`, KEY.alice, ids.other);
        expect({ status: other.statusCode, body: other.json() }).toEqual({ status: 400, body: { error: 'Invalid cursor' } });
      });

      it('binds the default sort and the explicit -created_at alike, and me to the caller', async () => {
        const plain = (await list('?include_total=false&limit=1&assignee_id=me')).next_cursor;
        expect((await get(`?cursor=${plain}&sort=-created_at&assignee_id=${ids.alice}`)).statusCode).toBe(200);
        expect((await get(`?cursor=${plain}&sort=created_at&assignee_id=me`)).statusCode).toBe(400);
      });

      it('400 when the server secret changes', async () => {
        const rest = q('&priority=urgent,high&status_id={todo},{doing}&sort=-due_date');
        const secret = cursorSecret();
        useCursorSecret('another secret');
        try {
          expect(await error(`?cursor=${cursor}${rest}`)).toEqual({ status: 400, body: { error: 'Invalid cursor' } });
        } finally {
          useCursorSecret(secret);
        }
        expect((await get(`?cursor=${cursor}${rest}`)).statusCode).toBe(200);
      });

      it('400 for any changed character, a truncated or extended cursor, and foreign text', async () => {
        const rest = q('&priority=urgent,high&status_id={todo},{doing}&sort=-due_date');
        const swap = (c: string) => (c === 'A' ? 'B' : 'A');
        const variants = [
          ...Array.from({ length: cursor.length }, (_, i) => cursor.slice(0, i) + swap(cursor[i]) + cursor.slice(i + 1)),
          cursor.slice(0, -1),
          cursor.slice(1),
          cursor + 'A',
          cursor + '=',
          `${cursor}.`,
          '',
          'x',
          'A'.repeat(4097),
          Buffer.from('[1,2]').toString('base64url'),
          '%20' + cursor,
        ];
        for (const variant of variants) {
          const res = await get(`?cursor=${variant}${rest}`);
          expect({ variant, status: res.statusCode, body: res.json() }).toEqual({ variant, status: 400, body: { error: 'Invalid cursor' } });
        }
      });
    });

    describe('stability across changes between pages', () => {
      const MUT_ORDER = ['m9', 'm8', 'm7', 'm6', 'm5', 'm4', 'm3', 'm2', 'm1', 'm0'];
      const mutPage = (query: string) => list(query, KEY.alice, ids.mut);

      it('a deleted last row: the next page continues after its position', async () => {
        const first = await mutPage('?include_total=false&limit=3');
        expect(refsOf(first.data)).toEqual(MUT_ORDER.slice(0, 3));
        expect((await t.inject({ method: 'DELETE', url: `/api/v1/tasks/${ids.m7}`, headers: auth(KEY.alice) })).statusCode).toBe(204);
        const second = await mutPage(`?cursor=${first.next_cursor}&limit=3`);
        expect(refsOf(second.data)).toEqual(['m6', 'm5', 'm4']);
      });

      it('inserts before the position do not shift later pages; inserts after it appear', async () => {
        const first = await mutPage('?include_total=false&limit=2&sort=created_at');
        expect(refsOf(first.data)).toEqual(['m0', 'm1']);
        const created = await t.inject({
          method: 'POST',
          url: '/api/v1/tasks',
          headers: auth(KEY.alice),
          payload: { list_id: ids.m_list, title: 'Newest' },
        });
        expect(created.statusCode).toBe(201);
        const rest = [];
        let body = await mutPage(`?cursor=${first.next_cursor}&limit=2&sort=created_at`);
        for (;;) {
          rest.push(...refsOf(body.data));
          if (!body.next_cursor) break;
          body = await mutPage(`?cursor=${body.next_cursor}&limit=2&sort=created_at`);
        }
        expect(rest).toEqual(['m2', 'm3', 'm4', 'm5', 'm6', 'm8', 'm9', created.json().id]);
      });

      it('a changed last row (title sort): unchanged tasks are neither repeated nor skipped', async () => {
        const full = refsOf((await mutPage('?sort=title,-due_date')).data);
        const first = await mutPage('?include_total=false&limit=4&sort=title,-due_date');
        expect(refsOf(first.data)).toEqual(full.slice(0, 4));
        const last = first.data[3].id;
        const patched = await t.inject({
          method: 'PATCH',
          url: `/api/v1/tasks/${last}`,
          headers: auth(KEY.alice),
          payload: { title: 'AAA first now', due_date: null },
        });
        expect(patched.statusCode).toBe(200);
        const tail: Array<string | number> = [];
        let body = await mutPage(`?cursor=${first.next_cursor}&limit=4&sort=title,-due_date`);
        for (;;) {
          tail.push(...refsOf(body.data));
          if (!body.next_cursor) break;
          body = await mutPage(`?cursor=${body.next_cursor}&limit=4&sort=title,-due_date`);
        }
        expect(tail).toEqual(full.slice(4));
      });
    });
  });

  describe('updated_at (D34: set by every accepted PATCH)', () => {
    it('a PATCH, even an empty one, moves the task to the front of -updated_at and into updated_after', async () => {
      const start = new Date().toISOString();
      expect(refsOf((await list(`?updated_after=${start}`)).data)).toEqual([]);
      const res = await t.inject({ method: 'PATCH', url: `/api/v1/tasks/${ids.c}`, headers: auth(KEY.alice), payload: {} });
      expect(res.statusCode).toBe(200);
      expect(refsOf((await list(`?updated_after=${start}`)).data)).toEqual(['c']);
      expect(refsOf((await list('?sort=-updated_at&limit=1')).data)).toEqual(['c']);
      // A refused PATCH changes nothing.
      const refused = await t.inject({ method: 'PATCH', url: `/api/v1/tasks/${ids.b}`, headers: auth(KEY.alice), payload: { priority: 'bad' } });
      expect(refused.statusCode).toBe(400);
      expect(refsOf((await list(`?updated_after=${start}`)).data)).toEqual(['c']);
    });
  });

  describe('400s (D34 order, after membership)', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1).join(',');
    const hundredOne = `${hundred},101`;

    it.each([
      // Unknown parameters: exact, case-sensitive names; the first in request order.
      ['?foo=1', 'Unknown query parameter: foo'],
      ['?Priority=high', 'Unknown query parameter: Priority'],
      ['?priority%5B%5D=high', 'Unknown query parameter: priority[]'],
      ['?page=0&zeta=1&alpha=2', 'Unknown query parameter: zeta'],
      ['?sort=bad&2=x&foo=y', 'Unknown query parameter: 2'],
      ['?include_total', 'include_total must be true or false'],
      // Sent twice while single-valued.
      ...[
        'page',
        'limit',
        'list_id',
        'parent_id',
        'include_subtasks',
        'due_after',
        'due_before',
        'created_after',
        'updated_after',
        'q',
        'sort',
        'include_total',
        'cursor',
      ].map((name) => [`?${name}=x&${name}=y`, `${name} must be given only once`]),
      // Over 100 values, duplicates counted, comma and repeated forms together.
      ...['status_id', 'status_category', 'assignee_id', 'label_id', 'priority'].map((name) => [
        `?${name}=${hundredOne}`,
        `${name} accepts at most 100 values`,
      ]),
      ['?priority=' + Array(101).fill('high').join(','), 'priority accepts at most 100 values'],
      ['?label_id=' + hundred + '&label_id=1', 'label_id accepts at most 100 values'],
      ['?assignee_id=' + Array(60).fill('me').join(',') + '&assignee_id=' + Array(41).fill('none').join(','), 'assignee_id accepts at most 100 values'],
      // Bad values.
      ...['0', '-1', '1.5', 'abc', '', '1e2'].map((v) => [`?page=${v}`, 'page must be a positive integer']),
      ...['0', '101', 'ten', ''].map((v) => [`?limit=${v}`, 'limit must be an integer between 1 and 100']),
      ...['abc', '', '-3', '1,2'].map((v) => [`?list_id=${v}`, 'list_id must be a valid numeric ID']),
      ...['abc', '', '1,,2', '1,', '-1', '%201', '1.0'].map((v) => [`?status_id=${v}`, 'status_id must be a valid numeric ID']),
      ...['Pending', 'done', '', 'pending,'].map((v) => [
        `?status_category=${v}`,
        'Invalid status_category. Must be one of: pending, in_progress, completed, cancelled',
      ]),
      ...['ME', 'None', 'x', '', '1,me,'].map((v) => [`?assignee_id=${v}`, 'assignee_id must be a valid numeric ID, me or none']),
      ...['1.5', 'bug', ''].map((v) => [`?label_id=${v}`, 'label_id must be a valid numeric ID']),
      ...['High', 'critical', '', 'high,,low'].map((v) => [`?priority=${v}`, 'Invalid priority. Must be one of: urgent, high, medium, low, none']),
      ...['abc', '', '1,2', 'me'].map((v) => [`?parent_id=${v}`, 'parent_id must be a valid numeric ID']),
      ...['1', 'TRUE', 'yes', ''].map((v) => [`?include_subtasks=${v}`, 'include_subtasks must be true or false']),
      ...['due_after', 'due_before', 'created_after', 'updated_after'].flatMap((name) =>
        ['2025-02-30', 'yesterday', '', '2025-01-15T25:00Z', '1736899200'].map((v) => [
          `?${name}=${v}`,
          `Invalid ${name} format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z`,
        ]),
      ),
      ['?q=', 'q cannot be empty'],
      ['?q=+%09+', 'q cannot be empty'],
      ['?q=' + 'x'.repeat(201), 'q must be at most 200 characters'],
      ['?q=' + encodeURIComponent('😀'.repeat(201)), 'q must be at most 200 characters'],
      ['?q=a+b+c+d+e+f+g+h+i+j+k', 'q accepts at most 10 terms'],
      ['?q=' + encodeURIComponent(Array(11).fill('x').join('\t\n ')), 'q accepts at most 10 terms'],
      ['?q=' + Array(101).fill('x').join('+'), 'q must be at most 200 characters'],
      ['?sort=bad&q=a+b+c+d+e+f+g+h+i+j+k', 'q accepts at most 10 terms'],
      ...[
        '',
        'name',
        'created_at,created_at',
        'created_at,-created_at',
        'title,priority,identifier,due_date',
        '--created_at',
        '%2Bcreated_at',
        'created_at,',
        'Title',
        '%20title',
      ].map((v) => [
        `?sort=${v}`,
        'Invalid sort. Use one to three of: created_at, updated_at, due_date, priority, identifier, title, each optionally prefixed with -',
      ]),
      ...['yes', '', 'False'].map((v) => [`?include_total=${v}`, 'include_total must be true or false']),
      ['?page=1&cursor=abc', 'page cannot be combined with cursor or include_total=false'],
      ['?page=2&include_total=false', 'page cannot be combined with cursor or include_total=false'],
      ['?cursor=', 'Invalid cursor'],
      ['?cursor=abc', 'Invalid cursor'],
      // Order: the first failing parameter in D34's order, whatever the request order.
      [
        '?cursor=bad&sort=bad',
        'Invalid sort. Use one to three of: created_at, updated_at, due_date, priority, identifier, title, each optionally prefixed with -',
      ],
      ['?sort=bad&q=', 'q cannot be empty'],
      ['?q=&updated_after=x', 'Invalid updated_after format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z'],
      ['?updated_after=x&created_after=x', 'Invalid created_after format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z'],
      ['?created_after=x&due_before=x', 'Invalid due_before format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z'],
      ['?due_before=x&due_after=x', 'Invalid due_after format. Use ISO 8601 UTC, e.g. 2025-01-15T09:30:00.000Z'],
      ['?due_after=x&include_subtasks=x', 'include_subtasks must be true or false'],
      ['?include_subtasks=x&parent_id=x', 'parent_id must be a valid numeric ID'],
      ['?parent_id=x&priority=x', 'Invalid priority. Must be one of: urgent, high, medium, low, none'],
      ['?priority=x&label_id=x', 'label_id must be a valid numeric ID'],
      ['?label_id=x&assignee_id=x', 'assignee_id must be a valid numeric ID, me or none'],
      ['?assignee_id=x&status_category=x', 'Invalid status_category. Must be one of: pending, in_progress, completed, cancelled'],
      ['?status_category=x&status_id=x', 'status_id must be a valid numeric ID'],
      ['?status_id=x&list_id=x', 'list_id must be a valid numeric ID'],
      ['?list_id=x&limit=x', 'limit must be an integer between 1 and 100'],
      ['?limit=x&page=x', 'page must be a positive integer'],
      [
        '?include_total=x&sort=x',
        'Invalid sort. Use one to three of: created_at, updated_at, due_date, priority, identifier, title, each optionally prefixed with -',
      ],
      ['?cursor=x&include_total=x', 'include_total must be true or false'],
      ['?cursor=x&page=1', 'page cannot be combined with cursor or include_total=false'],
      ['?cursor=x&cursor=y&page=1', 'page cannot be combined with cursor or include_total=false'],
      ['?status_id=x&status_id=' + hundredOne, 'status_id accepts at most 100 values'],
      ['?page=1&page=x', 'page must be given only once'],
      ['?sort=x&page=1&page=1', 'page must be given only once'],
      // 400s come before list_id's existence (404).
      ['?list_id=99999999&priority=x', 'Invalid priority. Must be one of: urgent, high, medium, low, none'],
      ['?list_id=99999999&cursor=x', 'Invalid cursor'],
    ])('%s', async (query, message) => {
      expect(await error(query)).toEqual({ status: 400, body: { error: message } });
    });

    it.each([
      ['exactly 100 values', `?status_id=${hundred}`],
      ['100 values over repeated parameters', `?priority=${Array(50).fill('high').join(',')}&priority=${Array(50).fill('low').join(',')}`],
      ['q of 200 code points', '?q=' + encodeURIComponent('😀'.repeat(200))],
      ['q of 200 characters between spaces', '?q=' + encodeURIComponent(' ' + 'x'.repeat(200) + ' ')],
      ['q of 10 terms', '?q=' + encodeURIComponent(' a b  c d e f g h i ' + 'x'.repeat(180) + ' ')],
      ['three sort keys', '?sort=title,-priority,identifier'],
      ['page with include_total=true', '?page=2&include_total=true'],
      ['an id beyond any row', '?label_id=99999999999999'],
    ])('200 for %s', async (_case, query) => {
      expect((await get(query)).statusCode).toBe(200);
    });

    it('membership comes first: a non-member with a bad query gets 404 Workspace not found', async () => {
      expect(await error('?foo=1', KEY.olga)).toEqual({ status: 404, body: { error: 'Workspace not found' } });
    });

    it('list_id of another workspace with valid filters is 404', async () => {
      expect(await error('?list_id={o_list}&priority=high')).toEqual({ status: 404, body: { error: 'List not found in this workspace' } });
    });
  });

  describe('round trips (no per-row queries)', () => {
    const counter = new QueryCounter();
    beforeAll(() => counter.install());
    afterAll(() => counter.uninstall());

    it('a filtered cursor page with total costs what the plain list costs, whatever the limit', async () => {
      const trips = async (query: string) => (await counter.record(() => get(q(query)))).statements.length;
      const plain = await trips('');
      expect(plain).toBeLessThanOrEqual(3);
      const first = await list('?include_total=false&limit=1&assignee_id=none,{bob}&status_category=pending,completed&sort=-due_date,title&q=a');
      expect(
        await trips(
          `?cursor=${first.next_cursor}&include_total=true&limit=1&assignee_id=none,{bob}&status_category=pending,completed&sort=-due_date,title&q=a`,
        ),
      ).toBe(plain);
      expect(
        await trips(
          '?include_subtasks=true&label_id={bug},{ui}&priority=urgent,high,low&due_after=2025-01-01&created_after=2025-01-01&updated_after=2025-01-01&limit=100',
        ),
      ).toBe(plain);
    });
  });
});
