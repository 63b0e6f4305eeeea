import { Client } from 'pg';

import { SCOPES } from '../../src/common/auth/scope';
import { EVENTS_LOCK_NAMESPACE } from '../../src/events/events.sql';
import type { FixtureWorld } from '../../src/fixtures/fixture.types';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { auth, createTestApp, TestApp } from '../setup/create-app';

/**
 * D37's polling promise: a client that calls the feed with `after` = the
 * previous `next_after` receives every event of the workspace exactly once,
 * in id order, whatever commits concurrently. 8 writers x 200 writes over two
 * workspaces and every kind of write, with a poller running all along.
 */

const WRITERS = 8;
const WRITES = 200;
const KEY = 'svc_evpoll_owner';

const workspace = (ref: string) => ({
  ref,
  name: ref,
  slug: `evpoll-${ref}`,
  owner: 'owner',
  statuses: [
    { ref: `${ref}_todo`, name: 'To Do', category: 'pending' as const },
    { ref: `${ref}_done`, name: 'Done', category: 'completed' as const },
  ],
  labels: [{ ref: `${ref}_bug`, name: 'Bug' }],
  folders: [{ ref: `${ref}_f`, name: 'F', lists: [{ ref: `${ref}_l`, name: 'L' }] }],
});
const world: FixtureWorld = {
  users: [{ ref: 'owner', email: 'owner@evpoll.test', name: 'Owner' }],
  api_keys: [{ user: 'owner', key: KEY, scopes: [...SCOPES] }],
  workspaces: [workspace('a'), workspace('b')],
};

describe('events: the polling promise under concurrent writes (D37)', () => {
  let t: TestApp;
  let ids: Record<string, number>;

  const call = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) => {
    const res = await t.inject({ method, url: `/api/v1${url}`, headers: auth(KEY), ...(payload ? { payload } : {}) });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.statusCode === 204 ? null : res.json();
  };
  const dbIds = async (ws: number): Promise<number[]> =>
    (await t.db.ds.query('SELECT id FROM events WHERE workspace_id = $1 ORDER BY id', [ws])).map((r: { id: string }) => Number(r.id));

  beforeAll(async () => {
    t = await createTestApp({ validateResponses: false });
    ids = await loadFixture(t.db.ds, world);
  });
  afterAll(async () => {
    await t.close();
  });

  it('the id is drawn only after the workspace lock: a write waiting for it gets a larger id than one drawn meanwhile', async () => {
    const holder = new Client({ connectionString: t.db.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock($1, $2)', [EVENTS_LOCK_NAMESPACE, ids.a]);
      const write = call('POST', '/labels', { workspace_id: ids.a, name: 'Waits' });
      // Until the write is seen waiting for that lock (no timing: the lock table says so).
      for (;;) {
        const waiting = await holder.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = $1 AND objid = $2`, [
          EVENTS_LOCK_NAMESPACE,
          ids.a,
        ]);
        if (waiting.rowCount) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      // Another writer of the workspace draws its id now, and commits.
      const drawn = Number((await holder.query(`SELECT nextval('events_id_seq') AS id`)).rows[0].id);
      await holder.query(`INSERT INTO events (id, workspace_id, type, occurred_at, data) VALUES ($1, $2, 'label.created', now(), '{"label_id": null}')`, [
        drawn,
        ids.a,
      ]);
      await holder.query('COMMIT');
      const label = await write;
      const [event] = (await call('GET', `/workspaces/${ids.a}/events?after=${drawn}`)).data;
      expect(event.data).toEqual({ label_id: label.id });
      expect(event.id).toBeGreaterThan(drawn);
    } finally {
      await holder.end();
    }
  });

  it(`${WRITERS} writers x ${WRITES} writes of every kind, and a poller: every event seen exactly once, in id order`, async () => {
    const workspaces = [ids.a, ids.b];
    const start = Object.fromEntries(await Promise.all(workspaces.map(async (ws) => [ws, (await dbIds(ws)).at(-1) ?? 0])));
    const seen: Record<number, number[]> = { [ids.a]: [], [ids.b]: [] };
    const cursor: Record<number, number> = { ...start };
    let writing = true;
    let polls = 0;

    const pollOnce = async (ws: number): Promise<number> => {
      const page = await call('GET', `/workspaces/${ws}/events?after=${cursor[ws]}&limit=${1 + (polls++ % 100)}`);
      const got = page.data.map((e: { id: number }) => e.id);
      // In id order, after the cursor, and next_after is the last id (or the cursor when empty).
      expect(got).toEqual([...got].sort((x: number, y: number) => x - y));
      if (got.length) expect(got[0]).toBeGreaterThan(cursor[ws]);
      expect(page.next_after).toBe(got.at(-1) ?? cursor[ws]);
      seen[ws].push(...got);
      cursor[ws] = page.next_after;
      return got.length;
    };
    const poller = async () => {
      while (writing) for (const ws of workspaces) await pollOnce(ws);
      // Writers done: read to the end.
      for (const ws of workspaces) while ((await pollOnce(ws)) > 0);
    };

    const writer = async (n: number) => {
      const ws = workspaces[n % 2];
      const r = ws === ids.a ? 'a' : 'b';
      let task = 0;
      let folder = 0;
      let label = 0;
      for (let i = 0; i < WRITES; i++) {
        switch (i % 10) {
          case 0:
            task = (await call('POST', '/tasks', { list_id: ids[`${r}_l`], title: `w${n} ${i}`, label_ids: [ids[`${r}_bug`]] })).id;
            break;
          case 1:
            await call('PATCH', `/tasks/${task}`, { title: `w${n} ${i} renamed`, assignee_ids: [ids.owner] });
            break;
          case 2:
            await call('POST', `/tasks/${task}/comments`, { content: `c ${i}` });
            break;
          case 3:
            await call('POST', '/tasks', { list_id: ids[`${r}_l`], title: 'sub', parent_id: task });
            break;
          case 4:
            folder = (await call('POST', '/folders', { workspace_id: ws, name: `F${n}.${i}` })).id;
            break;
          case 5:
            await call('PATCH', `/folders/${folder}`, { name: `F${n}.${i} renamed` });
            break;
          case 6:
            await call('POST', '/lists', { workspace_id: ws, folder_id: folder, name: 'L' });
            break;
          case 7:
            label = (await call('POST', '/labels', { workspace_id: ws, name: `B${n}.${i}` })).id;
            break;
          case 8:
            await call('DELETE', `/labels/${label}`);
            await call('DELETE', `/tasks/${task}`);
            break;
          case 9:
            await call('DELETE', `/folders/${folder}`);
            break;
        }
      }
    };

    const polling = poller();
    try {
      await Promise.all(Array.from({ length: WRITERS }, (_, n) => writer(n)));
    } finally {
      writing = false;
    }
    await polling;

    for (const ws of workspaces) {
      const stored = (await dbIds(ws)).filter((id) => id > start[ws]);
      // 4 writers x 200 writes, case 8 writing twice: 4 x (200 + 20) events per workspace.
      expect(stored).toHaveLength((WRITERS / 2) * (WRITES + WRITES / 10));
      expect(seen[ws]).toEqual(stored);
    }
    expect(polls).toBeGreaterThan(workspaces.length);
  }, 300_000);
});
