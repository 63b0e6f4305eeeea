import { SCOPES } from '../../src/common/auth/scope';
import { EVENTS_EXAMINED_MAX } from '../../src/events/events.repository';
import type { FixtureWorld } from '../../src/fixtures/fixture.types';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { auth, createTestApp, TestApp } from '../setup/create-app';

/**
 * D37's page bound (issue 31): a page examines at most 1,000 of the
 * workspace's events after `after`; when it met the bound with fewer than
 * `limit` events to show, `next_after` is the last examined id (data may be
 * empty); a client is caught up when `next_after` equals its `after`. Erin is
 * restricted to folder `open`: she sees the events of list `seen` only (and
 * status and label events), none of list `hidden`. And the polling promise
 * still holds for her while pages stop at the bound under concurrent writes.
 */

const OWNER = 'svc_evbound_owner';
const ERIN = 'svc_evbound_erin';

const world: FixtureWorld = {
  users: [
    { ref: 'owner', email: 'owner@evbound.test', name: 'Owner' },
    { ref: 'erin', email: 'erin@evbound.test', name: 'Erin' },
  ],
  api_keys: [
    { user: 'owner', key: OWNER, scopes: [...SCOPES] },
    { user: 'erin', key: ERIN, scopes: [...SCOPES] },
  ],
  workspaces: [
    {
      ref: 'ws',
      name: 'Bound',
      slug: 'evbound',
      owner: 'owner',
      members: [{ user: 'erin', role: 'member', restricted: true, folders: ['open'] }],
      statuses: [
        { ref: 'todo', name: 'To Do', category: 'pending' },
        { ref: 'done', name: 'Done', category: 'completed' },
      ],
      folders: [
        { ref: 'open', name: 'Open', lists: [{ ref: 'seen', name: 'Seen' }] },
        { ref: 'closed', name: 'Closed', lists: [{ ref: 'hidden', name: 'Hidden' }] },
      ],
    },
    // Another workspace's events sit between this one's: they are not examined.
    { ref: 'other', name: 'Other', slug: 'evbound-other', owner: 'owner', statuses: [{ ref: 'o_todo', name: 'To Do', category: 'pending' }] },
  ],
};

interface Page {
  data: Array<{ id: number; data: { list_id: number | null } }>;
  next_after: number;
}

