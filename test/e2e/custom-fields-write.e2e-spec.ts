import type { InjectOptions } from 'fastify';

import { Schema } from '../setup/api-types';
import { auth } from '../setup/create-app';
import { roleKeys, useRoleWorld, WorldRole } from '../setup/world';

/**
 * Custom-field definitions through the API (D39, D42) and their events (D48):
 * POST /api/v1/custom-fields, GET/PATCH/DELETE /api/v1/custom-fields/:id.
 * The checks every route makes (keys, scopes, path ids, non-members, roles)
 * are the route matrix's (route-matrix.e2e-spec.ts); this file holds the rules
 * of the bodies, their order, the answers and the events.
 */

const PREFIX = 'cfw';
const { key } = roleKeys(PREFIX);
const DEFINITION_KEYS = [
  'allowed_user_ids',
  'config',
  'granted_folder_ids',
  'id',
  'is_scope_restricted',
  'list_overrides',
  'name',
  'position',
  'type',
] satisfies Array<keyof Schema<'CustomField'>>;
const TYPES_MESSAGE = 'Invalid type. Must be one of: text, number, date, checkbox, rating, dropdown, money, people';
const OPTIONS_MESSAGE = 'config.options must be 1 to 50 distinct non-empty strings of at most 100 characters';

type Json = Record<string, unknown>;
/** A create body without the workspace_id `create` adds. */
type CreateBody = Omit<Schema<'CreateCustomField'>, 'workspace_id'>;
type Override = Schema<'CustomFieldListOverride'>;
const byList = (overrides: Override[]) => overrides.sort((a, b) => a.list_id - b.list_id);

