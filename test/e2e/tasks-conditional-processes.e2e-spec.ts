import type { Schema } from '../setup/api-types';
import { ServerProcess, useServerProcesses } from '../setup/server-process';

/**
 * D36 across processes (issue 31): two server processes (`node dist/main.js`) on
 * one database. Ten PATCHes of one task at once under the same If-Match, split
 * over both: exactly one 200 and nine 412 `Precondition failed`, never 503. A
 * PATCH under If-Match racing a DELETE of its task: 200 when it wins, else 404
 * `Task not found`, never 412.
 */

const ROUNDS = 8;
const procs = useServerProcesses({ slug: 'cond-procs', labels: [{ ref: 'bug', name: 'Bug' }] });

async function call(server: ServerProcess, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${procs.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text, etag: res.headers.get('etag') };
}

async function createTask(title: string): Promise<{ id: number; etag: string }> {
  const res = await call(procs.servers[0], 'POST', '/api/v1/tasks', { list_id: procs.ids.l, title } satisfies Schema<'CreateTask'>);
  expect(res.status).toBe(201);
  return { id: (JSON.parse(res.body) as Schema<'TaskWrite'>).id, etag: res.etag! };
}

it('ten If-Match PATCHes of one task at once over two processes: one 200, nine 412, never 503', async () => {
  const tally: Record<string, number> = {};
  for (let round = 0; round < ROUNDS; round++) {
    const { id, etag } = await createTask(`Race ${round}`);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call(procs.servers[i % 2], 'PATCH', `/api/v1/tasks/${id}`, { title: `Winner ${i}`, label_ids: [procs.ids.bug] } satisfies Schema<'UpdateTask'>, {
          'if-match': etag,
        }),
      ),
    );
    for (const a of answers) tally[`${a.status} ${a.status === 200 ? '' : a.body}`] = (tally[`${a.status} ${a.status === 200 ? '' : a.body}`] ?? 0) + 1;
  }
  expect(tally).toEqual({ '200 ': ROUNDS, '412 {"error":"Precondition failed"}': 9 * ROUNDS });
}, 120_000);

it('an If-Match PATCH racing a DELETE of its task over two processes: 200 or 404 Task not found, never 412', async () => {
  const tally: Record<string, number> = {};
  for (let round = 0; round < 4 * ROUNDS; round++) {
    const { id, etag } = await createTask(`Doomed ${round}`);
    const [patch, del] = await Promise.all([
      call(procs.servers[round % 2], 'PATCH', `/api/v1/tasks/${id}`, { title: 'Edited' } satisfies Schema<'UpdateTask'>, { 'if-match': etag }),
      call(procs.servers[(round + 1) % 2], 'DELETE', `/api/v1/tasks/${id}`),
    ]);
    expect(del.status).toBe(204);
    tally[`${patch.status} ${patch.status === 200 ? '' : patch.body}`] = (tally[`${patch.status} ${patch.status === 200 ? '' : patch.body}`] ?? 0) + 1;
  }
  expect(Object.keys(tally).filter((k) => k !== '200 ' && k !== '404 {"error":"Task not found"}')).toEqual([]);
}, 120_000);
