import fc from 'fast-check';
import type { InjectOptions } from 'fastify';

import { loadFixture } from '../../src/fixtures/fixture-loader';
import { sealCursor } from '../../src/tasks/task-cursor';
import { parseTaskQuery, SORT_KEYS } from '../../src/tasks/task-query';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { documentedRouteName, routeName, ROUTES } from '../setup/routes';
import { KEYS, tasksWorld } from './tasks-world';

/**
 * Issue 8: property-based fuzz over EVERY documented operation (read from the
 * served OpenAPI document, so routes, query parameters and body fields added
 * later are fuzzed too), with hostile values in every path id, query parameter
 * and body field: wrong types, huge numbers, NUL, unicode, long strings, nested
 * objects, arrays, weird ids, raw non-object bodies. Properties (D31):
 * never a 5xx; every error is exactly `{"error": <string>}` with a JSON content
 * type (and, through createTestApp, documented by the OpenAPI document).
 *
 * Bounded: RUNS requests per operation and at most TIME_MS per operation (26
 * operations: at most ~21 s of requests however busy the machine; ~5 s idle).
 * Fixed seed (FUZZ_SEED overrides; fast-check prints seed and path on failure;
 * FUZZ_RUNS raises the count for a longer local run).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 100);
const TIME_MS = Number(process.env.FUZZ_TIME_MS ?? 800);

type Json = any;

interface Operation {
  method: string;
  template: string;
  query: string[];
  body: string[] | null;
}

/** The operations of the served document, with their query parameters and body properties. */
function operationsOf(doc: Json): Operation[] {
  const resolve = (schema: Json): Json => (schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema);
  const out: Operation[] = [];
  for (const [template, item] of Object.entries<Json>(doc.paths)) {
    // D47's signed storage links: URLs handed out whole, fuzzed in files-local.e2e-spec.ts.
    if (template.startsWith('/files/')) continue;
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const op = item[method];
      if (!op) continue;
      const schema = resolve(op.requestBody?.content?.['application/json']?.schema);
      out.push({
        method: method.toUpperCase(),
        template,
        query: (op.parameters ?? []).filter((p: Json) => p.in === 'query').map((p: Json) => p.name),
        // A body of alternatives (D47's upload: multipart or JSON): the fields of all of them.
        body: op.requestBody ? [...new Set([schema, ...(schema?.oneOf ?? []).map(resolve)].flatMap((s: Json) => Object.keys(s?.properties ?? {})))] : null,
      });
    }
  }
  return out;
}

// ---- hostile values ------------------------------------------------------------

const WEIRD_IDS = [
  '0',
  '-1',
  '1.0',
  '12.5',
  ' 1',
  '1 ',
  '1e3',
  '0x10',
  '١٢',
  '+1',
  '99999999999999999999',
  '2147483648',
  '9007199254740993',
  'null',
  'true',
  '[1]',
  '{}',
  '%',
  'a.b',
  'a'.repeat(100),
];
const NUMBERS = [0, -0, -1, 1.5, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 2, 1e21, 1e308, -1e308, Number.MIN_VALUE];
const TEXTS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff\ud800',
  '\u202e\u200b',
  '😀'.repeat(300),
  'x'.repeat(256),
  'x'.repeat(501),
  ' '.repeat(1000),
  '<script>alert(1)</script>',
  '<'.repeat(30_000),
  'a'.repeat(100_001),
  "'; DROP TABLE tasks; --",
  '%00',
  '\\u0000',
  '2025-02-30',
  '2025-01-15T09:30:00.000Z',
  '9999-12-31T23:59:59.999999+14:00',
  'urgent',
  'pending',
  'me',
  'none',
  '__proto__',
  'constructor',
  ',',
  '1,2,,3',
  '-created_at,title',
];