describe('custom-field definitions (D42)', () => {
  const { t, ids } = useRoleWorld(PREFIX, (b) => ({
    workspaces: [b.team('second', { folders: [{ ref: 's_folder', name: 'S', lists: [{ ref: 's_list', name: 'S' }] }] })],
  }));

  const call = async (method: InjectOptions['method'], url: string, payload?: unknown, role: WorldRole = 'owner') => {
    const res = await t.inject({ method, url, headers: auth(key(role)), ...(payload === undefined ? {} : { payload: payload as Json }) });
    return { status: res.statusCode, body: res.statusCode === 204 ? null : (res.json() as Json) };
  };
  const create = (body: Json, role: WorldRole = 'owner') => call('POST', '/api/v1/custom-fields', { workspace_id: ids.ws, ...body }, role);
  const get = (id: number, role: WorldRole = 'owner') => call('GET', `/api/v1/custom-fields/${id}`, undefined, role);
  const patch = (id: number, body: unknown, role: WorldRole = 'owner') => call('PATCH', `/api/v1/custom-fields/${id}`, body, role);
  const remove = (id: number, role: WorldRole = 'owner') => call('DELETE', `/api/v1/custom-fields/${id}`, undefined, role);
  let counter = 0;
  const unique = (name = 'Field') => `${name} ${++counter}`;
  const maxPosition = async (ws = ids.ws) =>
    (await t.db.ds.query(`SELECT COALESCE(MAX(position), 0) AS p FROM custom_fields WHERE workspace_id = $1`, [ws]))[0].p as number;
  const lastEventId = async () => Number((await t.db.ds.query(`SELECT COALESCE(MAX(id), 0) AS id FROM events`))[0].id);
  const feed = async (after: number, role: WorldRole = 'owner') => {
    const res = await t.inject({
      method: 'GET',
      url: `/api/v1/workspaces/${ids.ws}/events?after=${after}&limit=100&type=custom_field.created,custom_field.updated,custom_field.deleted`,
      headers: auth(key(role)),
    });
    expect(res.statusCode).toBe(200);
    return res.json().data as Array<Schema<'Event'>>;
  };

  describe('create', () => {
    it('201: the definition with exact keys, defaults filled, position max + 1 (D24)', async () => {
      const position = (await maxPosition()) + 1;
      const name = unique('  Effort ');
      const res = await create({ name, type: 'text' } satisfies CreateBody);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        name: name.trim(),
        type: 'text',
        config: null,
        position,
        is_scope_restricted: false,
        granted_folder_ids: [],
        list_overrides: [],
        allowed_user_ids: null,
      } satisfies Schema<'CustomField'>);
      expect(Object.keys(res.body!).sort()).toEqual(DEFINITION_KEYS);
      const next = await create({ name: unique(), type: 'number' } satisfies CreateBody);
      expect(next.body!.position).toBe(position + 1);
      // Another workspace counts its own positions.
      const other = await call('POST', '/api/v1/custom-fields', {
        workspace_id: ids.second,
        name: unique(),
        type: 'checkbox',
      } satisfies Schema<'CreateCustomField'>);
      expect(other.body!.position).toBe(1);
    });

    it.each([
      ['text', undefined, null],
      ['number', null, null],
      ['date', undefined, null],
      ['checkbox', undefined, null],
      ['people', null, null],
      ['rating', undefined, { iconName: 'star', color: null }],
      ['rating', null, { iconName: 'star', color: null }],
      ['rating', {}, { iconName: 'star', color: null }],
      ['rating', { iconName: 'heart', color: 'red', size: 3 }, { iconName: 'heart', color: 'red' }],
      ['rating', { iconName: null, color: '' }, { iconName: 'star', color: '' }],
      ['dropdown', { options: [' Low ', 'High', 'high'], other: true }, { options: ['Low', 'High', 'high'] }],
      ['money', { currency: 'EUR', decimals: 2, symbol: '€' }, { currency: 'EUR', decimals: 2 }],
      ['money', { currency: 'JPY', decimals: 0 }, { currency: 'JPY', decimals: 0 }],
    ])('config of %s %p is stored as %p (defaults filled, other keys dropped)', async (type, config, stored) => {
      const res = await create({ name: unique(), type, ...(config === undefined ? {} : { config }) });
      expect(res.status).toBe(201);
      expect(res.body!.config).toEqual(stored);
      expect((await get(res.body!.id as number)).body!.config).toEqual(stored);
    });

    const long = (n: number) => 'x'.repeat(n);
    it.each([
      [{ name: undefined }, 'name is required'],
      [{ name: null }, 'name is required'],
      [{ name: '   ' }, 'name is required'],
      [{ name: 5 }, 'name is required'],
      [{ name: long(256) }, 'name must be at most 255 characters'],
      [{ name: '😀'.repeat(256) }, 'name must be at most 255 characters'],
      [{ name: 'a\u0000b' }, 'name must not contain NUL characters'],
      [{ type: undefined }, TYPES_MESSAGE],
      [{ type: null }, TYPES_MESSAGE],
      [{ type: 'Text' }, TYPES_MESSAGE],
      [{ type: ['text'] }, TYPES_MESSAGE],
      [{ type: 'dropdown' }, 'config must be an object for dropdown'],
      [{ type: 'dropdown', config: null }, 'config must be an object for dropdown'],
      [{ type: 'dropdown', config: ['a'] }, 'config must be an object for dropdown'],
      [{ type: 'dropdown', config: {} }, OPTIONS_MESSAGE],
      [{ type: 'dropdown', config: { options: [] } }, OPTIONS_MESSAGE],
      [{ type: 'dropdown', config: { options: 'a' } }, OPTIONS_MESSAGE],
      [{ type: 'dropdown', config: { options: ['a', ' a'] } }, OPTIONS_MESSAGE],
      [{ type: 'dropdown', config: { options: ['a', '  '] } }, OPTIONS_MESSAGE],
      [{ type: 'dropdown', config: { options: ['a', 1] } }, OPTIONS_MESSAGE],
      [{ type: 'dropdown', config: { options: [long(101)] } }, OPTIONS_MESSAGE],
      [{ type: 'dropdown', config: { options: Array.from({ length: 51 }, (_, i) => `o${i}`) } }, OPTIONS_MESSAGE],
      [{ type: 'dropdown', config: { options: ['a\u0000'] } }, OPTIONS_MESSAGE],
      [{ type: 'money' }, 'config must be an object for money'],
      [{ type: 'money', config: 'EUR' }, 'config must be an object for money'],
      [{ type: 'money', config: { decimals: 2 } }, 'config.currency must be a 3-letter ISO 4217 code'],
      [{ type: 'money', config: { currency: 'eur', decimals: 2 } }, 'config.currency must be a 3-letter ISO 4217 code'],
      [{ type: 'money', config: { currency: 'EURO', decimals: 'x' } }, 'config.currency must be a 3-letter ISO 4217 code'],
      [{ type: 'money', config: { currency: 'EUR' } }, 'config.decimals must be an integer from 0 to 6'],
      [{ type: 'money', config: { currency: 'EUR', decimals: 7 } }, 'config.decimals must be an integer from 0 to 6'],
      [{ type: 'money', config: { currency: 'EUR', decimals: 1.5 } }, 'config.decimals must be an integer from 0 to 6'],
      [{ type: 'money', config: { currency: 'EUR', decimals: '2' } }, 'config.decimals must be an integer from 0 to 6'],
      [{ type: 'rating', config: [] }, 'config must be an object for rating'],
      [{ type: 'rating', config: 'star' }, 'config must be an object for rating'],
      [{ type: 'rating', config: { iconName: '' } }, 'config.iconName must be a string of 1 to 64 characters'],
      [{ type: 'rating', config: { iconName: 7 } }, 'config.iconName must be a string of 1 to 64 characters'],
      [{ type: 'rating', config: { iconName: long(65) } }, 'config.iconName must be a string of 1 to 64 characters'],
      [{ type: 'rating', config: { color: 5 } }, 'config.color must be null or a string of at most 64 characters'],
      [{ type: 'rating', config: { color: long(65) } }, 'config.color must be null or a string of at most 64 characters'],
      [{ type: 'text', config: {} }, 'config must be null for text'],
      [{ type: 'people', config: [] }, 'config must be null for people'],
      [{ type: 'checkbox', config: false }, 'config must be null for checkbox'],
      [{ is_scope_restricted: 'yes' }, 'is_scope_restricted must be a boolean'],
      [{ is_scope_restricted: 1 }, 'is_scope_restricted must be a boolean'],
      [{ granted_folder_ids: 5 }, 'granted_folder_ids must be an array of folder IDs'],
      [{ granted_folder_ids: ['x'] }, 'granted_folder_ids must be an array of folder IDs'],
      [{ granted_folder_ids: [1, null] }, 'granted_folder_ids must be an array of folder IDs'],
      [{ list_overrides: {} }, 'list_overrides must be an array of {list_id, access} with access granted or denied'],
      [{ list_overrides: [1] }, 'list_overrides must be an array of {list_id, access} with access granted or denied'],
      [{ list_overrides: [{ list_id: 1 }] }, 'list_overrides must be an array of {list_id, access} with access granted or denied'],
      [{ list_overrides: [{ list_id: 'x', access: 'granted' }] }, 'list_overrides must be an array of {list_id, access} with access granted or denied'],
      [{ list_overrides: [{ list_id: 1, access: 'Granted' }] }, 'list_overrides must be an array of {list_id, access} with access granted or denied'],
      [
        {
          list_overrides: [
            { list_id: 1, access: 'granted' },
            { list_id: '1', access: 'denied' },
          ],
        },
        'list_overrides must be an array of {list_id, access} with access granted or denied',
      ],
      [{ allowed_user_ids: 'all' }, 'allowed_user_ids must be null or an array of user IDs'],
      [{ allowed_user_ids: [1.5] }, 'allowed_user_ids must be null or an array of user IDs'],
      [{ allowed_user_ids: {} }, 'allowed_user_ids must be null or an array of user IDs'],
    ])('400 for %p: %s', async (fields, message) => {
      const body: Json = { name: unique(), type: 'text', ...fields };
      for (const [k, v] of Object.entries(body)) if (v === undefined) delete body[k];
      const before = await lastEventId();
      expect(await create(body)).toEqual({ status: 400, body: { error: message } });
      expect(await lastEventId()).toBe(before);
    });

    it('counts lengths in code points (name, options, iconName, color)', async () => {
      const name = '😀'.repeat(254) + String(++counter % 10);
      const res = await create({ name, type: 'dropdown', config: { options: ['😀'.repeat(100)] } } satisfies CreateBody);
      expect(res).toMatchObject({ status: 201, body: { name, config: { options: ['😀'.repeat(100)] } } satisfies Partial<Schema<'CustomField'>> });
      expect(await create({ name: unique(), type: 'dropdown', config: { options: ['😀'.repeat(101)] } })).toEqual({
        status: 400,
        body: { error: OPTIONS_MESSAGE },
      });
      expect((await create({ name: unique(), type: 'rating', config: { iconName: '★'.repeat(64), color: '🎨'.repeat(64) } } satisfies CreateBody)).status).toBe(
        201,
      );
      expect(await create({ name: unique(), type: 'rating', config: { color: '🎨'.repeat(65) } })).toEqual({
        status: 400,
        body: { error: 'config.color must be null or a string of at most 64 characters' },
      });
    });

    it('checks the body in the order name, type, config, is_scope_restricted, granted_folder_ids, list_overrides, allowed_user_ids', async () => {
      const bad = { name: '', type: 'nope', config: 5, is_scope_restricted: 'x', granted_folder_ids: 'x', list_overrides: 'x', allowed_user_ids: 'x' };
      const order = [
        ['name', 'name is required'],
        ['type', TYPES_MESSAGE],
        ['config', 'config must be an object for dropdown'],
        ['is_scope_restricted', 'is_scope_restricted must be a boolean'],
        ['granted_folder_ids', 'granted_folder_ids must be an array of folder IDs'],
        ['list_overrides', 'list_overrides must be an array of {list_id, access} with access granted or denied'],
        ['allowed_user_ids', 'allowed_user_ids must be null or an array of user IDs'],
      ];
      const body: Json = { ...bad };
      for (const [field, message] of order) {
        expect([field, await create(body)]).toEqual([field, { status: 400, body: { error: message } }]);
        body[field] =
          field === 'name' ? unique() : field === 'type' ? 'dropdown' : field === 'config' ? { options: ['a'] } : field === 'is_scope_restricted' ? true : [];
      }
      expect((await create(body)).status).toBe(201);
    });

    it('workspace_id first (step 4), then membership and role (steps 5-6), then the body (step 7)', async () => {
      expect(await call('POST', '/api/v1/custom-fields', { name: '' })).toEqual({ status: 400, body: { error: 'workspace_id is required' } });
      expect(await call('POST', '/api/v1/custom-fields', { workspace_id: 'x', name: '' })).toEqual({
        status: 400,
        body: { error: 'workspace_id is required' },
      });
      expect(await create({ name: '' }, 'member')).toEqual({ status: 403, body: { error: 'Only owners and admins can manage custom fields' } });
      expect(await create({ name: '' }, 'outsider')).toEqual({ status: 404, body: { error: 'Workspace not found' } });
      expect(await create({ name: '' }, 'admin')).toEqual({ status: 400, body: { error: 'name is required' } });
    });

    it('step 8: granted folders, then override lists, of this workspace (404), after every body check', async () => {
      const base = { name: unique(), type: 'text' };
      expect(await create({ ...base, granted_folder_ids: [ids.eng, 99999999], list_overrides: [{ list_id: 99999999, access: 'granted' }] })).toEqual({
        status: 404,
        body: { error: 'Folder not found' },
      });
      expect(await create({ ...base, granted_folder_ids: [ids.s_folder] })).toEqual({ status: 404, body: { error: 'Folder not found' } });
      expect(await create({ ...base, granted_folder_ids: [0] })).toEqual({ status: 404, body: { error: 'Folder not found' } });
      expect(await create({ ...base, granted_folder_ids: [ids.eng], list_overrides: [{ list_id: ids.s_list, access: 'denied' }] })).toEqual({
        status: 404,
        body: { error: 'List not found' },
      });
      // A body error wins over an unknown folder (step 7 before step 8).
      expect(await create({ ...base, granted_folder_ids: [99999999], allowed_user_ids: 'x' })).toEqual({
        status: 400,
        body: { error: 'allowed_user_ids must be null or an array of user IDs' },
      });
    });

    it('step 9: names are unique in the workspace ignoring case and surrounding spaces (409), after step 8', async () => {
      expect(await create({ name: '  NOTES ', type: 'text' })).toEqual({ status: 409, body: { error: 'A custom field with this name already exists' } });
      expect(await create({ name: 'notes', type: 'number', granted_folder_ids: [99999999] })).toEqual({ status: 404, body: { error: 'Folder not found' } });
      // Another workspace may use the name.
      expect(
        (await call('POST', '/api/v1/custom-fields', { workspace_id: ids.second, name: 'Notes', type: 'text' } satisfies Schema<'CreateCustomField'>)).status,
      ).toBe(201);
    });

    it('names stay unique under concurrent creates: of 6 at once with one name, one 201 and five 409', async () => {
      const name = unique('Race');
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => create({ name: i % 2 ? name.toUpperCase() : ` ${name} `, type: 'text' })));
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
      for (const a of answers.filter((x) => x.status === 409)) expect(a.body).toEqual({ error: 'A custom field with this name already exists' });
    });

    it('sets: folders ascending and distinct, overrides by list_id, allowed users ascending with non-members dropped', async () => {
      const name = unique();
      const res = await create({
        name,
        type: 'number',
        is_scope_restricted: true,
        granted_folder_ids: [ids.ops, String(ids.eng), ids.ops],
        list_overrides: [
          { list_id: ids.loose, access: 'granted' },
          { list_id: String(ids.backlog), access: 'denied' },
        ],
        allowed_user_ids: [ids.viewer, ids.outsider, 99999999, String(ids.member), ids.viewer],
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        name,
        type: 'number',
        config: null,
        position: expect.any(Number),
        is_scope_restricted: true,
        granted_folder_ids: [ids.eng, ids.ops].sort((a, b) => a - b),
        list_overrides: byList([
          { list_id: ids.loose, access: 'granted' },
          { list_id: ids.backlog, access: 'denied' },
        ]),
        allowed_user_ids: [ids.member, ids.viewer].sort((a, b) => a - b),
      } satisfies Schema<'CustomField'>);
      expect(await get(res.body!.id as number)).toEqual({ status: 200, body: res.body });
      // The listing shows it to the allowed users only, without allowed_user_ids.
      const listed = async (role: WorldRole) => (await call('GET', `/api/v1/workspaces/${ids.ws}/custom-fields`, undefined, role)).body as unknown as Json[];
      const { allowed_user_ids: _, ...definition } = res.body as Schema<'CustomField'>;
      definition satisfies Schema<'CustomFieldDefinition'>;
      expect(await listed('member')).toContainEqual(definition);
      expect((await listed('owner')).map((f) => f.id)).not.toContain(res.body!.id);
    });

    it('huge arrays get their 4xx or are taken, never a 500: 10,000 grants, overrides and allowed users', async () => {
      const many = (n: number, f: (i: number) => unknown) => Array.from({ length: n }, (_, i) => f(i));
      expect(await create({ name: unique(), type: 'text', granted_folder_ids: many(10_000, (i) => 100_000_000 + i) })).toEqual({
        status: 404,
        body: { error: 'Folder not found' },
      });
      expect(await create({ name: unique(), type: 'text', list_overrides: many(10_000, (i) => ({ list_id: 100_000_000 + i, access: 'granted' })) })).toEqual({
        status: 404,
        body: { error: 'List not found' },
      });
      expect(await create({ name: unique(), type: 'text', list_overrides: many(10_000, () => ({ list_id: ids.loose, access: 'granted' })) })).toEqual({
        status: 400,
        body: { error: 'list_overrides must be an array of {list_id, access} with access granted or denied' },
      });
      const res = await create({
        name: unique(),
        type: 'text',
        granted_folder_ids: many(10_000, () => ids.eng),
        allowed_user_ids: many(10_000, (i) => (i % 2 ? ids.member : 100_000_000 + i)),
      });
      expect(res).toMatchObject({ status: 201, body: { granted_folder_ids: [ids.eng], allowed_user_ids: [ids.member] } });
      expect(await patch(res.body!.id as number, { granted_folder_ids: many(10_000, (i) => (i ? 'x' : ids.eng)) })).toEqual({
        status: 400,
        body: { error: 'granted_folder_ids must be an array of folder IDs' },
      });
    });

    it('allowed_user_ids [] means nobody, and managers still reach the field', async () => {
      const res = await create({ name: unique(), type: 'text', allowed_user_ids: [] } satisfies CreateBody);
      expect(res.body!.allowed_user_ids).toEqual([]);
      for (const role of ['owner', 'admin'] as const) expect((await get(res.body!.id as number, role)).status).toBe(200);
      expect(await get(res.body!.id as number, 'member')).toEqual({ status: 403, body: { error: 'Only owners and admins can manage custom fields' } });
    });

    it('takes an Idempotency-Key: a retry replays the answer, with one field and one event', async () => {
      const payload = { workspace_id: ids.ws, name: unique('Keyed'), type: 'rating' } satisfies Schema<'CreateCustomField'>;
      const send = () =>
        t.inject({
          method: 'POST',
          url: '/api/v1/custom-fields',
          headers: { ...auth(key('owner')), 'idempotency-key': `cf-${payload.name.replace(/ /g, '-')}` },
          payload,
        });
      const after = await lastEventId();
      const first = await send();
      const again = await send();
      expect(first.statusCode).toBe(201);
      expect([again.statusCode, again.headers['idempotent-replayed'], again.body]).toEqual([201, 'true', first.body]);
      expect(await t.db.ds.query(`SELECT count(*)::int AS n FROM custom_fields WHERE name = $1`, [payload.name])).toEqual([{ n: 1 }]);
      expect(await feed(after)).toHaveLength(1);
    });

    it('records custom_field.created by the caller, in the same transaction', async () => {
      const after = await lastEventId();
      const res = await create({ name: unique(), type: 'text' } satisfies CreateBody, 'admin');
      const events = await feed(after);
      expect(events).toEqual([
        expect.objectContaining({
          type: 'custom_field.created',
          workspace_id: ids.ws,
          actor: { user_id: ids.admin, api_key_id: expect.any(Number) },
          data: { custom_field_id: res.body!.id },
        }),
      ]);
    });
  });

  describe('update', () => {
    const fresh = async (body: Partial<CreateBody> = {}) =>
      (await create({ name: unique(), type: 'text', ...body } satisfies CreateBody)).body as Schema<'CustomField'>;

    it('type present with any value, null included, is 400 before every other body check', async () => {
      const field = await fresh();
      for (const type of [null, 'text', 'number']) {
        expect(await patch(field.id, { type, name: '', position: 'x' })).toEqual({ status: 400, body: { error: 'type cannot be changed' } });
      }
      // ... but after the role check.
      expect(await patch(field.id, { type: null }, 'member')).toEqual({ status: 403, body: { error: 'Only owners and admins can manage custom fields' } });
    });

    it.each([
      [{ name: '  ' }, 'name cannot be empty'],
      [{ name: 5 }, 'name must be a string'],
      [{ name: 'x'.repeat(256) }, 'name must be at most 255 characters'],
      [{ config: {} }, 'config must be null for text'],
      [{ is_scope_restricted: 'no' }, 'is_scope_restricted must be a boolean'],
      [{ granted_folder_ids: {} }, 'granted_folder_ids must be an array of folder IDs'],
      [{ list_overrides: [{ list_id: 1, access: 'x' }] }, 'list_overrides must be an array of {list_id, access} with access granted or denied'],
      [{ allowed_user_ids: [true] }, 'allowed_user_ids must be null or an array of user IDs'],
      [{ position: 1.5 }, 'position must be an integer'],
      [{ position: '2' }, 'position must be an integer'],
      [{ position: 2147483648 }, 'position must be an integer'],
      [{ name: '', position: 'x' }, 'name cannot be empty'],
      [{ allowed_user_ids: 'x', position: 'x' }, 'allowed_user_ids must be null or an array of user IDs'],
    ])('400 for %p: %s', async (body, message) => {
      const field = await fresh();
      expect(await patch(field.id, body)).toEqual({ status: 400, body: { error: message } });
      expect((await get(field.id)).body).toEqual(field);
    });

    it('config is judged by the stored type and replaces the whole config, defaults filled again', async () => {
      const rating = await fresh({ type: 'rating', config: { iconName: 'heart', color: 'red' } });
      expect((await patch(rating.id, { config: { color: 'blue' } } satisfies Schema<'UpdateCustomField'>)).body!.config).toEqual({
        iconName: 'star',
        color: 'blue',
      });
      expect((await patch(rating.id, { config: { iconName: 'flag' } } satisfies Schema<'UpdateCustomField'>)).body!.config).toEqual({
        iconName: 'flag',
        color: null,
      });
      expect((await patch(rating.id, { config: null } satisfies Schema<'UpdateCustomField'>)).body!.config).toEqual({ iconName: 'star', color: null });
      const dropdown = await fresh({ type: 'dropdown', config: { options: ['a'] } });
      expect(await patch(dropdown.id, { config: null })).toEqual({ status: 400, body: { error: 'config must be an object for dropdown' } });
      const renamed = unique();
      expect(await patch(dropdown.id, { name: renamed } satisfies Schema<'UpdateCustomField'>)).toEqual({ status: 200, body: { ...dropdown, name: renamed } });
      const money = await fresh({ type: 'money', config: { currency: 'USD', decimals: 2 } });
      expect(await patch(money.id, { config: null })).toEqual({ status: 400, body: { error: 'config must be an object for money' } });
      expect(await patch(money.id, { config: { currency: 'USD' } })).toEqual({
        status: 400,
        body: { error: 'config.decimals must be an integer from 0 to 6' },
      });
      const text = await fresh();
      expect(await patch(text.id, { config: null } satisfies Schema<'UpdateCustomField'>)).toEqual({ status: 200, body: { ...text, config: null } });
    });

    it('only the fields sent change; null counts as not sent (but allowed_user_ids null means everyone); the arrays replace', async () => {
      const field = await fresh({
        is_scope_restricted: true,
        granted_folder_ids: [ids.eng],
        list_overrides: [{ list_id: ids.inbox, access: 'granted' }],
        allowed_user_ids: [ids.member],
      });
      expect(await patch(field.id, { name: null, is_scope_restricted: null, granted_folder_ids: null, list_overrides: null, position: null })).toEqual({
        status: 200,
        body: field,
      });
      const res = await patch(field.id, {
        granted_folder_ids: [ids.ops],
        list_overrides: [
          { list_id: ids.backlog, access: 'denied' },
          { list_id: ids.inbox, access: 'denied' },
        ],
        position: 42,
      } satisfies Schema<'UpdateCustomField'>);
      const moved = {
        ...field,
        position: 42,
        granted_folder_ids: [ids.ops],
        list_overrides: byList([
          { list_id: ids.backlog, access: 'denied' },
          { list_id: ids.inbox, access: 'denied' },
        ]),
      } satisfies Schema<'CustomField'>;
      expect(res).toEqual({ status: 200, body: moved });
      expect(await get(field.id)).toEqual(res);
      expect((await patch(field.id, { allowed_user_ids: null } satisfies Schema<'UpdateCustomField'>)).body!.allowed_user_ids).toBeNull();
      expect((await patch(field.id, { allowed_user_ids: [ids.outsider] } satisfies Schema<'UpdateCustomField'>)).body!.allowed_user_ids).toEqual([]);
      const admitted = [ids.viewer, ids.admin].sort((a, b) => a - b);
      expect((await patch(field.id, { allowed_user_ids: [ids.viewer, ids.admin] } satisfies Schema<'UpdateCustomField'>)).body!.allowed_user_ids).toEqual(
        admitted,
      );
      expect(await get(field.id)).toEqual({ status: 200, body: { ...moved, allowed_user_ids: admitted } satisfies Schema<'CustomField'> });
      expect((await patch(field.id, { granted_folder_ids: [], list_overrides: [] } satisfies Schema<'UpdateCustomField'>)).body).toEqual({
        ...moved,
        allowed_user_ids: admitted,
        granted_folder_ids: [],
        list_overrides: [],
      } satisfies Schema<'CustomField'>);
    });

    it('step 8 then step 9: unknown folders and lists (404), then the name (409); a field may change its own name\u2019s case', async () => {
      const field = await fresh();
      expect(await patch(field.id, { name: 'NOTES', granted_folder_ids: [ids.s_folder] } satisfies Schema<'UpdateCustomField'>)).toEqual({
        status: 404,
        body: { error: 'Folder not found' },
      });
      expect(await patch(field.id, { list_overrides: [{ list_id: ids.o_list, access: 'granted' }] } satisfies Schema<'UpdateCustomField'>)).toEqual({
        status: 404,
        body: { error: 'List not found' },
      });
      expect(await patch(field.id, { name: ' notes ' } satisfies Schema<'UpdateCustomField'>)).toEqual({
        status: 409,
        body: { error: 'A custom field with this name already exists' },
      });
      const renamed = await patch(field.id, { name: ` ${field.name.toUpperCase()} ` } satisfies Schema<'UpdateCustomField'>);
      expect(renamed).toEqual({ status: 200, body: { ...field, name: field.name.toUpperCase() } satisfies Schema<'CustomField'> });
    });

    it('records custom_field.updated with the changed names, sorted; sets compare as sets; a no-op records nothing', async () => {
      const field = await fresh({
        granted_folder_ids: [ids.eng, ids.ops],
        list_overrides: [
          { list_id: ids.inbox, access: 'granted' },
          { list_id: ids.loose, access: 'denied' },
        ],
        allowed_user_ids: [ids.member, ids.viewer],
      });
      let after = await lastEventId();
      const same = {
        name: field.name,
        position: field.position,
        is_scope_restricted: false,
        config: null,
        granted_folder_ids: [ids.ops, ids.eng, ids.ops],
        list_overrides: [
          { list_id: ids.loose, access: 'denied' },
          { list_id: ids.inbox, access: 'granted' },
        ],
        allowed_user_ids: [ids.viewer, ids.member, ids.outsider],
      } satisfies Schema<'UpdateCustomField'>;
      expect((await patch(field.id, same)).status).toBe(200);
      expect((await patch(field.id, {})).status).toBe(200);
      expect(await feed(after)).toEqual([]);

      const changed = async (body: Schema<'UpdateCustomField'>, changes: Array<keyof Schema<'UpdateCustomField'>>) => {
        after = await lastEventId();
        expect((await patch(field.id, body)).status).toBe(200);
        expect((await feed(after)).map((e) => [e.type, e.data])).toEqual([['custom_field.updated', { custom_field_id: field.id, changes }]]);
      };
      await changed({ name: unique(), position: 99, is_scope_restricted: true }, ['is_scope_restricted', 'name', 'position']);
      await changed({ granted_folder_ids: [ids.eng] }, ['granted_folder_ids']);
      await changed(
        {
          list_overrides: [
            { list_id: ids.loose, access: 'granted' },
            { list_id: ids.inbox, access: 'granted' },
          ],
        },
        ['list_overrides'],
      );
      await changed({ allowed_user_ids: null }, ['allowed_user_ids']);
      await changed({ allowed_user_ids: [] }, ['allowed_user_ids']);
      await changed({ allowed_user_ids: [ids.admin], granted_folder_ids: [] }, ['allowed_user_ids', 'granted_folder_ids']);
      const rating = await fresh({ type: 'rating' });
      after = await lastEventId();
      expect((await patch(rating.id, { config: { iconName: 'star' } } satisfies Schema<'UpdateCustomField'>)).status).toBe(200);
      expect(await feed(after)).toEqual([]);
      expect((await patch(rating.id, { config: { color: 'red' } } satisfies Schema<'UpdateCustomField'>)).status).toBe(200);
      expect((await feed(after)).map((e) => e.data)).toEqual([{ custom_field_id: rating.id, changes: ['config'] }]);
    });

    it('removing dropdown options clears the values holding them, in the same write; other values stay', async () => {
      const field = await fresh({ type: 'dropdown', config: { options: ['a', 'b', 'c'] } });
      const tasks = [ids.t_backlog, ids.t_sub, ids.t_inbox];
      const values = ['a', 'b', 'legacy'];
      for (const [i, task] of tasks.entries()) {
        await t.db.ds.query(`INSERT INTO task_custom_field_values (task_id, field_id, workspace_id, value) VALUES ($1, $2, $3, $4)`, [
          task,
          field.id,
          ids.ws,
          values[i],
        ]);
      }
      const stored = async () =>
        (await t.db.ds.query(`SELECT task_id, value FROM task_custom_field_values WHERE field_id = $1 ORDER BY task_id`, [field.id])) as Array<{
          task_id: number;
          value: string;
        }>;
      // Renaming and reordering keep every value.
      const name = unique();
      expect((await patch(field.id, { name, config: { options: ['c', 'b', 'a', 'd'] } } satisfies Schema<'UpdateCustomField'>)).status).toBe(200);
      expect(await stored()).toHaveLength(3);
      expect(await patch(field.id, { config: { options: ['a', 'c', 'd'] } } satisfies Schema<'UpdateCustomField'>)).toEqual({
        status: 200,
        body: { ...field, name, config: { options: ['a', 'c', 'd'] } } satisfies Schema<'CustomField'>,
      });
      expect(await stored()).toEqual(
        [
          { task_id: ids.t_backlog, value: 'a' },
          { task_id: ids.t_inbox, value: 'legacy' },
        ].sort((x, y) => x.task_id - y.task_id),
      );
    });
  });

  describe('delete', () => {
    it('204, its values go with it; then 404 Custom field not found; records custom_field.deleted', async () => {
      const field = (
        await create({
          name: unique(),
          type: 'text',
          granted_folder_ids: [ids.eng],
          list_overrides: [{ list_id: ids.loose, access: 'granted' }],
          allowed_user_ids: [ids.member],
        } satisfies CreateBody)
      ).body!;
      await t.db.ds.query(`INSERT INTO task_custom_field_values (task_id, field_id, workspace_id, value) VALUES ($1, $2, $3, 'x')`, [
        ids.t_backlog,
        field.id,
        ids.ws,
      ]);
      const after = await lastEventId();
      expect(await remove(field.id as number)).toEqual({ status: 204, body: null });
      expect(await t.db.ds.query(`SELECT 1 FROM task_custom_field_values WHERE field_id = $1`, [field.id])).toEqual([]);
      expect(await get(field.id as number)).toEqual({ status: 404, body: { error: 'Custom field not found' } });
      expect(await remove(field.id as number)).toEqual({ status: 404, body: { error: 'Custom field not found' } });
      expect(await patch(field.id as number, { name: 'x' } satisfies Schema<'UpdateCustomField'>)).toEqual({
        status: 404,
        body: { error: 'Custom field not found' },
      });
      expect((await feed(after)).map((e) => [e.type, e.data])).toEqual([['custom_field.deleted', { custom_field_id: field.id }]]);
    });
  });

  describe('who sees custom-field events (D48)', () => {
    it('managers see all; members those of fields their allowed users admit now (everyone when null); a deleted field\u2019s only managers', async () => {
      const after = await lastEventId();
      const open = (await create({ name: unique('Open'), type: 'text' } satisfies CreateBody)).body!.id as number;
      const mine = (await create({ name: unique('Mine'), type: 'text', allowed_user_ids: [ids.member] } satisfies CreateBody)).body!.id as number;
      const nobody = (await create({ name: unique('Nobody'), type: 'text', allowed_user_ids: [] } satisfies CreateBody)).body!.id as number;
      const gone = (await create({ name: unique('Gone'), type: 'text' } satisfies CreateBody)).body!.id as number;
      expect((await patch(open, { position: 500 } satisfies Schema<'UpdateCustomField'>)).status).toBe(200);
      expect((await remove(gone)).status).toBe(204);
      const seen = async (role: WorldRole) => (await feed(after, role)).map((e) => `${e.type} ${e.data.custom_field_id}`);
      const all = [
        `custom_field.created ${open}`,
        `custom_field.created ${mine}`,
        `custom_field.created ${nobody}`,
        `custom_field.created ${gone}`,
        `custom_field.updated ${open}`,
        `custom_field.deleted ${gone}`,
      ];
      expect(await seen('owner')).toEqual(all);
      expect(await seen('admin')).toEqual(all);
      expect(await seen('member')).toEqual([`custom_field.created ${open}`, `custom_field.created ${mine}`, `custom_field.updated ${open}`]);
      expect(await seen('viewer')).toEqual([`custom_field.created ${open}`, `custom_field.updated ${open}`]);
      expect(await seen('restricted')).toEqual([`custom_field.created ${open}`, `custom_field.updated ${open}`]);
      // Judged now: admitting the viewer shows them the field's events, earlier ones included.
      expect((await patch(mine, { allowed_user_ids: [ids.member, ids.viewer] } satisfies Schema<'UpdateCustomField'>)).status).toBe(200);

      expect(await seen('viewer')).toEqual([
        `custom_field.created ${open}`,
        `custom_field.created ${mine}`,
        `custom_field.updated ${open}`,
        `custom_field.updated ${mine}`,
      ]);
    });
  });
});
