import type { InjectOptions } from 'fastify';
import { DataSource } from 'typeorm';

import { SCOPES } from '../../src/common/auth/scope';
import type { FixtureWorld } from '../../src/fixtures/fixture.types';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { documentedRouteName, routeName, ROUTES } from '../setup/routes';

/**
 * Framework-level answers: bodies (D7), unknown routes (D3 step 1), the error
 * shape and content type (D31), 204s (convention 4), 500s, and GET /health (D1).
 */

const world: FixtureWorld = {
  users: [{ ref: 'alice', email: 'alice@errors.test', name: 'Alice' }],
  api_keys: [
    { user: 'alice', key: 'svc_err_owner', scopes: [...SCOPES] },
    { user: 'alice', key: 'svc_err_scopeless', scopes: [] },
  ],
  workspaces: [{ ref: 'acme', name: 'Acme', slug: 'err-acme', owner: 'alice', labels: [{ ref: 'bug', name: 'Bug' }] }],
};

const JSON_TYPE = /^application\/json(; charset=utf-8)?$/;

describe('errors and framework answers (D3, D7, D31)', () => {
  let t: TestApp;
  let ids: Record<string, number>;
  const key = auth('svc_err_owner');

  beforeAll(async () => {
    t = await createTestApp();
    ids = await loadFixture(t.db.ds, world);
  });
  afterAll(async () => {
    await t.close();
  });

  /** POST /api/v1/labels with a raw body and content type. */
  const postRaw = (payload: string | Buffer, contentType?: string, headers: Record<string, string> = key) =>
    t.inject({
      method: 'POST',
      url: '/api/v1/labels',
      headers: { ...headers, ...(contentType ? { 'content-type': contentType } : {}) },
      payload,
    });

  const expectError = (res: { statusCode: number; headers: Record<string, unknown>; body: string }, status: number, error: string) => {
    expect({ status: res.statusCode, body: JSON.parse(res.body) }).toEqual({ status, body: { error } });
    expect(res.headers['content-type']).toMatch(JSON_TYPE);
  };

  describe('request bodies (D7)', () => {
    it.each([['{"workspace_id": 1,'], ['{workspace_id: 1}'], ["{'name': 'x'}"], ['nul'], ['{"a":1}}']])(
      'answers 400 Invalid JSON body for %p',
      async (payload) => {
        expectError(await postRaw(payload, 'application/json'), 400, 'Invalid JSON body');
      },
    );

    it.each([['[]'], ['[{"workspace_id":1,"name":"x"}]'], ['"text"'], ['42'], ['true'], ['null']])(
      'answers 400 Request body must be a JSON object for %p',
      async (payload) => {
        expectError(await postRaw(payload, 'application/json'), 400, 'Request body must be a JSON object');
      },
    );

    it.each([
      ['text/plain', 'hello'],
      ['text/plain', '{"workspace_id":1,"name":"x"}'],
      ['application/x-www-form-urlencoded', 'workspace_id=1&name=x'],
      ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--x--'],
      ['application/xml', '<label/>'],
    ])('answers 415 Content-Type must be application/json for %s', async (type, payload) => {
      expectError(await postRaw(payload, type), 415, 'Content-Type must be application/json');
    });

    it.each([
      ['{"workspace_id": 1,', 'application/json'],
      ['[1]', 'application/json'],
      ['hello', 'text/plain'],
    ])('checks the key before the body (D3): %p as %s without a key is 401', async (payload, type) => {
      expectError(await postRaw(payload, type, {}), 401, 'API key required');
    });

    describe('nesting depth (D7: arrays or objects nested more than 32 deep)', () => {
      /** A body object whose `pad` field nests arrays or objects so that the whole body is `depth` levels deep. */
      const nested = (depth: number, kind: 'array' | 'object' | 'mixed', fields: object = {}) => {
        let inner = '1';
        for (let level = 2; level <= depth; level++) inner = kind === 'array' || (kind === 'mixed' && level % 2) ? `[${inner}]` : `{"k":${inner}}`;
        return JSON.stringify({ ...fields, pad: '@' }).replace('"@"', inner);
      };
      /** Every operation of the served document that takes a body, with a path id no row has. */
      const writeRoutes = async () => {
        const doc = (await t.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
        return (
          Object.entries<Record<string, { requestBody?: unknown }>>(doc.paths)
            // D47: the upload reads its body after the target and role (step 7), and the storage links are no API
            // routes; their answers are tested in attachments.e2e-spec.ts and files-local.e2e-spec.ts.
            .filter(([path]) => !path.startsWith('/files/') && !path.endsWith('/attachments'))
            .flatMap(([path, item]) =>
              Object.entries(item)
                .filter(([, op]) => op.requestBody)
                .map(([method, op]) => ({
                  method: method.toUpperCase() as InjectOptions['method'],
                  url: path.replace(/\{[a-z_]+\}/, '99999999'),
                  template: path,
                  op,
                })),
            )
        );
      };

      it('accepts 32 levels of arrays or objects', async () => {
        for (const [i, kind] of (['array', 'object'] as const).entries()) {
          const res = await postRaw(nested(32, kind, { workspace_id: ids.acme, name: `Deep ${i}` }), 'application/json');
          expect([kind, res.statusCode]).toEqual([kind, 201]);
        }
      });

      it.each([
        ['33 levels of arrays', nested(33, 'array')],
        ['33 levels of objects', nested(33, 'object')],
        ['mixed arrays and objects, 1,400 levels (3 KB)', nested(1400, 'mixed')],
        ['a top-level object of 100,000 levels', nested(100_000, 'object')],
        ['deep but otherwise valid', nested(40, 'object', { workspace_id: 1, name: 'x' })],
      ])('answers 400 Request body is nested too deeply for %s', async (_case, payload) => {
        expectError(await postRaw(payload, 'application/json'), 400, 'Request body is nested too deeply');
      });

      it('malformed JSON and a non-object answer their own message first', async () => {
        expectError(await postRaw(nested(40, 'array') + ',', 'application/json'), 400, 'Invalid JSON body');
        expectError(await postRaw('[' + nested(40, 'array') + ']', 'application/json'), 400, 'Request body must be a JSON object');
      });

      it('on every write route: 400 after authentication and scope, before the target is looked up (D3)', async () => {
        const routes = await writeRoutes();
        // Each one a route of ROUTES, and the table is the list (no count written by hand).
        const known = new Set(ROUTES.map(routeName));
        expect(routes.length).toBeGreaterThan(0);
        expect(routes.map(({ method, template }) => documentedRouteName(method!, template)).filter((name) => !known.has(name))).toEqual([]);
        const payload = nested(1400, 'mixed');
        expect(payload.length).toBeLessThan(6000);
        for (const { method, url } of routes) {
          const send = (headers: Record<string, string>) => t.inject({ method, url, headers: { ...headers, 'content-type': 'application/json' }, payload });
          const answers = [await send({}), await send(auth('svc_err_scopeless')), await send(key)].map((res) => [res.statusCode, res.json().error]);
          expect([method, url, answers[0], answers[1][0], answers[2]]).toEqual([
            method,
            url,
            [401, 'API key required'],
            403,
            [400, 'Request body is nested too deeply'],
          ]);
        }
      });
    });

    it('answers 415 for a body sent without any content type', async () => {
      const res = await t.inject({ method: 'POST', url: '/api/v1/labels', headers: key, payload: Buffer.from('{"name":"x"}') });
      // light-my-request sets no content type for a Buffer payload.
      expectError(res, 415, 'Content-Type must be application/json');
    });

    it('accepts application/json with a charset, and ignores unknown fields', async () => {
      const res = await postRaw(JSON.stringify({ workspace_id: ids.acme, name: 'Charset', whatever: [1, 2] }), 'application/json; charset=utf-8');
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ name: 'Charset' });
    });

    it('reads an empty JSON body as no body: the route answers its own 400', async () => {
      expectError(await postRaw('', 'application/json'), 400, 'workspace_id is required');
      expectError(await postRaw('  \n', 'application/json'), 400, 'workspace_id is required');
    });

    it('answers 413 Request body is too large over 1 MiB, and accepts just under it', async () => {
      const filler = (size: number) => JSON.stringify({ workspace_id: ids.acme, name: 'Big', pad: 'x'.repeat(size) });
      const over = filler(1024 * 1024);
      expect(Buffer.byteLength(over)).toBeGreaterThan(1024 * 1024);
      expectError(await postRaw(over, 'application/json'), 413, 'Request body is too large');
      const under = filler(1024 * 1024 - 200);
      expect(Buffer.byteLength(under)).toBeLessThanOrEqual(1024 * 1024);
      const ok = await postRaw(under, 'application/json');
      expect(ok.statusCode).toBe(201);
    });
  });

  describe('unknown routes (D3 step 1)', () => {
    it.each([
      ['GET', '/nope'],
      ['GET', '/api/v1'],
      ['GET', '/api/v1/unknown'],
      ['GET', '/api/v2/me'],
      ['GET', '/api/v1/labels'],
      ['PUT', '/api/v1/me'],
      // POST /api/v1/workspaces, DELETE /api/v1/workspaces/:id and PATCH /api/v1/labels/:id exist since D39.
      ['POST', '/api/v1/me'],
      ['PUT', '/api/v1/labels/1'],
      ['DELETE', '/api/v1/workspaces/1/members'],
      ['GET', '/api/v1/workspaces/1/unknown'],
    ])('%s %s answers 404 Not found, before authentication', async (method, url) => {
      for (const headers of [{}, key, auth('svc_unknown')]) {
        expectError(await t.inject({ method: method as InjectOptions['method'], url, headers }), 404, 'Not found');
      }
    });
  });

  describe('the error shape on every kind of error (D31)', () => {
    it.each([
      ['401', { method: 'GET', url: '/api/v1/me' }, 401, 'API key required'],
      ['401 unknown key', { method: 'GET', url: '/api/v1/me', headers: auth('svc_err_unknown') }, 401, 'Invalid API key'],
      ['403 scope', { method: 'GET', url: '/api/v1/me', headers: auth('svc_err_scopeless') }, 403, "Scope 'users:read' is required for this endpoint"],
      ['400 id', { method: 'GET', url: '/api/v1/workspaces/abc', headers: auth('svc_err_owner') }, 400, 'Invalid workspace ID'],
      ['404', { method: 'GET', url: '/api/v1/workspaces/0', headers: auth('svc_err_owner') }, 404, 'Workspace not found'],
      [
        '400 body',
        { method: 'POST', url: '/api/v1/labels', headers: auth('svc_err_owner'), payload: { workspace_id: 'ACME', name: 'bug' } },
        400,
        'workspace_id is required',
      ],
    ] as Array<[string, InjectOptions, number, string]>)('%s: exactly { error } with application/json', async (_case, request, status, error) => {
      const res = await t.inject(request);
      expectError(res, status, error);
      expect(Object.keys(res.json())).toEqual(['error']);
    });

    it('a 409 from the database is shaped too', async () => {
      const res = await t.inject({ method: 'POST', url: '/api/v1/labels', headers: key, payload: { workspace_id: ids.acme, name: 'BUG' } });
      expectError(res, 409, 'A label with this name already exists');
    });
  });

  describe('204 (convention 4)', () => {
    it('has no body and no content type', async () => {
      const res = await t.inject({ method: 'DELETE', url: `/api/v1/labels/${ids.bug}`, headers: key });
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expect(res.rawPayload).toHaveLength(0);
      expect(res.headers['content-type']).toBeUndefined();
      expect(res.headers['content-length'] ?? '0').toBe('0');
    });
  });

  describe('GET /health (D1)', () => {
    it.each([
      ['without a key', {}],
      ['with an unknown key', auth('svc_unknown')],
      ['with a malformed key', { authorization: 'Basic x' }],
    ])('answers 200 {"status":"ok"} %s', async (_case, headers) => {
      const res = await t.inject({ method: 'GET', url: '/health', headers });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(JSON_TYPE);
      expect(res.json()).toEqual({ status: 'ok' });
    });

    it('is not under /api/v1', async () => {
      expectError(await t.inject({ method: 'GET', url: '/api/v1/health' }), 404, 'Not found');
    });
  });

  // Destructive: these break this file's own database, so they run last.
  describe('500 Internal server error (D31)', () => {
    it('answers an unexpected database error with a bare 500, no stack, no SQL', async () => {
      await t.db.ds.query('DROP TABLE labels CASCADE');
      const res = await t.inject({ method: 'GET', url: `/api/v1/workspaces/${ids.acme}/labels`, headers: key });
      expectError(res, 500, 'Internal server error');
      expect(res.body).toBe('{"error":"Internal server error"}');
      expect(res.body).not.toMatch(/labels|SELECT|relation|at .*\.ts|svc_/);
      // The rest of the service still answers.
      expect((await t.inject({ method: 'GET', url: '/api/v1/me', headers: key })).statusCode).toBe(200);
    });

    it('GET /health answers 503 when the database does not answer', async () => {
      await t.app.get(DataSource).destroy();
      const res = await t.inject({ method: 'GET', url: '/health' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ status: 'unavailable' });
    });

    it('a route answers 500 when the database is gone', async () => {
      const res = await t.inject({ method: 'GET', url: '/api/v1/me', headers: key });
      expectError(res, 500, 'Internal server error');
    });
  });
});