describe('events: a page examines at most 1,000 events (D37)', () => {
  let t: TestApp;
  let ids: Record<string, number>;

  const page = async (key: string, query: string): Promise<Page> => {
    const res = await t.inject({ method: 'GET', url: `/api/v1/workspaces/${ids.ws}/events?${query}`, headers: auth(key) });
    expect(res.statusCode).toBe(200);
    return res.json();
  };
  const post = async (url: string, payload: object) => {
    const res = await t.inject({ method: 'POST', url: `/api/v1${url}`, headers: auth(OWNER), payload });
    if (res.statusCode !== 201) throw new Error(`POST ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  /** Records `n` task.created events of workspace `ws` in list `list`, in one statement (ids in order, committed at once). */
  const bulk = async (ws: number, list: number, n: number): Promise<number[]> =>
    (
      await t.db.ds.query(
        `INSERT INTO events (id, workspace_id, type, occurred_at, data)
         SELECT nextval('events_id_seq'), $1, 'task.created', now(), jsonb_build_object('task_id', 0, 'list_id', $2::int, 'parent_id', NULL)
           FROM generate_series(1, $3) ORDER BY 1 RETURNING id`,
        [ws, list, n],
      )
    )
      .map((r: { id: string }) => Number(r.id))
      .sort((a: number, b: number) => a - b);
  const lastId = async (): Promise<number> =>
    Number((await t.db.ds.query(`SELECT COALESCE(max(id), 0) AS id FROM events WHERE workspace_id = $1`, [ids.ws]))[0].id);

  beforeAll(async () => {
    t = await createTestApp({ validateResponses: false });
    ids = await loadFixture(t.db.ds, world);
  });
  afterAll(async () => {
    await t.close();
  });

  it('pages stop at 1,000 examined events: next_after is the last examined id, data may be empty, caught up when next_after equals after', async () => {
    expect(EVENTS_EXAMINED_MAX).toBe(1000);
    const start = await lastId();
    // 2,500 events of the workspace, two of them visible to Erin (the 1,200th and the 2,400th), with 300 of
    // another workspace interleaved at the start.
    const hidden1 = await bulk(ids.ws, ids.hidden, 600);
    await bulk(ids.other, 0, 300);
    const hidden2 = await bulk(ids.ws, ids.hidden, 599);
    const [seen1] = await bulk(ids.ws, ids.seen, 1);
    const hidden3 = await bulk(ids.ws, ids.hidden, 1199);
    const [seen2] = await bulk(ids.ws, ids.seen, 1);
    const hidden4 = await bulk(ids.ws, ids.hidden, 100);
    const all = [...hidden1, ...hidden2, seen1, ...hidden3, seen2, ...hidden4];
    expect(all).toHaveLength(2500);

    // Erin: nothing visible among the first 1,000: an empty page that moves on to the 1,000th.
    const p1 = await page(ERIN, `after=${start}&limit=100`);
    expect(p1).toEqual({ data: [], next_after: all[999] });
    // The next 1,000 hold the 1,200th: a short page, next_after the 2,000th (the last examined).
    const p2 = await page(ERIN, `after=${p1.next_after}&limit=100`);
    expect(p2.data.map((e) => e.id)).toEqual([seen1]);
    expect(p2.next_after).toBe(all[1999]);
    // 500 left: the bound is not met, next_after is the last event shown.
    const p3 = await page(ERIN, `after=${p2.next_after}&limit=100`);
    expect(p3.data.map((e) => e.id)).toEqual([seen2]);
    expect(p3.next_after).toBe(seen2);
    // 100 left, none visible: caught up.
    const p4 = await page(ERIN, `after=${p3.next_after}&limit=100`);
    expect(p4).toEqual({ data: [], next_after: seen2 });

    // A full page ends at its last event before the bound.
    const owner = await page(OWNER, `after=${start}&limit=100`);
    expect(owner.data.map((e) => e.id)).toEqual(all.slice(0, 100));
    expect(owner.next_after).toBe(all[99]);
    // A filter that matches nothing: the bound again, then caught up at the end.
    const typed = await page(OWNER, `after=${start}&type=task.deleted`);
    expect(typed).toEqual({ data: [], next_after: all[999] });
    const byTask = await page(OWNER, `after=${all[1999]}&task_id=1`);
    expect(byTask).toEqual({ data: [], next_after: all[1999] });
    // The bound counts examined events, not returned ones: a page that fills before it stops there.
    const seenOnly = await page(ERIN, `after=${all[1100]}&limit=1`);
    expect(seenOnly).toEqual({ data: [expect.objectContaining({ id: seen1 })], next_after: seen1 });
  });

  it('a restricted poller under concurrent writes, its pages stopping at the bound: every visible event exactly once, in id order', async () => {
    const start = await lastId();
    // A backlog the poller crosses 1,000 at a time while the writers write.
    await bulk(ids.ws, ids.hidden, 3000);
    const WRITERS = 6;
    const WRITES = 60;
    let writing = true;
    const seen: number[] = [];
    let cursor = start;
    let pages = 0;
    let boundPages = 0;

    const poller = async () => {
      const once = async () => {
        const p = await page(ERIN, `after=${cursor}&limit=${1 + (pages++ % 20)}`);
        const got = p.data.map((e) => e.id);
        expect(got).toEqual([...got].sort((a, b) => a - b));
        if (got.length) expect(got[0]).toBeGreaterThan(cursor);
        expect(p.next_after).toBeGreaterThanOrEqual(got.at(-1) ?? cursor);
        if (p.next_after > (got.at(-1) ?? cursor)) boundPages++;
        for (const e of p.data) expect(e.data.list_id).toBe(ids.seen);
        seen.push(...got);
        const moved = p.next_after !== cursor;
        cursor = p.next_after;
        return moved;
      };
      while (writing) await once();
      // Writers done: read until caught up.
      while (await once());
    };
    const writer = async (n: number) => {
      for (let i = 0; i < WRITES; i++) {
        // One write in four is visible to Erin.
        const list = i % 4 === n % 4 ? ids.seen : ids.hidden;
        const task = await post('/tasks', { list_id: list, title: `w${n} ${i}` });
        if (i % 3 === 0) await post(`/tasks/${task.id}/comments`, { content: `c ${i}` });
      }
    };

    const polling = poller();
    try {
      await Promise.all(Array.from({ length: WRITERS }, (_, n) => writer(n)));
    } finally {
      writing = false;
    }
    await polling;

    const expected = (
      await t.db.ds.query(`SELECT id FROM events WHERE workspace_id = $1 AND id > $2 AND (data->>'list_id')::int = $3 ORDER BY id`, [ids.ws, start, ids.seen])
    ).map((r: { id: string }) => Number(r.id));
    expect(expected.length).toBeGreaterThan(WRITERS * (WRITES / 4));
    expect(seen).toEqual(expected);
    // The backlog alone makes three pages end at the bound.
    expect(boundPages).toBeGreaterThanOrEqual(3);
  }, 300_000);
});
