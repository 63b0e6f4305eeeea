import { auth } from '../setup/create-app';
import { roleKeys, useRoleWorld } from '../setup/world';

/**
 * D39, D45: GET /api/v1/folders/:id (the folder object) and GET /api/v1/lists/:id (the list object),
 * with the restricted-member rule: a folder granted or holding a permitted list is readable, and
 * the same rule now applies to the lists of a folder. The checks every route makes (keys, scopes,
 * ids, non-members) are the route matrix's.
 */

const { key } = roleKeys('ct');
const FOLDER_KEYS = ['color', 'created_at', 'icon', 'id', 'name', 'position', 'workspace_id'];
const LIST_KEYS = ['color', 'created_at', 'folder_id', 'icon', 'id', 'name', 'position', 'workspace_id'];

describe('get folder and get list (D39, D45)', () => {
  const { t, ids } = useRoleWorld('ct', (b) => ({
    workspaces: [
      b.team(
        'acme',
        {
          folders: [
            {
              ref: 'granted',
              name: 'Granted',
              icon: 'folder-1',
              color: 'red',
              created_at: '2025-02-01T00:00:00.000Z',
              lists: [{ ref: 'in_granted', name: 'In granted' }],
            },
            {
              ref: 'holds',
              name: 'Holds a granted list',
              lists: [
                { ref: 'g_list', name: 'Granted list', created_at: '2025-02-02T00:00:00.000Z' },
                { ref: 'other_list', name: 'Other list' },
              ],
            },
            { ref: 'closed', name: 'Closed', lists: [{ ref: 'c_list', name: 'Closed list' }] },
          ],
          lists: [{ ref: 'loose_list', name: 'Loose' }],
        },
        { restricted: { folders: ['granted'], lists: ['g_list'] }, restrictedViewer: { lists: ['loose_list'] } },
      ),
    ],
  }));

  const get = (k: string, path: string) => t.inject({ method: 'GET', url: `/api/v1/${path}`, headers: auth(k) });

  describe('GET /api/v1/folders/:id', () => {
    it('answers the folder object for any member', async () => {
      for (const role of ['owner', 'admin', 'member', 'viewer'] as const) {
        const res = await get(key(role), `folders/${ids.granted}`);
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({
          id: ids.granted,
          workspace_id: ids.acme,
          name: 'Granted',
          icon: 'folder-1',
          color: 'red',
          position: 1,
          created_at: '2025-02-01T00:00:00.000Z',
        });
        expect(Object.keys(res.json()).sort()).toEqual(FOLDER_KEYS);
      }
    });

    it('a restricted member reads a granted folder and a folder holding a granted list; any other: 403 Access denied', async () => {
      expect((await get(key('restricted'), `folders/${ids.granted}`)).statusCode).toBe(200);
      expect((await get(key('restricted'), `folders/${ids.holds}`)).json().name).toBe('Holds a granted list');
      const closed = await get(key('restricted'), `folders/${ids.closed}`);
      expect([closed.statusCode, closed.json()]).toEqual([403, { error: 'Access denied' }]);
      // A granted list without a folder makes no folder readable.
      for (const folder of [ids.granted, ids.holds, ids.closed]) {
        const res = await get(key('restrictedViewer'), `folders/${folder}`);
        expect([folder, res.statusCode, res.json()]).toEqual([folder, 403, { error: 'Access denied' }]);
      }
    });

    it('the same rule for the lists of a folder: permitted lists only, 403 for a folder neither granted nor holding one', async () => {
      expect((await get(key('restricted'), `folders/${ids.holds}/lists`)).json().map((l: { id: number }) => l.id)).toEqual([ids.g_list]);
      expect((await get(key('restricted'), `folders/${ids.granted}/lists`)).json().map((l: { id: number }) => l.id)).toEqual([ids.in_granted]);
      const closed = await get(key('restricted'), `folders/${ids.closed}/lists`);
      expect([closed.statusCode, closed.json()]).toEqual([403, { error: 'Access denied' }]);
      expect((await get(key('member'), `folders/${ids.holds}/lists`)).json()).toHaveLength(2);
    });

    it('404 Folder not found for an unknown id and for another workspace\u2019s folder (D4)', async () => {
      expect((await get(key('owner'), 'folders/99999999')).json()).toEqual({ error: 'Folder not found' });
      expect((await get(key('owner'), `folders/${ids.o_folder}`)).json()).toEqual({ error: 'Folder not found' });
    });
  });

  describe('GET /api/v1/lists/:id', () => {
    it('answers the list object for any member', async () => {
      for (const role of ['owner', 'viewer'] as const) {
        const res = await get(key(role), `lists/${ids.g_list}`);
        expect(res.statusCode).toBe(200);
        expect(res.json()).toMatchObject({
          id: ids.g_list,
          workspace_id: ids.acme,
          folder_id: ids.holds,
          name: 'Granted list',
          icon: null,
          created_at: '2025-02-02T00:00:00.000Z',
        });
        expect(Object.keys(res.json()).sort()).toEqual(LIST_KEYS);
      }
      expect((await get(key('member'), `lists/${ids.loose_list}`)).json().folder_id).toBeNull();
    });

    it('a restricted member reads permitted lists only: granted, or in a granted folder; else 403 Access denied', async () => {
      for (const list of [ids.g_list, ids.in_granted]) expect((await get(key('restricted'), `lists/${list}`)).statusCode).toBe(200);
      for (const list of [ids.other_list, ids.c_list, ids.loose_list]) {
        const res = await get(key('restricted'), `lists/${list}`);
        expect([list, res.statusCode, res.json()]).toEqual([list, 403, { error: 'Access denied' }]);
      }
      expect((await get(key('restrictedViewer'), `lists/${ids.loose_list}`)).statusCode).toBe(200);
    });

    it('404 List not found; 403 Access denied for another workspace\u2019s list (D4)', async () => {
      expect((await get(key('owner'), 'lists/99999999')).json()).toEqual({ error: 'List not found' });
      const other = await get(key('owner'), `lists/${ids.o_list}`);
      expect([other.statusCode, other.json()]).toEqual([403, { error: 'Access denied' }]);
    });
  });
});