const hostileScalar = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, ...NUMBERS, ...TEXTS, ...WEIRD_IDS),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
);
/** D7: arrays and objects nested `depth` levels deep around a scalar (issue 19: ~1,400 levels answered 500). */
const nestedValue = (depth: number, mixed: boolean): unknown => {
  let value: unknown = 1;
  for (let level = 1; level <= depth; level++) value = mixed && level % 2 ? { k: value } : [value];
  return value;
};
const deep = fc
  .tuple(fc.oneof(fc.integer({ min: 31, max: 40 }), fc.integer({ min: 41, max: 3000 })), fc.boolean())
  .map(([depth, mixed]) => nestedValue(depth, mixed));
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: hostileScalar },
  { weight: 1, arbitrary: fc.array(hostileScalar, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('id', 'value', '__proto__', 'x', 'field'), hostileScalar, { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 3, maxKeys: 3 }) },
  { weight: 1, arbitrary: deep },
);
/** Body fields a create needs, sent by the mostly-valid bodies. */
const REQUIRED = ['workspace_id', 'folder_id', 'list_id', 'title', 'name', 'category', 'content', 'url', 'type'];
/** Raw bodies that are not a JSON object, or not JSON at all (D7). */
const RAW_BODIES = [
  '[]',
  '[{}]',
  '1',
  '"s"',
  'null',
  'true',
  '{',
  '{"a":',
  '{"__proto__":{"x":1}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '\u0000',
  '{"title":"\\u0000"}',
  '',
  // D7: nested too deeply (3 KB), as an object, as an array, and unclosed.
  '{"a":' + '['.repeat(1400) + ']'.repeat(1400) + '}',
  '['.repeat(1400) + ']'.repeat(1400),
  '{"a":' + '{"a":'.repeat(1400),
];

