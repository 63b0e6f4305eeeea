import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

import { loadFixture } from '../../src/fixtures/fixture-loader';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { KEYS, tasksWorld } from './tasks-world';

/**
 * Issue 19: the OpenAPI document accepts the requests a client builds from it,
 * and the service accepts them. Each request below is sent to the service
 * (which must accept it) and checked against the served document: path, query
 * parameters (form style; a comma list where `explode` is false, as values are
 * split by the service) and JSON body, with ajv (JSON Schema 2020-12).
 * Issue 32: what the service also takes beyond that (ids as strings of digits,
 * items it ignores, `0` ids) is documented in the prose, not in the schemas,
 * so that generators type the inputs: such requests are accepted by the
 * service and refused by the schemas, and their descriptions say so.
 */

type Doc = Record<string, any>;

interface Sent {
  method: 'GET' | 'POST' | 'PATCH';
  /** Path template of the document, then the concrete path. */
  template: string;
  path: string;
  query?: Array<[string, string]>;
  body?: unknown;
}

describe('the OpenAPI document accepts the requests the service accepts (issue 19)', () => {
  let t: TestApp;
  let ids: Record<string, number>;
  let doc: Doc;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);

  beforeAll(async () => {
    t = await createTestApp();
    ids = await loadFixture(t.db.ds, tasksWorld());
    doc = (await t.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    ajv.addSchema({ $id: 'https://openapi.local/doc.json', components: doc.components });
  });
  afterAll(async () => {
    await t.close();
  });

  /** Schemas refer to `#/components/...` of the document. */
  const check = (schema: unknown, value: unknown): string[] => {
    const validate = ajv.compile(schema as object);
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
  const rewrite = (schema: unknown): unknown => JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"https://openapi.local/doc.json#/components/'));

  /** What the document says is wrong with a request; empty when it accepts it. */
  function problems(sent: Sent): string[] {
    const op = doc.paths[sent.template]?.[sent.method.toLowerCase()];
    if (!op) return [`no operation ${sent.method} ${sent.template}`];
    const out: string[] = [];
    const query = sent.query ?? [];
    const params: Doc[] = (op.parameters ?? []).filter((p: Doc) => p.in === 'query');
    for (const [name] of query) if (!params.some((p) => p.name === name)) out.push(`unknown query parameter ${name}`);
    for (const p of params) {
      const values = query.filter(([name]) => name === p.name).map(([, v]) => v);
      if (values.length === 0) continue;
      // Form style: an array parameter is every occurrence, each split at commas when not exploded; a scalar one,
      // a single occurrence; numbers and booleans read from their text as a client's serializer writes them.
      const typed = (v: string): unknown => (/^-?[0-9]+$/.test(v) ? Number(v) : v === 'true' ? true : v === 'false' ? false : v);
      let value: unknown = p.schema.type === 'array' ? (p.explode === false ? values.flatMap((v) => v.split(',')) : values).map(typed) : values[0];
      if (p.schema.type === 'integer' || p.schema.type === 'boolean') value = typed(values[0]);
      out.push(...check(rewrite(p.schema), value).map((m) => `query ${p.name}${m}`));
    }
    if (sent.body !== undefined) out.push(...check(rewrite(op.requestBody.content['application/json'].schema), sent.body).map((m) => `body${m}`));
    return out;
  }

  const send = (sent: Sent) =>
    t.inject({
      method: sent.method,
      url: sent.path + (sent.query ? '?' + new URLSearchParams(sent.query).toString() : ''),
      headers: auth(KEYS.owner),
      ...(sent.body === undefined ? {} : { payload: sent.body as object }),
    });

  const tasks = (query: Array<[string, string]>): Sent => ({
    method: 'GET',
    template: '/api/v1/workspaces/{workspace_id}/tasks',
    path: `/api/v1/workspaces/${ids.acme}/tasks`,
    query,
  });

  const accepted: Array<[string, () => Sent]> = [
    ['priority as a comma list', () => tasks([['priority', 'urgent,high']])],
    [
      'priority repeated and comma lists together',
      () =>
        tasks([
          ['priority', 'urgent'],
          ['priority', 'high,low'],
        ]),
    ],
    ['status_category as a comma list', () => tasks([['status_category', 'pending,in_progress']])],
    [
      'assignee_id ids, me and none',
      () =>
        tasks([
          ['assignee_id', `me,none,${ids.bob}`],
          ['assignee_id', '7'],
        ]),
    ],
    [
      'status_id and label_id comma lists',
      () =>
        tasks([
          ['status_id', `${ids.review},1`],
          ['label_id', `${ids.bug},99999999999999`],
        ]),
    ],
    ['100 values', () => tasks([['label_id', Array(100).fill('1').join(',')]])],
    [
      'dates in every D11 form',
      () =>
        tasks([
          ['due_after', '2025-01-15'],
          ['due_before', '2025-01-15T09:30+02:00'],
          ['created_after', '2025-01-15T09:30:00.123456Z'],
          ['updated_after', '2025-01-15T09:30:00-05:30'],
        ]),
    ],
    ['q with spaces around 200 characters', () => tasks([['q', ` ${'x'.repeat(200)} `]])],
    [
      'the other parameters',
      () =>
        tasks([
          ['page', '2'],
          ['limit', '100'],
          ['list_id', String(ids.backlog)],
          ['parent_id', String(ids.t_full)],
          ['include_subtasks', 'true'],
          ['sort', 'priority,-due_date'],
        ]),
    ],
    ['include_total as a boolean', () => tasks([['include_total', 'false']])],
    [
      'create task with integer ids, custom-field values of every kind, empty and null dates',
      () => ({
        method: 'POST',
        template: '/api/v1/tasks',
        path: '/api/v1/tasks',
        body: {
          list_id: ids.backlog,
          title: 'Strict',
          due_date: '',
          start_date: null,
          assignee_ids: [ids.bob, ids.carol],
          label_ids: [ids.bug],
          custom_fields: [
            { id: ids.cf_open, value: 'v'.repeat(10_000) },
            { id: ids.cf_eng, value: 3.5 },
            { id: ids.cf_stars, value: 4 },
            { id: ids.cf_money, value: null },
          ],
        },
      }),
    ],
    [
      'update task with a date with offset and fraction',
      () => ({
        method: 'PATCH',
        template: '/api/v1/tasks/{task_id}',
        path: `/api/v1/tasks/${ids.t_full}`,
        body: { due_date: '2025-01-15T09:30:00.1+01:00', start_date: '', custom_fields: [] },
      }),
    ],
    [
      'status position at the integer bounds',
      () => ({ method: 'PATCH', template: '/api/v1/statuses/{status_id}', path: `/api/v1/statuses/${ids.review}`, body: { position: 2147483647 } }),
    ],
    [
      'status position at the lower bound',
      () => ({ method: 'PATCH', template: '/api/v1/statuses/{status_id}', path: `/api/v1/statuses/${ids.review}`, body: { position: -2147483647 } }),
    ],
  ];

  it.each(accepted)('%s: the service accepts it, and so does the document', async (_case, make) => {
    const sent = make();
    const res = await send(sent);
    expect([res.statusCode < 300, res.statusCode < 300 ? '' : res.body]).toEqual([true, '']);
    expect(problems(sent)).toEqual([]);
  });

  // Issue 32: accepted by the service, beyond the schemas; the description of what is lenient says so.
  const lenient: Array<[string, () => Sent, string]> = [
    ['a 0 in an id list (matches nothing)', () => tasks([['status_id', `${ids.review},0`]]), 'comma-separated'],
    [
      'ids as strings of digits in a body',
      () => ({ method: 'PATCH', template: '/api/v1/tasks/{task_id}', path: `/api/v1/tasks/${ids.t_full}`, body: { list_id: String(ids.backlog) } }),
      'A string of digits is accepted too',
    ],
    [
      'create task with loose assignee_ids, label_ids and custom_fields',
      () => ({
        method: 'POST',
        template: '/api/v1/tasks',
        path: '/api/v1/tasks',
        body: {
          list_id: String(ids.backlog),
          title: 'Loose',
          due_date: '',
          start_date: null,
          assignee_ids: [ids.bob, String(ids.carol), 'x', null, { a: 1 }, 1.5, -1],
          label_ids: [String(ids.bug), 'bug', []],
          custom_fields: [
            { id: ids.cf_open, value: 'v'.repeat(10_000) },
            { id: String(ids.cf_eng), value: 3.5 },
            { id: ids.cf_stars, value: 4 },
            { id: ids.cf_money, value: null },
            { id: ids.cf_open },
            { id: 'x', value: 'ignored' },
            { value: 'no id' },
            7,
            null,
            'text',
            [1],
          ],
        },
      }),
      'other items are ignored',
    ],
  ];

  it.each(lenient)('%s: the service accepts it; the schemas do not, the description says it is accepted', async (_case, make, prose) => {
    const sent = make();
    const res = await send(sent);
    expect([res.statusCode < 300, res.statusCode < 300 ? '' : res.body]).toEqual([true, '']);
    expect(problems(sent).length).toBeGreaterThan(0);
    const op = doc.paths[sent.template][sent.method.toLowerCase()];
    expect(JSON.stringify([op.parameters, doc.components.schemas])).toContain(prose);
  });

  // The check is not vacuous: the document refuses what the service refuses.
  it.each([
    ['an unknown priority in a list', () => tasks([['priority', 'urgent,critical']])],
    ['101 repetitions', () => tasks(Array.from({ length: 101 }, () => ['priority', 'high'] as [string, string]))],
    ['a date in another form', () => tasks([['due_after', '15/01/2025']])],
    [
      'a custom-field value over 10,000 characters',
      () => ({ method: 'PATCH' as const, template: '/api/v1/tasks/{task_id}', path: '', body: { custom_fields: [{ id: 1, value: 'v'.repeat(10_001) }] } }),
    ],
    [
      'a custom-field value that is an object',
      () => ({ method: 'PATCH' as const, template: '/api/v1/tasks/{task_id}', path: '', body: { custom_fields: [{ id: 1, value: {} }] } }),
    ],
    [
      'a position past the integer range',
      () => ({ method: 'PATCH' as const, template: '/api/v1/statuses/{status_id}', path: '', body: { position: 2147483648 } }),
    ],
  ] as Array<[string, () => Sent]>)('the document refuses %s', (_case, make) => {
    expect(problems(make()).length).toBeGreaterThan(0);
  });
});
