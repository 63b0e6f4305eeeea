import { UNAUTHORIZED_HEADERS } from '../common/auth/authenticated.decorator';
import { errorExamples } from '../common/openapi/api-errors.decorator';
import {
  addIntegerFormats,
  commaListValues,
  describeAccess,
  errorMessages,
  errorResponse,
  exampleOf,
  finalizeDocument,
  inlineHeaders,
  JsonObject,
  KEYED_HEADERS,
  REQUEST_ID_HEADERS,
  RETRY_AFTER_HEADERS,
  schemaName,
  serializeDocument,
  shareHeaders,
  strictInputs,
  TIMESTAMP_PATTERN,
} from './openapi.finalize';

const err = { $ref: '#/components/schemas/ErrorDto' };

/** The headers of every answer of a route that needs a key (D31). */
const KEYED = { ...REQUEST_ID_HEADERS, ...KEYED_HEADERS };

/** A scanned document as @nestjs/swagger 12 emits it for 3.1 (nullable already converted), with the tags and 401 and 403 answers the decorators state. */
/** `doc` without the `format` addIntegerFormats gives integers. */
function withoutIntegerFormats(doc: JsonObject): JsonObject {
  return JSON.parse(JSON.stringify(doc), (_key, value) => {
    if (value && typeof value === 'object' && value.type === 'integer' && (value.format === 'int32' || value.format === 'int64')) delete value.format;
    return value;
  });
}