describe('fuzz: every operation, hostile values (issue 8)', () => {
  let t: TestApp;
  let ids: Record<string, number>;
  let operations: Operation[];
  /** Statuses seen per operation, to show that the fuzz reaches past the early checks. */
  const seen = new Map<string, Map<number, number>>();

  beforeAll(async () => {
    t = await createTestApp();
    ids = await loadFixture(t.db.ds, tasksWorld());
    // D38: webhooks are not part of fixtures.
    for (const [ref, ws] of [
      ['wh_acme', 'acme'],
      ['wh_other', 'other'],
    ]) {
      const [row] = await t.db.ds.query(
        `INSERT INTO webhooks (workspace_id, url, events, secret) VALUES ($1, 'https://localhost/hook', '{task.created}', 'whsec_x') RETURNING id`,
        [ids[ws]],
      );
      ids[ref] = row.id;
    }
    // Issue 35: what the workspace, member and key routes may delete or change without emptying the world the later
    // checks use: two members of acme and three keys of alice that no request sends.
    for (const ref of ['fz_u1', 'fz_u2']) {
      const [user] = await t.db.ds.query(`INSERT INTO users (email, name) VALUES ($1, $1) RETURNING id`, [`${ref}@fuzz.test`]);
      ids[ref] = user.id;
      await t.db.ds.query(`INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, 'member')`, [ids.acme, user.id]);
    }
    for (const ref of ['fz_k1', 'fz_k2', 'fz_k3']) {
      const [key] = await t.db.ds.query(`INSERT INTO api_keys (user_id, key_hash, scopes) VALUES ($1, $2, '{users:read}') RETURNING id`, [
        ids.alice,
        `fuzz-${ref}`,
      ]);
      ids[ref] = key.id;
    }
    // Comments of the world's tasks, for the comment routes (issue 34).
    for (const [i, row] of (await t.db.ds.query(`SELECT id FROM comments ORDER BY id`)).entries()) ids[`comment_${i}`] = row.id;
    // D47: a confirmed attachment in each workspace.
    for (const [ref, task] of [
      ['att_acme', 't_full'],
      ['att_other', 'o_task'],
    ]) {
      const [row] = await t.db.ds.query(
        `INSERT INTO attachments (workspace_id, task_id, uploader_id, file_name, file_size, mime_type) SELECT workspace_id, id, creator_id, 'f.txt', 1, 'text/plain' FROM tasks WHERE id = $1 RETURNING id`,
        [ids[task]],
      );
      ids[ref] = row.id;
    }
    operations = operationsOf((await t.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json());
  });
  afterAll(async () => {
    await t.close();
    if (process.env.FUZZ_STATS) for (const [op, counts] of seen) console.log(op, JSON.stringify(Object.fromEntries(counts)));
  });

  /** Ids of the world by kind, for values that pass the early checks so that later ones are reached. */
  const POOL: Record<string, string[]> = {
    workspace: ['acme', 'other', 'empty'],
    folder: ['eng', 'ops', 'o_folder'],
    list: ['backlog', 'sprint', 'inbox', 'ops_granted', 'loose', 'o_list'],
    task: ['t_full', 't_sub1', 't_sprint', 't_inbox', 't_granted', 't_nolist', 'o_task'],
    status: ['review', 'later', 'todo', 'done', 'o_todo'],
    label: ['bug', 'feature', 'chore', 'o_label'],
    user: ['alice', 'bob', 'carol', 'dave', 'olga'],
    custom_field: ['cf_open', 'cf_eng', 'cf_inbox', 'cf_secret', 'cf_stars'],
    webhook: ['wh_acme', 'wh_other'],
    api_key: ['fz_k1', 'fz_k2', 'fz_k3'],
    comment: ['comment_0'],
    attachment: ['att_acme', 'att_other'],
  };
  /** Issue 35: the path ids of routes that delete or change what the later checks use, drawn from a pool of their own. */
  const POOL_OF_ROUTE: Record<string, Record<string, string[]>> = {
    'DELETE /api/v1/workspaces/{workspace_id}': { workspace: ['empty', 'other'] },
    'PATCH /api/v1/workspaces/{workspace_id}/members/{user_id}': { user: ['fz_u1', 'fz_u2', 'alice'] },
    'DELETE /api/v1/workspaces/{workspace_id}/members/{user_id}': { user: ['fz_u1', 'fz_u2', 'alice'] },
  };
  const idOf = (kind: string) => fc.constantFrom(...POOL[kind]).map((ref) => ids[ref]);
  const idValue = (kind: string) => fc.oneof(idOf(kind), idOf(kind).map(String));

  /** A value that passes the field's own check, by field name. */
  function validValue(field: string): fc.Arbitrary<unknown> {
    const idField = /^(.*)_id$/.exec(field);
    if (idField && POOL[idField[1]]) return idValue(idField[1]);
    if (field === 'parent_id') return idValue('task');
    switch (field) {
      case 'assignee_ids':
        return fc.array(idValue('user'), { maxLength: 3 });
      case 'label_ids':
        return fc.array(idValue('label'), { maxLength: 3 });
      case 'custom_fields':
        return fc.array(fc.record({ id: idValue('custom_field'), value: fc.oneof(fc.constant(null), fc.string({ maxLength: 5 }), fc.integer()) }), {
          maxLength: 3,
        });
      case 'priority':
        return fc.constantFrom('urgent', 'high', 'medium', 'low', 'none');
      case 'category':
        return fc.constantFrom('pending', 'in_progress', 'completed', 'cancelled');
      case 'position':
        return fc.integer({ min: -5, max: 50 });
      case 'due_date':
      case 'start_date':
        return fc.constantFrom('2025-01-15', '2025-01-15T09:30:00.000Z', null, '');
      case 'url':
        return fc.constantFrom('https://localhost/hook', 'https://93.184.215.14/x', 'https://[2606:4700::1]/');
      case 'events':
        return fc.constantFrom(['task.created'], ['label.deleted', 'task.updated']);
      case 'active':
      case 'is_scope_restricted':
        return fc.boolean();
      // D42: custom-field definitions.
      case 'type':
        return fc.constantFrom('text', 'number', 'date', 'checkbox', 'rating', 'dropdown', 'money', 'people');
      case 'config':
        return fc.constantFrom(null, { options: ['a', 'b'] }, { currency: 'EUR', decimals: 2 }, { iconName: 'star', color: 'red' });
      case 'granted_folder_ids':
        return fc.array(idValue('folder'), { maxLength: 3 });
      case 'list_overrides':
        return fc.array(fc.record({ list_id: idValue('list'), access: fc.constantFrom('granted', 'denied') }), { maxLength: 3 });
      case 'allowed_user_ids':
        return fc.oneof(fc.constant(null), fc.array(idValue('user'), { maxLength: 3 }));
      case 'restricted':
        return fc.boolean();
      case 'role':
        return fc.constantFrom('admin', 'member', 'viewer');
      case 'folder_ids':
        return fc.array(idValue('folder'), { maxLength: 3 });
      case 'list_ids':
        return fc.array(idValue('list'), { maxLength: 3 });
      case 'scopes':
        return fc.subarray(['users:read', 'tasks:read', 'api_keys:read', 'webhooks:write'], { minLength: 1 });
      case 'expires_at':
        return fc.constantFrom('2099-01-15', '2099-01-15T09:30:00.000Z', null);
      case 'email':
        return fc.constantFrom('bob@tasks.test', 'BOB@TASKS.TEST', 'nobody@tasks.test');
      case 'slug':
        return fc.constantFrom('tk-acme', 'fresh-slug', null);
      case 'image_url':
        return fc.constantFrom('https://img.test/a.png', null);
      case 'description':
      case 'content':
        return fc.constantFrom('<p>ok</p>', 'plain', '<img src="https://e.test/a.png">');
      default:
        return fc.string({ minLength: 1, maxLength: 12 }).map((s) => `v ${s}`);
    }
  }

  /** The path parameters of a template (`{task_id}`, two for a member route) and the kind of resource each names (`task`). */
  const pathParams = (template: string) => [...template.matchAll(/\{([a-z_]+)_id\}/g)].map((match) => ({ placeholder: match[0], kind: match[1] }));

  /** One request for `op`: path ids, query string, body (object, raw text or none), key. */
  function requestOf(op: Operation): fc.Arbitrary<InjectOptions> {
    const params = pathParams(op.template);
    const own = POOL_OF_ROUTE[`${op.method} ${op.template}`] ?? {};
    const pathIdOf = (kind: string) =>
      fc.oneof(
        { weight: 4, arbitrary: (own[kind] ? fc.constantFrom(...own[kind]).map((ref) => ids[ref]) : idOf(kind)).map(String) },
        { weight: 1, arbitrary: fc.constantFrom(...WEIRD_IDS, ...NUMBERS.map(String)) },
      );
    const pathId = fc.tuple(...params.map((param) => pathIdOf(param.kind)));
    const queryValue = fc.oneof(
      { weight: 2, arbitrary: hostileScalar.map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))) },
      { weight: 1, arbitrary: idOf('list').map(String) },
      { weight: 1, arbitrary: fc.array(fc.constantFrom('1', 'high', 'me', '', 'x'), { minLength: 2, maxLength: 3 }) },
    );
    const query = fc.dictionary(fc.constantFrom(...op.query, 'unknown', 'Page'), queryValue, { maxKeys: Math.max(1, op.query.length) });
    const field = (name: string) => fc.oneof({ weight: 2, arbitrary: validValue(name) }, { weight: 2, arbitrary: hostile });
    const extras = fc.dictionary(fc.string({ maxLength: 6 }), hostile, { maxKeys: 2 });
    const body: fc.Arbitrary<{ json?: object; raw?: string }> = (() => {
      if (op.body === null) return fc.constant({});
      const names = op.body;
      // Mostly valid bodies with at most one hostile field reach the later checks (D3 steps 8-9) and the writes.
      const valid = fc.record(Object.fromEntries(names.map((name) => [name, validValue(name)])), {
        requiredKeys: names.filter((name) => REQUIRED.includes(name)),
      });
      const oneHostile = fc.tuple(valid, fc.constantFrom(...names), hostile).map(([b, name, value]) => ({ ...b, [name]: value }));
      const chaos = fc
        .tuple(fc.record(Object.fromEntries(names.map((name) => [name, field(name)])), { requiredKeys: [] }), extras)
        .map(([known, extra]) => ({ ...extra, ...known }));
      return fc.oneof(
        { weight: 2, arbitrary: valid.map((json) => ({ json })) },
        { weight: 4, arbitrary: oneHostile.map((json) => ({ json })) },
        { weight: 2, arbitrary: chaos.map((json) => ({ json })) },
        { weight: 1, arbitrary: fc.constantFrom(...RAW_BODIES).map((raw) => ({ raw })) },
      );
    })();
    // Mostly real keys of every role; sometimes no key, an unknown key or a key without the prefix (D20).
    const key = fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom(KEYS.owner, KEYS.owner, KEYS.admin, KEYS.member, KEYS.viewer, KEYS.restricted, KEYS.nonMember, KEYS.readOnly) },
      { weight: 1, arbitrary: fc.constantFrom('', 'svc_unknown', 'nope', 'svc_' + 'x'.repeat(300)) },
    );
    // Mostly JSON; sometimes another or a decorated content type (D7: 415 for a non-JSON body).
    const contentType = fc.oneof(
      { weight: 8, arbitrary: fc.constant('application/json') },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          'application/json; charset=utf-8',
          'APPLICATION/JSON',
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/jsonx',
          'multipart/form-data; boundary=x',
        ),
      },
    );
    return fc.tuple(pathId, query, body, key, contentType).map(([id, q, b, k, type]) => {
      const search = new URLSearchParams();
      for (const [name, value] of Object.entries(q)) for (const v of Array.isArray(value) ? value : [value]) search.append(name, v);
      const qs = search.toString();
      const path = params.reduce((url, param, i) => url.replace(param.placeholder, encodeURIComponent(id[i])), op.template);
      const url = path + (qs ? `?${qs}` : '');
      const headers: Record<string, string> = k === '' ? {} : { ...auth(k) };
      if (b.json === undefined && b.raw === undefined) return { method: op.method as InjectOptions['method'], url, headers };
      headers['content-type'] = type;
      return { method: op.method as InjectOptions['method'], url, headers, payload: b.raw ?? JSON.stringify(b.json) };
    });
  }

  it('covers every route of ROUTES (D1)', () => {
    const fuzzed = new Set(operations.map((op) => documentedRouteName(op.method, op.template)));
    expect(ROUTES.map(routeName).filter((name) => !fuzzed.has(name))).toEqual([]);
  });

  it.each(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])('%s operations answer no 5xx, and every error is exactly {"error": string} as JSON', async (method) => {
    const ops = operations.filter((op) => op.method === method);
    expect(ops.length).toBeGreaterThan(0);
    for (const op of ops) {
      await fc.assert(
        fc.asyncProperty(requestOf(op), async (request) => {
          const res = await t.inject(request);
          const counts = seen.get(`${op.method} ${op.template}`) ?? new Map<number, number>();
          counts.set(res.statusCode, (counts.get(res.statusCode) ?? 0) + 1);
          seen.set(`${op.method} ${op.template}`, counts);
          const where = `${request.method} ${String(request.url).slice(0, 300)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
          if (res.statusCode >= 500) throw new Error(`5xx: ${where}`);
          if (res.statusCode >= 400) {
            if (!String(res.headers['content-type']).startsWith('application/json')) throw new Error(`not JSON: ${where}`);
            const body = JSON.parse(res.body);
            if (typeof body !== 'object' || body === null || Object.keys(body).join() !== 'error' || typeof body.error !== 'string') {
              throw new Error(`not {"error": string}: ${where}`);
            }
          }
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true, plugins: [fc.interruptAfterTimeLimit(TIME_MS)] },
      );
    }
  });

  // Issue 19: cursors signed with the server's own secret (as someone who learnt it could) carrying any values answer
  // 200 or 400 `Invalid cursor`, never a 500 (a title holding NUL used to reach PostgreSQL and answer 500).
  it('forged cursors signed with the server secret: any values answer 200 or 400 Invalid cursor', async () => {
    const statuses = new Set<number>();
    const send = async (sort: string, values: unknown[]) => {
      const binding = parseTaskQuery([['sort', sort]], { workspaceId: ids.acme, userId: ids.alice }).binding;
      const cursor = sealCursor(binding, values as never);
      const res = await t.inject({ method: 'GET', url: `/api/v1/workspaces/${ids.acme}/tasks?sort=${sort}&cursor=${cursor}`, headers: auth(KEYS.owner) });
      statuses.add(res.statusCode);
      return { sort, values, status: res.statusCode, body: res.statusCode === 200 ? null : res.json() };
    };
    expect(await send('title', ['a\u0000b', 1])).toEqual({ sort: 'title', values: ['a\u0000b', 1], status: 400, body: { error: 'Invalid cursor' } });
    expect(await send('title', ['a', 1])).toMatchObject({ status: 200 });
    expect(await send('title', ['x'.repeat(501), 1])).toMatchObject({ status: 400, body: { error: 'Invalid cursor' } });
    expect(await send('-created_at', ['0000-01-01T00:00:00.000000Z', 1])).toMatchObject({ status: 400, body: { error: 'Invalid cursor' } });
    const TIMESTAMPS = [
      '2025-01-15T09:30:00.000000Z',
      '0000-01-01T00:00:00.000000Z',
      '9999-12-31T23:59:59.999999Z',
      '2025-02-30T00:00:00.000000Z',
      '1970-01-01T00:00:00.000000Z',
    ];
    const value = fc.oneof(hostileScalar, fc.constantFrom(...TIMESTAMPS), fc.integer({ min: -1, max: 2 ** 31 }));
    const sort = fc
      .uniqueArray(fc.constantFrom(...SORT_KEYS), { minLength: 1, maxLength: 3 })
      .chain((keys) => fc.tuple(...keys.map((k) => fc.constantFrom(k, `-${k}`))).map((terms) => terms.join(',')));
    await fc.assert(
      fc.asyncProperty(sort, fc.array(value, { maxLength: 4 }), async (s, values) => {
        const res = await send(s, values);
        if (res.status !== 200 && !(res.status === 400 && res.body.error === 'Invalid cursor')) throw new Error(JSON.stringify(res));
      }),
      { seed: SEED, numRuns: RUNS * 3, endOnFailure: true, plugins: [fc.interruptAfterTimeLimit(TIME_MS * 3)] },
    );
    expect([...statuses].sort()).toEqual([200, 400]);
  });

  it('reached past authentication and scope on every operation, and succeeded on each kind of method (the fuzz is not vacuous)', () => {
    expect(seen.size).toBe(operations.length);
    for (const [op, counts] of seen) {
      expect([op, [...counts.keys()].some((status) => status !== 401 && status !== 403)]).toEqual([op, true]);
    }
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      const ok = [...seen].filter(([op]) => op.startsWith(method)).some(([, counts]) => [...counts.keys()].some((status) => status < 300));
      expect([method, ok]).toEqual([method, true]);
    }
  });
});
