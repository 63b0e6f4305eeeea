import { TASK_WRITE_COLUMNS } from '../../src/tasks/tasks.sql';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { loadRoleWorld, RoleWorld } from '../setup/world';

/**
 * Issue 33 "done when": a task field is the migration, the DTO property and one field-table
 * row, and an update of it alone records its event. For every column the task field table
 * writes (TASK_WRITE_COLUMNS, read here, not listed), PATCH that field alone and expect
 * exactly one `task.updated` naming it: a row added to the table is covered without a
 * change here, unless its SQL type is new (then `valueFor` fails, naming it).
 */
describe('every written task field records task.updated when it alone changes (D37)', () => {
  let t: TestApp;
  let w: RoleWorld;
  let task: number;
  let cursor = 0;

  /** A value the update body accepts for `column` that differs from the task's (the references: another row of the world). */
  const valueFor = (column: string, cast: string): unknown => {
    const references: Record<string, () => unknown> = { list_id: () => w.ids.inbox, status_id: () => w.ids.review, priority: () => 'high' };
    if (references[column]) return references[column]();
    const byType: Record<string, unknown> = {
      text: `new ${column}`,
      timestamptz: '2031-02-03T04:05:06.000Z',
      date: '2031-02-03',
      int: 7,
      integer: 7,
      boolean: true,
      numeric: 7,
    };
    if (!(cast in byType)) throw new Error(`no test value for the ${cast} column ${column}: add its SQL type here`);
    return byType[cast];
  };

  beforeAll(async () => {
    t = await createTestApp();
    w = await loadRoleWorld(t.db.ds, 'tfe');
    const res = await t.inject({ method: 'POST', url: '/api/v1/tasks', headers: auth(w.key('owner')), payload: { list_id: w.ids.backlog, title: 'Fields' } });
    expect(res.statusCode).toBe(201);
    task = res.json().id;
    const feed = await t.inject({ method: 'GET', url: `/api/v1/workspaces/${w.ids.ws}/events?limit=100`, headers: auth(w.key('owner')) });
    cursor = feed.json().next_after ?? 0;
  });
  afterAll(async () => {
    await t.close();
  });

  it('the table writes columns (the test below is not empty)', () => {
    expect(TASK_WRITE_COLUMNS.length).toBeGreaterThan(5);
  });

  it.each(TASK_WRITE_COLUMNS.map((c) => [c.column, c.cast]))('%s (%s)', async (column, cast) => {
    const res = await t.inject({ method: 'PATCH', url: `/api/v1/tasks/${task}`, headers: auth(w.key('owner')), payload: { [column]: valueFor(column, cast) } });
    expect(res.statusCode).toBe(200);
    const feed = await t.inject({ method: 'GET', url: `/api/v1/workspaces/${w.ids.ws}/events?after=${cursor}&limit=100`, headers: auth(w.key('owner')) });
    const events = feed.json().data as { type: string; data: { task_id: number; changes: string[] } }[];
    expect(events.map((e) => [e.type, e.data.task_id, e.data.changes])).toEqual([['task.updated', task, [column]]]);
    cursor = feed.json().next_after;
  });
});
