import fc from 'fast-check';

import { Schema } from '../setup/api-types';
import { auth } from '../setup/create-app';
import { roleKeys, useRoleWorld, WorldRole } from '../setup/world';

/**
 * Typed custom-field values on create and update task (D42, with D13): the
 * table of accepted texts, what is stored, each type's message, the order of
 * the checks (after D3 step 8, before step 9, one element at a time in array
 * order), and the elements that are ignored and never validated. The table is
 * also checked as a property (fast-check) against a reference predicate
 * written here, independently of the implementation.
 */

const PREFIX = 'cfv';
const { key } = roleKeys(PREFIX);
const DROPDOWN_OPTIONS = ['Low', 'High', 'a,b', 'ünï'];

type Json = Record<string, unknown>;
type Entry = Schema<'CustomFieldEntry'>;
type Value = Schema<'CustomFieldValueInput'>['value'];

describe('typed custom-field values (D42)', () => {
  const { t, ids } = useRoleWorld(PREFIX, (b) => ({
    workspaces: [
      b.team('vals', {
        statuses: [
          { ref: 'v_todo', name: 'To Do', category: 'pending' },
          { ref: 'v_done', name: 'Done', category: 'completed' },
        ],
        folders: [{ ref: 'v_folder', name: 'F', lists: [{ ref: 'l1', name: 'L1' }] }],
        lists: [{ ref: 'l2', name: 'L2' }],
        custom_fields: [
          { ref: 'f_text', name: 'Text', type: 'text', position: 1 },
          { ref: 'f_num', name: 'Number', type: 'number', position: 2 },
          { ref: 'f_money', name: 'Money', type: 'money', position: 3, config: { currency: 'EUR', decimals: 2 } },
          { ref: 'f_money0', name: 'Yen', type: 'money', position: 4, config: { currency: 'JPY', decimals: 0 } },
          { ref: 'f_date', name: 'Date', type: 'date', position: 5 },
          { ref: 'f_check', name: 'Check', type: 'checkbox', position: 6 },
          { ref: 'f_rating', name: 'Rating', type: 'rating', position: 7, config: { iconName: 'star', color: null } },
          { ref: 'f_drop', name: 'Drop', type: 'dropdown', position: 8, config: { options: DROPDOWN_OPTIONS } },
          { ref: 'f_people', name: 'People', type: 'people', position: 9 },
          // Applies to L1 only (its folder is granted).
          { ref: 'f_scoped', name: 'Scoped', type: 'number', position: 10, is_scope_restricted: true, granted_folders: ['v_folder'] },
          // Visible to the member only.
          { ref: 'f_secret', name: 'Secret', type: 'number', position: 11, allowed_users: [b.user('member')] },
        ],
        tasks: [
          { ref: 'v_task', list: 'l1', title: 'Valued', custom_fields: [{ field: 'f_text', value: 'kept' }] },
          { ref: 'v_task2', list: 'l2', title: 'Elsewhere' },
          { ref: 'v_parent', list: 'l1', title: 'Parent', custom_fields: [{ field: 'f_rating', value: 'legacy' }] },
          { ref: 'v_sub', parent: 'v_parent', list: 'l1', title: 'Sub' },
        ],
      }),
    ],
  }));

  const patch = async (task: number, body: Json, role: WorldRole = 'owner') => {
    const res = await t.inject({ method: 'PATCH', url: `/api/v1/tasks/${task}`, headers: auth(key(role)), payload: body });
    return { status: res.statusCode, body: res.json() as Json };
  };
  const create = async (body: Json, role: WorldRole = 'owner') => {
    const res = await t.inject({ method: 'POST', url: '/api/v1/tasks', headers: auth(key(role)), payload: { list_id: ids.l1, title: 'New', ...body } });
    return { status: res.statusCode, body: res.json() as Json };
  };
  const valueOf = (task: Json, field: number) => (task.custom_fields as Entry[]).find((f) => f.id === field)?.value;
  const stored = async (task: number, field: number) =>
    ((await t.db.ds.query(`SELECT value FROM task_custom_field_values WHERE task_id = $1 AND field_id = $2`, [task, field])) as Array<{ value: string }>)[0]
      ?.value ?? null;
  const setValue = (field: string, value: unknown) => patch(ids.v_task, { custom_fields: [{ id: ids[field], value }] });
  const lastEventId = async () => Number((await t.db.ds.query(`SELECT COALESCE(MAX(id), 0) AS id FROM events`))[0].id);
  const message = (field: string, rule: string) => `custom_fields value for field ${ids[field]} must be ${rule}`;

  describe('fields that apply through the folder (D19)', () => {
    const fieldIdsOf = async (task: number) => {
      const res = await t.inject({ method: 'GET', url: `/api/v1/tasks/${task}`, headers: auth(key('member')) });
      expect(res.statusCode).toBe(200);
      return (res.json() as Schema<'Task'>).custom_fields.map((f) => f.id);
    };

    it('get task shows a field granted to the folder of the task\u2019s list, and not on a list outside it', async () => {
      // The folder's id and its list's differ, so that a folder read from the wrong column shows.
      expect(ids.v_folder).not.toBe(ids.l1);
      expect(await fieldIdsOf(ids.v_task)).toContain(ids.f_scoped);
      expect(await fieldIdsOf(ids.v_task2)).not.toContain(ids.f_scoped);
    });
  });

  describe('the table: accepted texts and what is stored', () => {
    it.each([
      ['f_text', 'anything at all', 'anything at all'],
      ['f_text', '', ''],
      ['f_text', 12.5, '12.5'],
      ['f_num', '0', '0'],
      ['f_num', '-12.50', '-12.50'],
      ['f_num', '-0', '-0'],
      ['f_num', 5.0, '5'],
      ['f_num', 1e2, '100'],
      ['f_num', -0, '0'],
      ['f_num', 0.000001, '0.000001'],
      ['f_money', '19.99', '19.99'],
      ['f_money', '19.9', '19.9'],
      ['f_money', '-3', '-3'],
      ['f_money', 7.25, '7.25'],
      ['f_money0', '1000', '1000'],
      ['f_date', '2025-01-15', '2025-01-15T00:00:00.000Z'],
      ['f_date', '2025-01-15T10:30', '2025-01-15T10:30:00.000Z'],
      ['f_date', '2025-01-15T10:30:00+02:00', '2025-01-15T08:30:00.000Z'],
      ['f_date', '2024-02-29T23:59:59.123456-01:30', '2024-03-01T01:29:59.123Z'],
      ['f_check', 'true', 'true'],
      ['f_check', false, 'false'],
      ['f_rating', '0', '0'],
      ['f_rating', 5, '5'],
      ['f_rating', 3.0, '3'],
      ['f_drop', 'High', 'High'],
      ['f_drop', 'a,b', 'a,b'],
      ['f_drop', 'ünï', 'ünï'],
    ] satisfies Array<[string, Value, string]>)('%s %p is stored as %p', async (field, value, expected) => {
      const res = await setValue(field, value);
      expect(res.status).toBe(200);
      expect(valueOf(res.body, ids[field])).toBe(expected);
      expect(await stored(ids.v_task, ids[field])).toBe(expected);
    });

    it('people: current members (viewers included), distinct, in numeric order', async () => {
      const members = [ids.viewer, ids.admin, ids.viewer, ids.owner].map(String).join(',');
      const res = await setValue('f_people', members);
      expect(res.status).toBe(200);
      expect(valueOf(res.body, ids.f_people)).toBe([...new Set([ids.viewer, ids.admin, ids.owner])].sort((a, b) => a - b).join(','));
      expect((await setValue('f_people', ids.member satisfies Value)).body.custom_fields).toContainEqual({
        id: ids.f_people,
        name: 'People',
        type: 'people',
        config: null,
        position: 9,
        value: String(ids.member),
      } satisfies Entry);
    });

    it.each(['f_num', 'f_money', 'f_date', 'f_check', 'f_rating', 'f_drop', 'f_people'])('"" clears a %s value; null clears every type', async (field) => {
      const valid: Record<string, Value> = {
        f_num: '1',
        f_money: '1',
        f_date: '2025-01-01',
        f_check: 'true',
        f_rating: '1',
        f_drop: 'Low',
        f_people: String(ids.owner),
      };
      expect((await setValue(field, valid[field])).status).toBe(200);
      expect(await stored(ids.v_task, ids[field])).not.toBeNull();
      expect(valueOf((await setValue(field, '')).body, ids[field])).toBeNull();
      expect(await stored(ids.v_task, ids[field])).toBeNull();
      expect((await setValue(field, valid[field])).status).toBe(200);
      expect(valueOf((await setValue(field, null)).body, ids[field])).toBeNull();
    });
  });

  describe('each type\u2019s message', () => {
    it.each([
      ['f_num', 'abc', 'a number'],
      ['f_num', '1.', 'a number'],
      ['f_num', '.5', 'a number'],
      ['f_num', '01', 'a number'],
      ['f_num', '+1', 'a number'],
      ['f_num', ' 1', 'a number'],
      ['f_num', '1e3', 'a number'],
      ['f_num', 1e21, 'a number'],
      ['f_num', true, 'a number'],
      ['f_money', '1.999', 'a number with at most 2 decimals'],
      ['f_money', 'EUR 1', 'a number with at most 2 decimals'],
      ['f_money', 0.125, 'a number with at most 2 decimals'],
      ['f_money0', '1.5', 'a number with at most 0 decimals'],
      ['f_money0', '1.0', 'a number with at most 0 decimals'],
      ['f_date', '2025-02-30', 'an ISO 8601 date'],
      ['f_date', '15/01/2025', 'an ISO 8601 date'],
      ['f_date', '2025-01-15T10:30:00.1234567Z', 'an ISO 8601 date'],
      ['f_date', 20250115, 'an ISO 8601 date'],
      ['f_check', 'True', 'true or false'],
      ['f_check', '1', 'true or false'],
      ['f_check', 1, 'true or false'],
      ['f_rating', '6', 'an integer from 0 to 5'],
      ['f_rating', '-1', 'an integer from 0 to 5'],
      ['f_rating', '2.5', 'an integer from 0 to 5'],
      ['f_rating', '05', 'an integer from 0 to 5'],
      ['f_rating', 4.5, 'an integer from 0 to 5'],
      ['f_drop', 'low', "one of the field's options"],
      ['f_drop', ' Low', "one of the field's options"],
      ['f_drop', 'a', "one of the field's options"],
      ['f_people', 'x', 'a comma-separated list of member user IDs'],
      ['f_people', '0', 'a comma-separated list of member user IDs'],
      ['f_people', '1,', 'a comma-separated list of member user IDs'],
      ['f_people', '1, 2', 'a comma-separated list of member user IDs'],
      ['f_people', '99999999', 'a comma-separated list of member user IDs'],
      ['f_people', '99999999999999999999', 'a comma-separated list of member user IDs'],
    ])('%s %p: 400 must be %s; nothing written, no event', async (field, value, rule) => {
      const before = {
        title: (await t.db.ds.query(`SELECT title, updated_at FROM tasks WHERE id = $1`, [ids.v_task]))[0],
        value: await stored(ids.v_task, ids[field]),
        event: await lastEventId(),
      };
      expect(await patch(ids.v_task, { title: 'Changed', custom_fields: [{ id: ids[field], value }] })).toEqual({
        status: 400,
        body: { error: message(field, rule) },
      });
      expect((await t.db.ds.query(`SELECT title, updated_at FROM tasks WHERE id = $1`, [ids.v_task]))[0]).toEqual(before.title);
      expect(await stored(ids.v_task, ids[field])).toBe(before.value);
      expect(await lastEventId()).toBe(before.event);
    });

    it('people: a non-member (the outsider) is refused', async () => {
      expect(await setValue('f_people', `${ids.owner},${ids.outsider}`)).toEqual({
        status: 400,
        body: { error: message('f_people', 'a comma-separated list of member user IDs') },
      });
    });

    it('D13\u2019s value rules answer for applicable elements, at the same place', async () => {
      expect(await setValue('f_num', { a: 1 })).toEqual({ status: 400, body: { error: 'custom_fields value must be a string or null' } });
      expect(await setValue('f_text', ['x'])).toEqual({ status: 400, body: { error: 'custom_fields value must be a string or null' } });
      expect(await setValue('f_text', 'x'.repeat(10_001))).toEqual({ status: 400, body: { error: 'custom_fields value must be at most 10000 characters' } });
      expect(await setValue('f_text', 'a\u0000b')).toEqual({ status: 400, body: { error: 'custom_fields value must not contain NUL characters' } });
    });
  });

  describe('the order of the checks', () => {
    it('one element at a time, in array order: the first bad one answers', async () => {
      const bad = [
        { id: ids.f_num, value: 'x' },
        { id: ids.f_rating, value: '9' },
        { id: ids.f_text, value: {} },
      ];
      expect(await patch(ids.v_task, { custom_fields: bad })).toEqual({ status: 400, body: { error: message('f_num', 'a number') } });
      expect(await patch(ids.v_task, { custom_fields: [...bad].reverse() })).toEqual({
        status: 400,
        body: { error: 'custom_fields value must be a string or null' },
      });
      expect(await patch(ids.v_task, { custom_fields: [bad[1], bad[0]] })).toEqual({
        status: 400,
        body: { error: message('f_rating', 'an integer from 0 to 5') },
      });
      // Valid elements before a bad one are not written either.
      expect(await patch(ids.v_task, { custom_fields: [{ id: ids.f_num, value: '77' }, bad[1]] })).toMatchObject({ status: 400 });
      expect(await stored(ids.v_task, ids.f_num)).not.toBe('77');
      // Every element is checked, even one for a field sent again later with a good value.
      expect(await patch(ids.v_task, { custom_fields: [bad[0], { id: ids.f_num, value: '1' }] })).toEqual({
        status: 400,
        body: { error: message('f_num', 'a number') },
      });
    });

    it('after every step 8 check (create: status, parent; update: list, status), before step 9 (create: a parent that is a subtask)', async () => {
      const bad = [{ id: ids.f_num, value: 'x' }];
      expect(await create({ status_id: ids.todo, custom_fields: bad })).toEqual({ status: 404, body: { error: 'Status not found in this workspace' } });
      expect(await create({ parent_id: ids.t_backlog, custom_fields: bad })).toEqual({ status: 404, body: { error: 'Parent task not found' } });
      expect(await create({ parent_id: ids.v_sub, custom_fields: bad })).toEqual({ status: 400, body: { error: message('f_num', 'a number') } });
      expect(await create({ parent_id: ids.v_sub, custom_fields: [{ id: ids.f_num, value: '1' }] })).toEqual({
        status: 400,
        body: { error: 'Subtasks cannot have subtasks' },
      });
      expect(await create({ priority: 'x', custom_fields: bad })).toEqual({
        status: 400,
        body: { error: 'Invalid priority. Must be one of: urgent, high, medium, low, none' },
      });
      expect(await patch(ids.v_task, { list_id: ids.backlog, custom_fields: bad })).toEqual({
        status: 404,
        body: { error: 'List not found in this workspace' },
      });
      expect(await patch(ids.v_task, { status_id: ids.todo, custom_fields: bad })).toEqual({
        status: 404,
        body: { error: 'Status not found in this workspace' },
      });
      expect(await patch(ids.v_task, { priority: 'x', custom_fields: bad })).toEqual({
        status: 400,
        body: { error: 'Invalid priority. Must be one of: urgent, high, medium, low, none' },
      });
      // A role answer (step 6) before everything.
      expect(await patch(ids.v_task, { custom_fields: bad }, 'viewer')).toEqual({ status: 403, body: { error: 'Viewers cannot edit tasks' } });
    });

    it('a create with good values stores them, normalised', async () => {
      const res = await create({
        custom_fields: [
          { id: ids.f_date, value: '2025-06-01T12:00+02:00' },
          { id: ids.f_people, value: `${ids.member},${ids.owner}` },
          { id: ids.f_check, value: '' },
        ],
      } satisfies Partial<Schema<'CreateTask'>>);
      expect(res.status).toBe(201);
      expect(valueOf(res.body, ids.f_date)).toBe('2025-06-01T10:00:00.000Z');
      expect(valueOf(res.body, ids.f_people)).toBe([ids.member, ids.owner].sort((a, b) => a - b).join(','));
      expect(valueOf(res.body, ids.f_check)).toBeNull();
    });

    it('the If-Match precondition is evaluated after the values (a bad value answers 400 even with a stale tag)', async () => {
      const res = await t.inject({
        method: 'PATCH',
        url: `/api/v1/tasks/${ids.v_task}`,
        headers: { ...auth(key('owner')), 'if-match': '"stale"' },
        payload: { custom_fields: [{ id: ids.f_num, value: 'x' }] },
      });
      expect([res.statusCode, res.json()]).toEqual([400, { error: message('f_num', 'a number') }]);
      const good = await t.inject({
        method: 'PATCH',
        url: `/api/v1/tasks/${ids.v_task}`,
        headers: { ...auth(key('owner')), 'if-match': '"stale"' },
        payload: { custom_fields: [{ id: ids.f_num, value: '3' }] } satisfies Schema<'UpdateTask'>,
      });
      expect(good.statusCode).toBe(412);
    });
  });

  describe('concurrency', () => {
    it('a value write waits for a definition change in progress and is judged against its result (an option removed meanwhile is refused)', async () => {
      const runner = t.db.ds.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      try {
        await runner.query(`UPDATE custom_fields SET config = $1 WHERE id = $2`, [JSON.stringify({ options: ['Low', 'a,b', 'ünï'] }), ids.f_drop]);
        let settled = false;
        const pending = setValue('f_drop', 'High').finally(() => (settled = true));
        // Until the write waits on the field's row lock (or answered without waiting: then it was judged too early).
        const waiting = async () =>
          (await t.db.ds.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`))[0].n > 0;
        for (let i = 0; i < 200 && !settled && !(await waiting()); i++) await new Promise((resolve) => setTimeout(resolve, 25));
        expect(settled).toBe(false);
        await runner.commitTransaction();
        expect(await pending).toEqual({ status: 400, body: { error: message('f_drop', "one of the field's options") } });
      } finally {
        if (runner.isTransactionActive) await runner.rollbackTransaction();
        await t.db.ds.query(`UPDATE custom_fields SET config = $1 WHERE id = $2`, [JSON.stringify({ options: DROPDOWN_OPTIONS }), ids.f_drop]);
        await runner.release();
      }
      expect((await setValue('f_drop', 'High')).status).toBe(200);
    });
  });

  describe('ignored elements are never validated', () => {
    it('a field that does not apply to the task\u2019s list, one the caller may not see, or of no field: ignored, whatever the value', async () => {
      for (const value of ['x', { a: 1 }, ['x'], 'x'.repeat(10_001), 'a\u0000']) {
        const res = await patch(ids.v_task2, {
          title: 'Still fine',
          custom_fields: [
            { id: ids.f_scoped, value },
            { id: ids.f_secret, value },
            { id: 99999999, value },
            { id: ids.notes, value },
          ],
        });
        expect([JSON.stringify(value).slice(0, 20), res.status]).toEqual([JSON.stringify(value).slice(0, 20), 200]);
      }
      expect(await stored(ids.v_task2, ids.f_scoped)).toBeNull();
      expect(await stored(ids.v_task2, ids.f_secret)).toBeNull();
      // The member sees the secret field, so it is judged for them.
      expect(await patch(ids.v_task2, { custom_fields: [{ id: ids.f_secret, value: 'x' }] }, 'member')).toEqual({
        status: 400,
        body: { error: message('f_secret', 'a number') },
      });
    });

    it('judged against the list after the write: a move makes a field apply, or stop applying', async () => {
      // v_task2 (L2) moves to L1, where f_scoped applies.
      expect(await patch(ids.v_task2, { list_id: ids.l1, custom_fields: [{ id: ids.f_scoped, value: 'x' }] })).toEqual({
        status: 400,
        body: { error: message('f_scoped', 'a number') },
      });
      const moved = await patch(ids.v_task2, { list_id: ids.l1, custom_fields: [{ id: ids.f_scoped, value: '4' }] } satisfies Schema<'UpdateTask'>);
      expect(moved.status).toBe(200);
      expect(valueOf(moved.body, ids.f_scoped)).toBe('4');
      // Back to L2: f_scoped no longer applies; its value is kept but hidden, and a bad one is ignored.
      const back = await patch(ids.v_task2, { list_id: ids.l2, custom_fields: [{ id: ids.f_scoped, value: 'x' }] });
      expect(back.status).toBe(200);
      expect(valueOf(back.body, ids.f_scoped)).toBeUndefined();
      expect(await stored(ids.v_task2, ids.f_scoped)).toBe('4');
    });

    it('values stored before are not re-checked; an element equal to a bad stored value is', async () => {
      expect(await stored(ids.v_parent, ids.f_rating)).toBe('legacy');
      expect(
        (await patch(ids.v_parent, { title: 'Untouched values', custom_fields: [{ id: ids.f_num, value: '1' }] } satisfies Schema<'UpdateTask'>)).status,
      ).toBe(200);

      expect(await stored(ids.v_parent, ids.f_rating)).toBe('legacy');
      expect(await patch(ids.v_parent, { custom_fields: [{ id: ids.f_rating, value: 'legacy' }] })).toEqual({
        status: 400,
        body: { error: message('f_rating', 'an integer from 0 to 5') },
      });
    });
  });

  describe('property: the table against a reference predicate (fast-check)', () => {
    /** A JSON value as D13 writes it as text (ECMAScript Number#toString; -0 is "0"). */
    const asText = (v: string | number | boolean): string => (typeof v === 'number' ? (Object.is(v, -0) ? '0' : v.toString()) : String(v));

    /** Decimal digits only, at least one. */
    const digitsOnly = (s: string) => s.length > 0 && [...s].every((c) => c >= '0' && c <= '9');
    /** The number pattern by hand: optional '-', an integer part without leading zeros, an optional non-empty fraction; returns the fraction's length or -1. */
    function fractionOf(s: string): number {
      const body = s.startsWith('-') ? s.slice(1) : s;
      const dot = body.indexOf('.');
      const whole = dot < 0 ? body : body.slice(0, dot);
      const fraction = dot < 0 ? '' : body.slice(dot + 1);
      if (!digitsOnly(whole) || (whole.length > 1 && whole[0] === '0')) return -1;
      if (dot >= 0 && !digitsOnly(fraction)) return -1;
      return fraction.length;
    }
    /** D11 by hand: the accepted forms, a real calendar date and time, normalised to UTC with milliseconds. */
    function dateOf(s: string): string | null {
      const m = /^(\d{4})-(\d\d)-(\d\d)(?:T(\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,6}))?)?)?(Z|([+-])(\d\d):(\d\d))?$/.exec(s);
      if (!m) return null;
      const [y, mo, d, h = 0, mi = 0, se = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((x) => (x === undefined ? undefined : Number(x))) as number[];
      const ms = m[7] ? Number((m[7] + '00').slice(0, 3)) : 0;
      const probe = new Date(Date.UTC(2000, mo - 1, d));
      const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
      if (mo < 1 || mo > 12 || d < 1 || probe.getUTCMonth() !== mo - 1 || (mo === 2 && d === 29 && !leap)) return null;
      if (h > 23 || mi > 59 || se > 59) return null;
      let offset = 0;
      if (m[9]) {
        if (Number(m[10]) > 23 || Number(m[11]) > 59) return null;
        offset = (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]));
      }
      const instant = new Date(0);
      instant.setUTCFullYear(y, mo - 1, d);
      instant.setUTCHours(h, mi, se, ms);
      return new Date(instant.getTime() - offset * 60_000).toISOString();
    }

    /** What D42's table says of `text` for a field of `type`: ['ok', stored] or ['bad', rule]. */
    function reference(type: string, text: string, members: Set<number>): ['ok', string | null] | ['bad', string] {
      if (type === 'text') return ['ok', text];
      if (text === '') return ['ok', null];
      switch (type) {
        case 'number':
          return fractionOf(text) >= 0 ? ['ok', text] : ['bad', 'a number'];
        case 'money':
          return fractionOf(text) >= 0 && fractionOf(text) <= 2 ? ['ok', text] : ['bad', 'a number with at most 2 decimals'];
        case 'date': {
          const date = dateOf(text);
          return date ? ['ok', date] : ['bad', 'an ISO 8601 date'];
        }
        case 'checkbox':
          return text === 'true' || text === 'false' ? ['ok', text] : ['bad', 'true or false'];
        case 'rating':
          return ['0', '1', '2', '3', '4', '5'].includes(text) ? ['ok', text] : ['bad', 'an integer from 0 to 5'];
        case 'dropdown':
          return DROPDOWN_OPTIONS.includes(text) ? ['ok', text] : ['bad', "one of the field's options"];
        case 'people': {
          const parts = text.split(',');
          if (!parts.every((p) => digitsOnly(p) && p[0] !== '0') || !parts.every((p) => members.has(Number(p))))
            return ['bad', 'a comma-separated list of member user IDs'];
          return ['ok', [...new Set(parts.map(Number))].sort((a, b) => a - b).join(',')];
        }
      }
      throw new Error(type);
    }

    /** A field of every type of the document: a type added there fails the typecheck here. */
    const FIELDS: Record<string, string> = {
      text: 'f_text',
      number: 'f_num',
      money: 'f_money',
      date: 'f_date',
      checkbox: 'f_check',
      rating: 'f_rating',
      dropdown: 'f_drop',
      people: 'f_people',
    } satisfies Record<Entry['type'], string>;
    const digits = fc.string({ unit: fc.constantFrom('0', '1', '2', '5', '9'), minLength: 1, maxLength: 4 });
    const numberish = fc
      .tuple(fc.constantFrom('', '-', '+'), digits, fc.option(fc.string({ unit: fc.constantFrom('0', '3', '7'), maxLength: 4 }), { nil: undefined }))
      .map(([sign, whole, fraction]) => `${sign}${whole}${fraction === undefined ? '' : `.${fraction}`}`);
    const two = (min: number, max: number) => fc.integer({ min, max }).map((n) => String(n).padStart(2, '0'));
    const dateish = fc
      .tuple(
        fc.integer({ min: 1990, max: 2030 }),
        two(0, 13),
        two(0, 32),
        fc.option(
          fc.tuple(
            two(0, 24),
            two(0, 60),
            fc.option(two(0, 60), { nil: undefined }),
            fc.option(fc.string({ unit: fc.constantFrom('0', '5', '9'), minLength: 1, maxLength: 7 }), { nil: undefined }),
          ),
          { nil: undefined },
        ),
        fc.constantFrom('', 'Z', '+02:00', '-05:30', '+24:00', 'z'),
      )
      .map(([y, mo, d, time, zone]) => {
        let s = `${y}-${mo}-${d}`;
        if (time) s += `T${time[0]}:${time[1]}${time[2] === undefined ? '' : `:${time[2]}${time[3] === undefined ? '' : `.${time[3]}`}`}`;
        return s + zone;
      });
    const value = (memberIds: number[]): fc.Arbitrary<Exclude<Value, null>> =>
      fc.oneof(
        numberish,
        dateish,
        fc.constantFrom('', 'true', 'false', 'True', '0', '5', '6', '-1', '05', ...DROPDOWN_OPTIONS, 'low', 'a', ' High'),
        fc
          .array(fc.constantFrom(...memberIds.map(String), '0', '99999', ids.outsider ? String(ids.outsider) : '1', '', ' 1'), { minLength: 1, maxLength: 4 })
          .map((xs) => xs.join(',')),
        fc.integer({ min: -10, max: 10 }),
        fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
        fc.boolean(),
        fc.string({ maxLength: 8 }).filter((s) => !s.includes('\u0000')),
      );

    it.each(Object.keys(FIELDS))('%s: the API agrees with the reference on every value', async (type) => {
      const members = (await t.db.ds.query(`SELECT user_id FROM workspace_members WHERE workspace_id = $1`, [ids.vals])).map(
        (r: { user_id: number }) => r.user_id,
      ) as number[];
      const memberSet = new Set(members);
      const field = ids[FIELDS[type]];
      await fc.assert(
        fc.asyncProperty(value(members), async (v) => {
          const res = await patch(ids.v_task, { custom_fields: [{ id: field, value: v }] } satisfies Schema<'UpdateTask'>);

          const [verdict, detail] = reference(type, asText(v), memberSet);
          const seen = verdict === 'ok' ? [res.status, valueOf(res.body, field)] : [res.status, res.body];
          const expected = verdict === 'ok' ? [200, detail] : [400, { error: `custom_fields value for field ${field} must be ${detail}` }];
          if (JSON.stringify(seen) !== JSON.stringify(expected))
            throw new Error(`${JSON.stringify(v)}: got ${JSON.stringify(seen)}, expected ${JSON.stringify(expected)}`);
        }),
        { seed: 4242, numRuns: 120 },
      );
    });
  });
});