function scanned(): JsonObject {
  return {
    openapi: '3.1.0',
    paths: {
      '/api/v1/things/{id}': {
        delete: {
          operationId: 'deleteThing',
          parameters: [],
          responses: { '204': { description: '' } },
          'x-scope': 'things:write',
          summary: 'Delete thing',
          tags: ['Things'],
        },
        patch: {
          tags: ['Things'],
          operationId: 'updateThing',
          'x-scope': 'things:write',
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/UpdateThingDto' } } } },
          responses: {
            '404': {
              description: '`Thing not found`',
              content: {
                'application/json': { schema: err, examples: { 'Thing not found': { summary: 'Thing not found', value: { error: 'Thing not found' } } } },
              },
            },
            '400': {
              description: '`name cannot be empty`',
              content: {
                'application/json': { schema: err, examples: { 'name cannot be empty': { summary: 'x', value: { error: 'name cannot be empty' } } } },
              },
            },
            '401': {
              description: '',
              content: { 'application/json': { schema: err, examples: errorExamples(['API key required', 'Invalid API key']) } },
              headers: UNAUTHORIZED_HEADERS,
            },
            '403': {
              description: "`Scope 'things:write' is required for this endpoint`",
              content: {
                'application/json': { schema: err, examples: { x: { summary: 'x', value: { error: "Scope 'things:write' is required for this endpoint" } } } },
              },
            },
            '200': { description: '', content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingDto' } } } },
          },
        },
      },
      '/api/v1/a': {
        get: {
          operationId: 'listA',
          responses: {
            '200': { description: 'ok', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/ThingDto' } } } } },
          },
        },
      },
    },
    info: { title: 't', version: '1', contact: {} },
    tags: [{ name: 'Things', description: 'All the things' }],
    components: {
      schemas: {
        UpdateThingDto: { type: 'object', properties: { name: { type: 'string' } } },
        ThingDto: {
          type: 'object',
          properties: {
            id: { type: 'integer' },
            owner: { anyOf: [{ $ref: '#/components/schemas/OwnerDto' }, { type: 'null' }] },
            created_at: { type: 'string', format: 'date-time' },
          },
          required: ['id'],
        },
        OwnerDto: { type: 'object', properties: { id: { type: 'number' }, at: { type: ['string', 'null'], format: 'date-time' } } },
        ErrorDto: { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] },
      },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    },
  };
}

describe('OpenAPI post-processing (src/openapi/openapi.finalize.ts)', () => {
  // Compared with the headers written out and without integer formats; shareHeaders and addIntegerFormats are tested on their own below.
  const doc = withoutIntegerFormats(inlineHeaders(finalizeDocument(scanned())));
  const patch = doc.paths['/api/v1/things/{id}'].patch;

  it('names schemas without the Dto suffix and rewrites every $ref', () => {
    expect(schemaName('TaskDto')).toBe('Task');
    expect(schemaName('Task')).toBe('Task');
    expect(Object.keys(doc.components.schemas)).toEqual(['Error', 'Owner', 'Thing', 'UpdateThing']);
    expect(JSON.stringify(doc)).not.toMatch(/Dto"/);
    expect(patch.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Thing' });
  });

  it('adds 400 bad-JSON messages (after the documented ones), 413 and 415 to operations with a body (D7)', () => {
    expect(patch.responses['400']).toEqual({
      ...errorResponse(['name cannot be empty', 'Invalid JSON body', 'Request body must be a JSON object', 'Request body is nested too deeply']),
      headers: KEYED,
    });
    expect(patch.responses['413']).toEqual({ $ref: '#/components/responses/PayloadTooLarge' });
    expect(patch.responses['415']).toEqual({ $ref: '#/components/responses/UnsupportedMediaType' });
    expect(doc.components.responses.PayloadTooLarge).toEqual({ ...errorResponse(['Request body is too large']), headers: KEYED });
    expect(doc.components.responses.UnsupportedMediaType).toEqual({ ...errorResponse(['Content-Type must be application/json']), headers: KEYED });
  });

  it('adds no 400, 413 or 415 where there is no body', () => {
    expect(Object.keys(doc.paths['/api/v1/things/{id}'].delete.responses)).toEqual(['204', '408', '414', '429', '431', '500', '503']);
  });

  it('adds the 429 of the rate limit where there is a scope, and 500 everywhere (D31)', () => {
    expect(patch.responses['403']).toEqual({ ...errorResponse(["Scope 'things:write' is required for this endpoint"]), headers: KEYED });
    expect(patch.responses['429']).toEqual({ $ref: '#/components/responses/TooManyRequests' });
    expect(doc.paths['/api/v1/a'].get.responses['429']).toBeUndefined();
    expect(doc.paths['/api/v1/a'].get.responses['500']).toEqual({ $ref: '#/components/responses/InternalServerError' });
  });

  it('adds 503 everywhere (database unavailable, request timeout)', () => {
    expect(doc.paths['/api/v1/a'].get.responses['503']).toEqual({ $ref: '#/components/responses/ServiceUnavailable' });
    expect(doc.components.responses.ServiceUnavailable).toEqual({ ...errorResponse(['Service unavailable']), headers: KEYED });
  });

  it('adds the answers given before any route runs: 408 and 431 everywhere, 414 where the path has a parameter', () => {
    expect(Object.keys(doc.paths['/api/v1/a'].get.responses)).toEqual(['200', '408', '431', '500', '503']);
    expect(patch.responses['414']).toEqual({ $ref: '#/components/responses/UriTooLong' });
    // Written on the socket: no header beyond the content type.
    expect(doc.components.responses.RequestTimeout).toEqual(errorResponse(['Request timeout']));
    expect(doc.components.responses.RequestHeadersTooLarge).toEqual(errorResponse(['Request headers are too large']));
    expect(doc.components.responses.UriTooLong).toEqual({ ...errorResponse(['URI too long']), headers: KEYED });
  });

  it('documents response headers: X-Request-Id everywhere, RateLimit-* and Cache-Control on keyed routes, Retry-After on 429 (D31)', () => {
    expect(patch.responses['200'].headers).toEqual(KEYED);
    expect(Object.keys(KEYED)).toEqual(['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Cache-Control']);
    expect(doc.components.responses.TooManyRequests.headers).toEqual({ ...KEYED, ...RETRY_AFTER_HEADERS });
    // A public route: its own answers carry the request id only, and it needs no key.
    expect(doc.paths['/api/v1/a'].get.responses['200'].headers).toEqual(REQUEST_ID_HEADERS);
    expect(doc.paths['/api/v1/a'].get.security).toEqual([]);
    expect(patch.security).toBeUndefined();
  });

  it('keeps a 503 an operation documents with a body of its own (health)', () => {
    const input = scanned();
    const own = { description: 'down', content: { 'application/json': { schema: { type: 'object', properties: { status: { type: 'string' } } } } } };
    input.paths['/api/v1/a'].get.responses['503'] = own;
    const out = withoutIntegerFormats(inlineHeaders(finalizeDocument(input))).paths['/api/v1/a'].get.responses['503'];
    expect(out).toEqual({
      ...own,
      content: { 'application/json': { schema: { ...own.content['application/json'].schema, required: ['status'], additionalProperties: false } } },
      headers: REQUEST_ID_HEADERS,
    });
  });

  it('normalises error answers, keeping their headers: the description lists the messages of the named examples', () => {
    expect(patch.responses['401']).toEqual({ ...errorResponse(['API key required', 'Invalid API key']), headers: { ...UNAUTHORIZED_HEADERS, ...KEYED } });
    expect(
      errorMessages({ description: '`a`', content: { 'application/json': { examples: { x: { value: { error: 'c' } }, y: { value: { error: 'b' } } } } } }),
    ).toEqual(['c', 'b']);
    expect(errorResponse(['Task not found'])).toEqual({
      description: '`Task not found`',
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/Error' },
          examples: { 'Task not found': { summary: 'Task not found', value: { error: 'Task not found' } } },
        },
      },
    });
  });

  it('makes every schema a response reaches strict (D16), with convention-2 timestamps; request schemas stay open', () => {
    expect(doc.components.schemas.Thing).toEqual({
      type: 'object',
      properties: {
        id: { type: 'integer' },
        owner: { anyOf: [{ $ref: '#/components/schemas/Owner' }, { type: 'null' }] },
        created_at: { type: 'string', format: 'date-time', pattern: TIMESTAMP_PATTERN },
      },
      required: ['id', 'owner', 'created_at'],
      additionalProperties: false,
    });
    expect(doc.components.schemas.Owner.required).toEqual(['id', 'at']);
    expect(doc.components.schemas.Owner.properties.at.pattern).toBe(TIMESTAMP_PATTERN);
    expect(doc.components.schemas.Error).toEqual({
      type: 'object',
      properties: { error: { type: 'string' } },
      required: ['error'],
      additionalProperties: false,
    });
    expect(doc.components.schemas.UpdateThing).toEqual({ type: 'object', properties: { name: { type: 'string' } } });
    expect(new RegExp(TIMESTAMP_PATTERN).test('2025-01-15T09:30:00.000Z')).toBe(true);
    expect(new RegExp(TIMESTAMP_PATTERN).test('2025-01-15T09:30:00Z')).toBe(false);
  });

  it('keeps number types as declared: integer where the DTO says so, number (a fraction may come) where it does not', () => {
    expect(doc.components.schemas.Thing.properties.id).toEqual({ type: 'integer' });
    expect(doc.components.schemas.Owner.properties.id).toEqual({ type: 'number' });
  });

  it('gives every success answer with a body an example built from its schema; none to errors or 204', () => {
    expect(patch.responses['200'].content['application/json'].example).toEqual({ id: 1, owner: { id: 1, at: null }, created_at: '2025-01-15T09:30:00.000Z' });
    expect(doc.paths['/api/v1/a'].get.responses['200'].content['application/json'].example).toEqual([
      { id: 1, owner: { id: 1, at: null }, created_at: '2025-01-15T09:30:00.000Z' },
    ]);
    expect(patch.responses['404'].content['application/json'].example).toBeUndefined();
    expect(doc.paths['/api/v1/things/{id}'].delete.responses['204'].content).toBeUndefined();
  });

  it('builds examples: own example first, then enum, then by type; nullable scalars are null', () => {
    const d = {
      components: {
        schemas: {
          S: {
            type: 'object',
            properties: {
              n: { type: 'integer', example: 5 },
              e: { type: 'string', enum: ['b', 'a'] },
              t: { type: ['string', 'null'] },
              b: { type: 'boolean' },
            },
          },
        },
      },
    };
    expect(exampleOf(d, { $ref: '#/components/schemas/S' })).toEqual({ n: 5, e: 'b', t: null, b: false });
    expect(exampleOf(d, { anyOf: [{ type: 'null' }, { type: 'string', format: 'date-time' }] })).toBe('2025-01-15T09:30:00.000Z');
    expect(exampleOf(d, { type: 'array', items: { type: 'string' } })).toEqual(['text']);
  });

  it('orders keys stably: paths and schemas by name, responses by status, operation keys in reading order', () => {
    expect(Object.keys(doc)).toEqual(['openapi', 'info', 'tags', 'paths', 'components']);
    expect(Object.keys(doc.paths)).toEqual(['/api/v1/a', '/api/v1/things/{id}']);
    expect(Object.keys(doc.paths['/api/v1/things/{id}'])).toEqual(['patch', 'delete']);
    expect(Object.keys(patch)).toEqual(['tags', 'operationId', 'x-scope', 'requestBody', 'responses']);
    expect(Object.keys(patch.responses)).toEqual(['200', '400', '401', '403', '404', '408', '413', '414', '415', '429', '431', '500', '503']);
    expect(Object.keys(doc.components)).toEqual(['responses', 'schemas', 'securitySchemes']);
  });

  it('drops empty scanner leftovers and describes bare success answers', () => {
    expect(doc.info).toEqual({ title: 't', version: '1' });
    expect(doc.paths['/api/v1/things/{id}'].delete.parameters).toBeUndefined();
    expect(doc.paths['/api/v1/things/{id}'].delete.responses['204']).toEqual({ description: 'No content', headers: KEYED });
    expect(patch.responses['200'].description).toBe('OK');
    expect(doc.tags).toEqual([{ name: 'Things', description: 'All the things' }]);
  });

  it('is deterministic and leaves its input alone', () => {
    const input = scanned();
    const before = JSON.stringify(input);
    expect(serializeDocument(finalizeDocument(input))).toBe(serializeDocument(finalizeDocument(scanned())));
    expect(JSON.stringify(input)).toBe(before);
    expect(serializeDocument({ a: 1 })).toBe('{\n  "a": 1\n}\n');
  });

  it('refuses two classes that would get the same schema name', () => {
    const input = scanned();
    input.components.schemas.Thing = { type: 'object' };
    expect(() => finalizeDocument(input)).toThrow('OpenAPI: schemas Thing and ThingDto would both be named Thing');
  });
});

describe('describeAccess', () => {
  it('ends the description with the scope and the policy wording, and drops x-access', () => {
    const doc: JsonObject = {
      paths: {
        '/a': { get: { description: 'Reads a.', 'x-scope': 'tasks:read', 'x-access': 'any member of the workspace', responses: {} } },
        '/b': { post: { 'x-scope': 'tasks:write', 'x-access': 'owners and admins only', responses: {} } },
        '/c': { get: { description: 'Public.', responses: {} } },
      },
    };
    describeAccess(doc);
    expect(doc.paths['/a'].get).toEqual({
      description: 'Reads a.\n\nScope `tasks:read`; any member of the workspace.',
      'x-scope': 'tasks:read',
      responses: {},
    });
    expect(doc.paths['/b'].post.description).toBe('Scope `tasks:write`; owners and admins only.');
    expect(doc.paths['/c'].get.description).toBe('Public.');
  });
});

// Issue 32: a document client generators type.
describe('shareHeaders', () => {
  it('publishes each header once under components.headers and refers to it from every answer that carries it', () => {
    const doc = finalizeDocument(scanned());
    const headers = doc.components.headers;
    expect(headers['X-Request-Id']).toEqual(REQUEST_ID_HEADERS['X-Request-Id']);
    const answers: JsonObject[] = [];
    for (const item of Object.values<JsonObject>(doc.paths))
      for (const op of Object.values<JsonObject>(item)) answers.push(...Object.values<JsonObject>(op.responses ?? {}));
    const withHeaders = answers.filter((a) => a.headers);
    expect(withHeaders.length).toBeGreaterThan(2);
    for (const a of withHeaders) expect(a.headers['X-Request-Id']).toEqual({ $ref: '#/components/headers/X-Request-Id' });
    // An enum is a named schema as well: one enum type in a generated client, not one per answer.
    expect(headers['Cache-Control'].schema).toEqual({ $ref: '#/components/schemas/CacheControl' });
    expect(doc.components.schemas.CacheControl).toEqual(KEYED_HEADERS['Cache-Control'].schema);
    expect(inlineHeaders(doc).components.headers).toBeUndefined();
    expect(inlineHeaders(doc).components.schemas.CacheControl).toBeUndefined();
  });

  it('leaves a header inline when it is used once, or in a variant of its own', () => {
    const one = { description: 'a', schema: { type: 'string' } };
    const other = { description: 'b', schema: { type: 'string' } };
    const doc: JsonObject = {
      paths: {
        '/x': {
          get: { responses: { '200': { description: 'OK', headers: { A: one, B: one } }, '404': { description: 'no', headers: { A: one, B: other } } } },
        },
      },
      components: {},
    };
    shareHeaders(doc);
    expect(doc.components.headers).toEqual({ A: one });
    expect(doc.paths['/x'].get.responses['404'].headers).toEqual({ A: { $ref: '#/components/headers/A' }, B: other });
  });
});

describe('strictInputs and addIntegerFormats', () => {
  const query = (name: string, schema: JsonObject): JsonObject => ({ in: 'query', name, schema });
  const doc = (): JsonObject => ({
    paths: {
      '/x': {
        get: {
          parameters: [
            query('include_total', { type: 'string', enum: ['true', 'false'], default: 'false', example: 'true' }),
            query('list_id', { type: 'string', example: '3' }),
            query('after', { type: 'string', pattern: '^[0-9]+$', default: '0', example: '1042' }),
            query('priority', {
              type: 'array',
              maxItems: 100,
              items: { type: 'string', pattern: '^(urgent|high)(,(urgent|high))*$' },
              example: ['urgent,high'],
            }),
            query('type', { type: 'array', items: { type: 'string', pattern: '^(task\\.created|task\\.updated)(,(task\\.created|task\\.updated))*$' } }),
            query('label_id', { type: 'array', items: { type: 'string', pattern: '^([0-9]+)(,([0-9]+))*$' }, example: ['7'] }),
            query('assignee_id', { type: 'array', items: { type: 'string', pattern: '^([0-9]+|me|none)(,([0-9]+|me|none))*$' } }),
          ],
          responses: {},
        },
      },
    },
    components: {
      schemas: {
        In: {
          type: 'object',
          properties: {
            list_id: {
              oneOf: [
                { type: 'integer', minimum: 0 },
                { type: 'string', pattern: '^[0-9]+$' },
              ],
              description: 'The list',
            },
            parent_id: {
              anyOf: [
                {
                  oneOf: [
                    { type: 'integer', minimum: 0 },
                    { type: 'string', pattern: '^[0-9]+$' },
                  ],
                },
                { type: 'null' },
              ],
            },
            label_ids: { type: 'array', items: { description: 'An id: a number, or a string of digits; other values are ignored' } },
            // A description ending in a parenthetical is no finished sentence; one ending in "(...)." or ".)" is.
            user_id: {
              oneOf: [
                { type: 'integer', minimum: 0 },
                { type: 'string', pattern: '^[0-9]+$' },
              ],
              description: 'The user (or send `email`)',
            },
            folder_id: {
              oneOf: [
                { type: 'integer', minimum: 0 },
                { type: 'string', pattern: '^[0-9]+$' },
              ],
              description: 'The folder (see the list.)',
            },
            fields: { type: 'array', items: { anyOf: [{ $ref: '#/components/schemas/V' }, { not: { type: 'object' } }] } },
          },
        },
        Out: { type: 'object', properties: { n: { type: 'integer', minimum: 0, maximum: 2147483647 }, id: { type: 'integer' } } },
      },
    },
  });

  it('types query parameters: booleans, int64 ids and cursor, arrays of enums and ids as comma lists', () => {
    const d = doc();
    strictInputs(d);
    const p = Object.fromEntries(d.paths['/x'].get.parameters.map((x: JsonObject) => [x.name, x]));
    expect(p.include_total.schema).toEqual({ type: 'boolean', default: false, example: true });
    expect(p.list_id.schema).toEqual({ type: 'integer', format: 'int64', minimum: 1, example: 3 });
    expect(p.after.schema).toEqual({ type: 'integer', format: 'int64', minimum: 0, default: 0, example: 1042 });
    expect(p.priority).toMatchObject({
      style: 'form',
      explode: false,
      schema: { type: 'array', items: { type: 'string', enum: ['urgent', 'high'] }, example: ['urgent', 'high'] },
    });
    expect(p.type.schema.items).toEqual({ type: 'string', enum: ['task.created', 'task.updated'] });
    expect(p.label_id.schema).toMatchObject({ items: { type: 'integer', format: 'int64', minimum: 1 }, example: [7] });
    expect(p.assignee_id.schema.items).toEqual({
      anyOf: [
        { type: 'integer', format: 'int64', minimum: 1 },
        { type: 'string', enum: ['me', 'none'] },
      ],
    });
    for (const name of ['priority', 'label_id', 'assignee_id']) expect(p[name].description).toContain('comma-separated');
  });

  it('types body ids as integers and lenient lists by what they mean, with the leniency in the description', () => {
    const d = doc();
    strictInputs(d);
    const props = d.components.schemas.In.properties;
    expect(props.list_id).toEqual({ type: 'integer', format: 'int64', minimum: 0, description: 'The list. A string of digits is accepted too.' });
    expect(props.user_id.description).toBe('The user (or send `email`). A string of digits is accepted too.');
    expect(props.folder_id.description).toBe('The folder (see the list.) A string of digits is accepted too.');
    expect(props.parent_id.anyOf).toEqual([{ type: 'integer', format: 'int64', minimum: 0 }, { type: 'null' }]);
    expect(props.label_ids.items).toEqual({ type: 'integer', format: 'int64', minimum: 1 });
    expect(props.fields.items).toEqual({ $ref: '#/components/schemas/V' });
    expect(JSON.stringify(d)).not.toContain('"not"');
  });

  it('gives every integer a format: int32 within 32 bits, else int64', () => {
    const d = doc();
    addIntegerFormats(d);
    expect(d.components.schemas.Out.properties).toEqual({
      n: { type: 'integer', minimum: 0, maximum: 2147483647, format: 'int32' },
      id: { type: 'integer', format: 'int64' },
    });
  });

  it('reads the values of a comma-list pattern, and nothing else', () => {
    expect(commaListValues('^(a|b_c)(,(a|b_c))*$')).toEqual(['a', 'b_c']);
    expect(commaListValues('^([0-9]+)(,([0-9]+))*$')).toBeNull();
    expect(commaListValues('^[a-z]+$')).toBeNull();
  });
});
