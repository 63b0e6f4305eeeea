import { loadFixture } from '../../src/fixtures/fixture-loader';
import { Schema } from '../setup/api-types';
import { auth } from '../setup/create-app';
import { QueryCounter } from '../setup/query-counter';
import { roleKeys, useRoleWorld } from '../setup/world';

/**
 * Custom-field listing: GET /api/v1/workspaces/:id/custom-fields.
 * spec: List custom fields, Custom-field definition; D18, D19, D23, D30. The
 * checks every route makes (keys, scopes, ids, non-members) are the route
 * matrix's (route-matrix.e2e-spec.ts).
 */

const DEFINITION_KEYS = ['config', 'granted_folder_ids', 'id', 'is_scope_restricted', 'list_overrides', 'name', 'position', 'type'] satisfies Array<
  keyof Schema<'CustomFieldDefinition'>
>;
const { key } = roleKeys('cf');

describe('custom fields: GET /api/v1/workspaces/:id/custom-fields', () => {
  const { t, ids } = useRoleWorld('cf', (b) => ({
    workspaces: [
      // D30: the definitions are workspace-level data; a restricted member with no grants sees them all.
      b.team('acme', {
        // Folder "zeta" is created first so that its id is lower though it is listed second in grants.
        folders: [
          { ref: 'zeta', name: 'Zeta', lists: [{ ref: 'z1', name: 'Z1' }] },
          {
            ref: 'f_eng',
            name: 'Engineering',
            lists: [
              { ref: 'f_backlog', name: 'Backlog' },
              { ref: 'sprint', name: 'Sprint' },
            ],
          },
        ],
        lists: [{ ref: 'f_loose', name: 'No folder' }],
        custom_fields: [
          // Listed out of position order; the listing sorts by position, then id (D23).
          { ref: 'price', name: 'Price', type: 'money', config: { currency: 'EUR', decimals: 2 }, position: 5 },
          {
            ref: 'est',
            name: 'Estimate',
            type: 'number',
            config: null,
            position: 1,
            is_scope_restricted: true,
            granted_folders: ['f_eng', 'zeta'],
            list_overrides: [
              { list: 'sprint', access: 'denied' },
              { list: 'f_loose', access: 'granted' },
              { list: 'f_backlog', access: 'granted' },
            ],
          },
          { ref: 'stars', name: 'Stars', type: 'rating', config: { iconName: 'star', color: 'orange' }, position: 2 },
          { ref: 'pick', name: 'Pick', type: 'dropdown', config: { options: ['a', 'b', 'c'] }, position: 3 },
          { ref: 'note', name: 'Note', type: 'text', position: 4 },
          { ref: 'when', name: 'When', type: 'date', position: 4 },
          { ref: 'f_done', name: 'Done?', type: 'checkbox', position: 6, is_scope_restricted: true },
          { ref: 'who', name: 'Who', type: 'people', position: 7, is_scope_restricted: true, list_overrides: [{ list: 'z1', access: 'denied' }] },
          // D19: an allowed-users list limits who sees the field, owners included.
          { ref: 'secret', name: 'Secret', type: 'text', position: 8, allowed_users: [b.user('member'), b.user('viewer')] },
          { ref: 'nobody', name: 'Nobody', type: 'text', position: 9, allowed_users: [] },
        ],
      }),
      b.solo('theirs', 'outsider', { custom_fields: [{ ref: 'o_field', name: 'Elsewhere', type: 'text', position: 1 }] }),
      b.team('bare'),
    ],
  }));

  const list = (key: string | null, workspace: string | number) =>
    t.inject({ method: 'GET', url: `/api/v1/workspaces/${workspace}/custom-fields`, headers: key ? auth(key) : {} });

  /** The definitions every member sees, by position then id. */
  const common = () =>
    [
      {
        id: ids.est,
        name: 'Estimate',
        type: 'number',
        config: null,
        position: 1,
        is_scope_restricted: true,
        granted_folder_ids: [ids.zeta, ids.f_eng].sort((a, b) => a - b),
        list_overrides: (
          [
            { list_id: ids.f_backlog, access: 'granted' },
            { list_id: ids.sprint, access: 'denied' },
            { list_id: ids.f_loose, access: 'granted' },
          ] satisfies Array<Schema<'CustomFieldListOverride'>>
        ).sort((a, b) => a.list_id - b.list_id),
      },
      {
        id: ids.stars,
        name: 'Stars',
        type: 'rating',
        config: { iconName: 'star', color: 'orange' },
        position: 2,
        is_scope_restricted: false,
        granted_folder_ids: [],
        list_overrides: [],
      },
      {
        id: ids.pick,
        name: 'Pick',
        type: 'dropdown',
        config: { options: ['a', 'b', 'c'] },
        position: 3,
        is_scope_restricted: false,
        granted_folder_ids: [],
        list_overrides: [],
      },
      { id: ids.note, name: 'Note', type: 'text', config: null, position: 4, is_scope_restricted: false, granted_folder_ids: [], list_overrides: [] },
      { id: ids.when, name: 'When', type: 'date', config: null, position: 4, is_scope_restricted: false, granted_folder_ids: [], list_overrides: [] },
      {
        id: ids.price,
        name: 'Price',
        type: 'money',
        config: { currency: 'EUR', decimals: 2 },
        position: 5,
        is_scope_restricted: false,
        granted_folder_ids: [],
        list_overrides: [],
      },
      { id: ids.f_done, name: 'Done?', type: 'checkbox', config: null, position: 6, is_scope_restricted: true, granted_folder_ids: [], list_overrides: [] },
      {
        id: ids.who,
        name: 'Who',
        type: 'people',
        config: null,
        position: 7,
        is_scope_restricted: true,
        granted_folder_ids: [],
        list_overrides: [{ list_id: ids.z1, access: 'denied' }],
      },
    ] satisfies Array<Schema<'CustomFieldDefinition'>>;
  const secret = () =>
    ({
      id: ids.secret,
      name: 'Secret',
      type: 'text',
      config: null,
      position: 8,
      is_scope_restricted: false,
      granted_folder_ids: [],
      list_overrides: [],
    }) satisfies Schema<'CustomFieldDefinition'>;

  it('fixture sanity: the ids the ordering assertions rely on', () => {
    expect(ids.zeta).toBeLessThan(ids.f_eng);
    expect(ids.note).toBeLessThan(ids.when);
  });

  it.each([
    ['owner (not on the allowed-users list)', key('owner'), false],
    ['admin', key('admin'), false],
    ['member on the allowed-users list', key('member'), true],
    ['viewer on the allowed-users list', key('viewer'), true],
    ['restricted member without grants (D30)', key('restricted'), false],
    ['restricted viewer without grants (D30)', key('restrictedViewer'), false],
  ])('lists the definitions visible to the %s, by position then id, with exact keys', async (_who, k, seesSecret) => {
    const res = await list(k, ids.acme);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual(seesSecret ? [...common(), secret()] : common());
    for (const field of res.json()) expect(Object.keys(field).sort()).toEqual(DEFINITION_KEYS);
  });

  it('never lists a field whose allowed-users list is empty (D19)', async () => {
    for (const k of [key('owner'), key('member')]) {
      const names = (await list(k, ids.acme)).json().map((f: Schema<'CustomFieldDefinition'>) => f.name);
      expect(names).not.toContain('Nobody');
    }
  });

  it('lists only the fields of the workspace asked for', async () => {
    const res = await list(key('outsider'), ids.theirs);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { id: ids.o_field, name: 'Elsewhere', type: 'text', config: null, position: 1, is_scope_restricted: false, granted_folder_ids: [], list_overrides: [] },
    ] satisfies Array<Schema<'CustomFieldDefinition'>>);
  });

  it('returns [] for a workspace without custom fields', async () => {
    const res = await list(key('owner'), ids.bare);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([]);
  });

  it('costs a fixed number of SQL round trips, whatever the number of fields (no N+1)', async () => {
    // A second world: 60 fields, each with folder grants and list overrides.
    const big = await loadFixture(t.db.ds, {
      users: [{ ref: 'big_owner', email: 'big@cf.test', name: 'Big' }],
      api_keys: [{ user: 'big_owner', key: 'svc_cf_big', scopes: ['tasks:read'] }],
      workspaces: [
        {
          ref: 'big',
          name: 'Big',
          slug: 'cf-big',
          owner: 'big_owner',
          folders: [
            { ref: 'bf1', name: 'F1', lists: [{ ref: 'bl1', name: 'L1' }] },
            { ref: 'bf2', name: 'F2', lists: [{ ref: 'bl2', name: 'L2' }] },
          ],
          custom_fields: Array.from({ length: 60 }, (_, i) => ({
            name: `Field ${i}`,
            type: 'number' as const,
            position: i + 1,
            is_scope_restricted: true,
            granted_folders: ['bf1', 'bf2'],
            list_overrides: [
              { list: 'bl1', access: 'denied' as const },
              { list: 'bl2', access: 'granted' as const },
            ],
          })),
        },
      ],
    });
    // Counted at the pg driver (test/setup/query-counter.ts, a pass-through spy).
    const counter = new QueryCounter().install();
    const roundTrips = async (key: string, workspace: number) => {
      const { result, statements } = await counter.record(() => list(key, workspace));
      expect(result.statusCode).toBe(200);
      return { fields: result.json().length, statements: statements.length };
    };
    try {
      // Both keys used once first: later requests find them in the guard's cache.
      expect((await list(key('owner'), ids.acme)).statusCode).toBe(200);
      expect((await list('svc_cf_big', big.big)).statusCode).toBe(200);
      const small = await roundTrips(key('owner'), ids.acme);
      const large = await roundTrips('svc_cf_big', big.big);
      expect(small.fields).toBe(8);
      expect(large.fields).toBe(60);
      expect(large.statements).toBe(small.statements);
      // Access check, listing: each one round trip.
      expect(large.statements).toBe(2);
    } finally {
      counter.uninstall();
    }
  });
});
