import { auth } from '../setup/create-app';
import { roleKeys, useRoleWorld } from '../setup/world';

/**
 * D35: a replay checks only D3 steps 1-3 and the key's format, nothing of D7: a keyed POST replayed
 * with the same bytes but another Content-Type answers the stored answer (it answered 415 before
 * issue 34). A first use with a body error still answers it, stores nothing and leaves the key unused.
 */

const { key } = roleKeys('ik');

describe('Idempotency-Key replays whatever the Content-Type (D35)', () => {
  const { t, ids } = useRoleWorld('ik');
  const post = (idempotencyKey: string, body: string, contentType: string | undefined) =>
    t.inject({
      method: 'POST',
      url: '/api/v1/labels',
      headers: { ...auth(key('owner')), 'idempotency-key': idempotencyKey, ...(contentType ? { 'content-type': contentType } : {}) },
      payload: body,
    });
  const labels = async (name: string) => (await t.db.ds.query(`SELECT count(*)::int AS n FROM labels WHERE name = $1`, [name]))[0].n as number;

  it('the same bytes as text/plain, without a charset or with another type: the stored answer, replayed', async () => {
    const body = JSON.stringify({ workspace_id: ids.ws, name: 'Replayed' });
    const first = await post('ct-1', body, 'application/json');
    expect(first.statusCode).toBe(201);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-8', 'application/octet-stream']) {
      const again = await post('ct-1', body, type);
      expect([type, again.statusCode, again.headers['idempotent-replayed'], again.body]).toEqual([type, 201, 'true', first.body]);
    }
    expect(await labels('Replayed')).toBe(1);
  });

  it('a stored 4xx is replayed the same way', async () => {
    const body = JSON.stringify({ workspace_id: ids.ws, name: '' });
    const first = await post('ct-2', body, 'application/json');
    expect([first.statusCode, first.json()]).toEqual([400, { error: 'name is required' }]);
    const again = await post('ct-2', body, 'text/plain');
    expect([again.statusCode, again.headers['idempotent-replayed'], again.json()]).toEqual([400, 'true', { error: 'name is required' }]);
  });

  it('a first use with a body error answers it and stores nothing: the key stays unused', async () => {
    const body = JSON.stringify({ workspace_id: ids.ws, name: 'Later' });
    const unsupported = await post('ct-3', body, 'text/plain');
    expect([unsupported.statusCode, unsupported.json(), unsupported.headers['idempotent-replayed']]).toEqual([
      415,
      { error: 'Content-Type must be application/json' },
      undefined,
    ]);
    const invalid = await post('ct-3', '{nope', 'application/json');
    expect([invalid.statusCode, invalid.json()]).toEqual([400, { error: 'Invalid JSON body' }]);
    const run = await post('ct-3', body, 'application/json');
    expect([run.statusCode, run.headers['idempotent-replayed']]).toEqual([201, undefined]);
    expect(await labels('Later')).toBe(1);
  });

  it('another request under a used key with a body error: the body error (it is not a replay)', async () => {
    const res = await post('ct-1', '{other', 'text/plain');
    expect([res.statusCode, res.json()]).toEqual([415, { error: 'Content-Type must be application/json' }]);
  });
});
