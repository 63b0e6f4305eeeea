import { useServerProcesses } from '../setup/server-process';

/**
 * D35, safe across processes: two server processes (`node dist/main.js`) on one
 * database receive 50 identical keyed requests at once. Exactly one row is
 * created; every other answer is its replay (`Idempotent-Replayed: true`, the
 * same bytes) or 409 `A request with this Idempotency-Key is in progress`.
 */

const procs = useServerProcesses({ slug: 'idem-procs', env: { DB_POOL_SIZE: '30' } });

it.each([
  [
    'create task',
    '/api/v1/tasks',
    () => ({ list_id: procs.ids.l, title: 'Exactly once' }),
    `SELECT count(*)::int AS n FROM tasks WHERE title = 'Exactly once'`,
  ],
  [
    'create folder',
    '/api/v1/folders',
    () => ({ workspace_id: procs.ids.ws, name: 'Exactly once' }),
    `SELECT count(*)::int AS n FROM folders WHERE name = 'Exactly once'`,
  ],
])('%s: 50 identical requests at once through two processes create one row', async (_name, path, body, countSql) => {
  const payload = JSON.stringify(body());
  const key = `burst-${path}`;
  const answers = await Promise.all(
    Array.from({ length: 50 }, async (_, i) => {
      const res = await fetch(procs.servers[i % 2].url + path, {
        method: 'POST',
        headers: { authorization: `Bearer ${procs.key}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: payload,
      });
      return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: await res.text() };
    }),
  );
  expect((await procs.db.ds.query(countSql))[0].n).toBe(1);
  const created = answers.filter((a) => a.status === 201 && a.replayed === null);
  expect(created).toHaveLength(1);
  for (const answer of answers) {
    if (answer === created[0]) continue;
    if (answer.status === 201) expect(answer).toEqual({ status: 201, replayed: 'true', body: created[0].body });
    else expect(answer).toEqual({ status: 409, replayed: null, body: '{"error":"A request with this Idempotency-Key is in progress"}' });
  }
  // Once it is done, every retry through either process is the replay.
  for (const server of procs.servers) {
    const res = await fetch(server.url + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${procs.key}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: payload,
    });
    expect([res.status, res.headers.get('idempotent-replayed'), await res.text()]).toEqual([201, 'true', created[0].body]);
  }
});
