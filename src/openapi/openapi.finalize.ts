/**
 * What the document @nestjs/swagger scans from the decorators cannot say, added
 * after the scan. Each step is a rule over every operation of a kind, or needs
 * what no single decorator holds:
 * - tidy: drops what the scanner emits empty (`info.contact`, `parameters: []`)
 *   and describes bare success answers (a response object requires a description);
 * - describeAccess: ends a description with who may call the route; the two
 *   halves come from two decorators (ApiOperation, `x-access` of @Authenticated)
 *   and ApiOperation replaces a description rather than extending it;
 * - renameSchemas: the contract's schema names (`TaskDto` -> `Task`), one rule
 *   instead of an @ApiSchema on every DTO;
 * - addIdempotency: the `Idempotency-Key` header with its 400, 409 and 422 on
 *   every keyed POST (D35): @Authenticated does not know the route's method;
 * - addGenericResponses: the answers given outside the route's own code, as
 *   `$ref`s to shared responses (no decorator emits one): 400 bad body, 413 and
 *   415 where there is a request body (D7), 429 where there is a key, 408, 414
 *   (path parameters) and 431 before any route runs, 500 and 503 everywhere
 *   (D31); and every error answer with the `Error` schema, one named example
 *   per message and the messages listed in its description (several
 *   decorators may document one status);
 * - addResponseHeaders: `X-Request-Id`, `RateLimit-*`, `Cache-Control`,
 *   `Retry-After` and `Idempotent-Replayed` on the answers they go with;
 * - strictResponses: every schema a response reaches is strict (D16): all
 *   properties required, no others allowed, timestamps in the form of convention 2;
 * - addSuccessExamples: an example built from its schema for every success
 *   answer with a body, for client generators and Swagger UI;
 * - orderDocument: keys in a stable order, so the serialised document is byte-stable.
 * Stated at their source instead: whole numbers (ApiInteger), the 401 with its
 * `WWW-Authenticate` header and the 403 of a missing scope (@Authenticated),
 * the tags with their descriptions and the servers (documentConfig).
 * Pure functions of a plain JSON document; unit-tested in openapi.finalize.spec.ts.
 */

import { KEYED_CACHE_CONTROL, TASK_CACHE_CONTROL } from '../common/cache/cache-control';
import { BODY_TOO_LARGE_MESSAGE, INTERNAL, NOT_JSON_MESSAGE, SERVICE_UNAVAILABLE, URI_TOO_LONG } from '../common/errors/to-http-error';
import { CLIENT_ERRORS } from '../common/http/framework-answers';
import { IDEMPOTENCY_MESSAGES, NO_IDEMPOTENCY_EXTENSION } from '../common/idempotency/idempotency-key';
import { errorExamples } from '../common/openapi/api-errors.decorator';
import { RATE_LIMIT_MESSAGE } from '../common/throttle/rate-limit.constants';
import { BODY_400_MESSAGES } from '../common/validation/body-error';

/** A node of the JSON document (loosely typed on purpose: this code walks it generically). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JsonObject = Record<string, any>;

/** The HTTP methods of a path item, in the order the document lists them. */
export const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'options', 'head', 'trace'] as const;

/** Convention 2: `YYYY-MM-DDTHH:mm:ss.sssZ`. */
export const TIMESTAMP_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';

/** Messages of the shared error answers (D7, D31), published under components.responses. */
export const SHARED_ERROR_RESPONSES: Record<string, { status: string; message: string }> = {
  PayloadTooLarge: { status: '413', message: BODY_TOO_LARGE_MESSAGE },
  UnsupportedMediaType: { status: '415', message: NOT_JSON_MESSAGE },
  TooManyRequests: { status: '429', message: RATE_LIMIT_MESSAGE },
  InternalServerError: { status: '500', message: INTERNAL.message },
  ServiceUnavailable: { status: '503', message: SERVICE_UNAVAILABLE.message },
  // Answers given before any route runs.
  RequestTimeout: { status: '408', message: CLIENT_ERRORS.ERR_HTTP_REQUEST_TIMEOUT.message },
  UriTooLong: { status: '414', message: URI_TOO_LONG.message },
  RequestHeadersTooLarge: { status: '431', message: CLIENT_ERRORS.HPE_HEADER_OVERFLOW.message },
};

/** Shared answers written on the socket before Fastify sees the request: they carry no header beyond the content type. */
const SOCKET_ANSWERS = ['408', '431'];

/** The header of every answer that reaches Fastify. */
export const REQUEST_ID_HEADERS = {
  'X-Request-Id': {
    description: 'The id of this request in the service logs: the `X-Request-Id` the client sent when acceptable, else a new UUID',
    schema: { type: 'string', maxLength: 200, example: '3f6c1a9e-8a3b-4d7e-9a51-2b0c7d6e4f10' },
  },
};

/** D31: the headers of the answers of a route that needs a key. */
export const KEYED_HEADERS = {
  'RateLimit-Limit': {
    description: 'Requests allowed per minute for this key (or, without a valid key, this client address); absent when rate limiting is off',
    schema: { type: 'integer', minimum: 1, maximum: 2147483647 },
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the current window; absent when rate limiting is off',
    schema: { type: 'integer', minimum: 0, maximum: 2147483647 },
  },
  'RateLimit-Reset': {
    description: 'Seconds until the window resets; absent when rate limiting is off',
    schema: { type: 'integer', minimum: 0, maximum: 86400 },
  },
  'Cache-Control': {
    description: `\`${KEYED_CACHE_CONTROL}\` on every answer of a route that needs a key, except a task read with Get task: \`${TASK_CACHE_CONTROL}\``,
    schema: { type: 'string', enum: [KEYED_CACHE_CONTROL, TASK_CACHE_CONTROL] },
  },
};

/** The header of a 429 answer, beside KEYED_HEADERS. */
export const RETRY_AFTER_HEADERS = {
  'Retry-After': { description: 'Seconds to wait before the next request counts again', schema: { type: 'integer', minimum: 0, maximum: 86400 } },
};

const ERROR_REF = '#/components/schemas/Error';

/** The contract's name of a scanned schema: the class name without its `Dto` suffix. */
export function schemaName(className: string): string {
  return className.replace(/Dto$/, '');
}

/** A deep copy of a JSON value. */
function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Calls `fn` on every object node under `node` (depth first, parents first). */
function walk(node: unknown, fn: (obj: JsonObject) => void): void {
  if (Array.isArray(node)) {
    node.forEach((n) => walk(n, fn));
  } else if (isObject(node)) {
    fn(node);
    Object.values(node).forEach((n) => walk(n, fn));
  }
}

/** Renames component schemas per schemaName and rewrites every `$ref` to them. Throws on a name clash. */
export function renameSchemas(doc: JsonObject): void {
  const schemas: JsonObject = doc.components?.schemas ?? {};
  const renamed: JsonObject = {};
  const map = new Map<string, string>();
  const from = new Map<string, string>();
  for (const name of Object.keys(schemas).sort()) {
    const next = schemaName(name);
    if (from.has(next)) throw new Error(`OpenAPI: schemas ${from.get(next)} and ${name} would both be named ${next}`);
    renamed[next] = schemas[name];
    map.set(name, next);
    from.set(next, name);
  }
  if (doc.components) doc.components.schemas = renamed;
  walk(doc, (obj) => {
    if (typeof obj.$ref === 'string' && obj.$ref.startsWith('#/components/schemas/')) {
      const old = obj.$ref.slice('#/components/schemas/'.length);
      obj.$ref = '#/components/schemas/' + (map.get(old) ?? old);
    }
  });
}

/** Every operation of the document with its path and method. */
export function operations(doc: JsonObject): { path: string; method: string; op: JsonObject }[] {
  const out: { path: string; method: string; op: JsonObject }[] = [];
  for (const [path, item] of Object.entries<JsonObject>(doc.paths ?? {})) {
    for (const method of METHODS) if (isObject(item[method])) out.push({ path, method, op: item[method] });
  }
  return out;
}

/** The messages an error response documents: its named examples, in order (the decorators key them by message). */
export function errorMessages(response: JsonObject): string[] {
  const examples: JsonObject = response.content?.['application/json']?.examples ?? {};
  return Object.values<JsonObject>(examples)
    .map((example) => example?.value?.error)
    .filter((m): m is string => typeof m === 'string' && m !== '');
}

/** An error response documenting `messages`: the Error schema, one named example per message, the messages listed in the description. */
export function errorResponse(messages: string[]): JsonObject {
  return {
    description: messages.map((m) => '`' + m + '`').join(', '),
    content: {
      'application/json': {
        schema: { $ref: ERROR_REF },
        examples: errorExamples(messages),
      },
    },
  };
}

/** Rewrites the error response of `status` (creating it) with its documented messages, then `extra`; keeps its headers. */
function mergeError(op: JsonObject, status: string, extra: string[]): void {
  op.responses ??= {};
  const existing: JsonObject | undefined = op.responses[status];
  const messages = existing && !existing.$ref ? errorMessages(existing) : [];
  for (const m of extra) if (!messages.includes(m)) messages.push(m);
  op.responses[status] = { ...errorResponse(messages), ...(existing?.headers ? { headers: existing.headers } : {}) };
}

/**
 * Adds the answers given outside the route's own code (see the file comment)
 * and normalises every error response of every operation, keeping its headers.
 */
export function addGenericResponses(doc: JsonObject): void {
  doc.components ??= {};
  doc.components.responses ??= {};
  for (const [name, { message }] of Object.entries(SHARED_ERROR_RESPONSES)) doc.components.responses[name] = errorResponse([message]);
  const refOf = (status: string) => {
    const name = Object.keys(SHARED_ERROR_RESPONSES).find((n) => SHARED_ERROR_RESPONSES[n].status === status)!;
    return { $ref: '#/components/responses/' + name };
  };

  for (const { path, op } of operations(doc)) {
    op.responses ??= {};
    for (const [status, response] of Object.entries<JsonObject>(op.responses)) {
      // An answer with a body of its own (health's 503) is not an `{ error }` answer.
      const schema: JsonObject | undefined = response.content?.['application/json']?.schema;
      if (Number(status) >= 400 && !response.$ref && (!schema || schema.$ref === ERROR_REF)) mergeError(op, status, []);
    }
    if (op.requestBody) {
      mergeError(op, '400', BODY_400_MESSAGES);
      // A route with 413 or 415 answers of its own (D47's upload) keeps them, beside D7's 413.
      if (op.responses['413'] && !op.responses['413'].$ref) mergeError(op, '413', [SHARED_ERROR_RESPONSES.PayloadTooLarge.message]);
      else op.responses['413'] = refOf('413');
      if (!op.responses['415'] || op.responses['415'].$ref) op.responses['415'] = refOf('415');
    }
    if (typeof op['x-scope'] === 'string') {
      op.responses['429'] = refOf('429');
    } else {
      // A public route (health, metrics): no key, said explicitly.
      op.security = [];
    }
    op.responses['408'] = refOf('408');
    if (path.includes('{')) op.responses['414'] = refOf('414');
    op.responses['431'] = refOf('431');
    op.responses['500'] = refOf('500');
    // A route documenting its own 503 (health) keeps it.
    op.responses['503'] ??= refOf('503');
  }
}

/** D35: the request header every authenticated POST takes. */
export const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the request safe to retry: a retry with the same key and the same request gets the stored answer again ' +
    '(`Idempotent-Replayed: true`) instead of running twice. The key belongs to your API key; answers are kept for ' +
    '`IDEMPOTENCY_TTL_SECONDS` (default one day). Use a new key (a UUID, for instance) for each new request.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~]+$' },
};

/** D35: the header of a replayed answer. */
export const REPLAYED_HEADERS = {
  'Idempotent-Replayed': {
    description: '`true` when this is the stored answer of an earlier request with the same `Idempotency-Key`; absent otherwise',
    schema: { type: 'string', const: 'true' },
  },
};

/** D35 on every authenticated POST: the Idempotency-Key header and its answers (400 bad key, 409 in progress, 422 other request). */
export function addIdempotency(doc: JsonObject): void {
  for (const { method, op } of operations(doc)) {
    // D46: a route that ignores the header (IgnoresIdempotencyKey) says so with this extension, removed here.
    const ignored = op[NO_IDEMPOTENCY_EXTENSION] === true;
    delete op[NO_IDEMPOTENCY_EXTENSION];
    if (method !== 'post' || typeof op['x-scope'] !== 'string' || ignored) continue;
    op.parameters = [...(op.parameters ?? []).filter((p: JsonObject) => p.name !== IDEMPOTENCY_KEY_PARAMETER.name), clone(IDEMPOTENCY_KEY_PARAMETER)];
    mergeError(op, '400', [IDEMPOTENCY_MESSAGES.format]);
    mergeError(op, '409', [IDEMPOTENCY_MESSAGES.inProgress]);
    mergeError(op, '422', [IDEMPOTENCY_MESSAGES.otherRequest]);
  }
}

/**
 * Documents the response headers (D31): `X-Request-Id` on every
 * answer but those written on the socket (408, 431); `RateLimit-*` and
 * `Cache-Control` on the answers of routes that need a key (the shared
 * responses say so in their descriptions); `Retry-After` on 429.
 */
export function addResponseHeaders(doc: JsonObject): void {
  const shared: JsonObject = doc.components?.responses ?? {};
  for (const [name, response] of Object.entries<JsonObject>(shared)) {
    const status = SHARED_ERROR_RESPONSES[name]?.status;
    if (SOCKET_ANSWERS.includes(status)) continue;
    response.headers = {
      ...(response.headers ?? {}),
      ...clone(REQUEST_ID_HEADERS),
      ...clone(KEYED_HEADERS),
      ...(status === '429' ? clone(RETRY_AFTER_HEADERS) : {}),
    };
  }
  for (const { method, op } of operations(doc)) {
    const keyed = typeof op['x-scope'] === 'string';
    for (const [status, response] of Object.entries<JsonObject>(op.responses ?? {})) {
      if (response.$ref) continue;
      // D35: a replay repeats a stored 2xx or 4xx of the route (never a 401, nor the key's own answers).
      const replayable = method === 'post' && keyed && /^[24]/.test(status) && !['401', '422'].includes(status);
      response.headers = {
        ...(response.headers ?? {}),
        ...clone(REQUEST_ID_HEADERS),
        ...(keyed ? clone(KEYED_HEADERS) : {}),
        ...(replayable ? clone(REPLAYED_HEADERS) : {}),
      };
    }
  }
}

/**
 * Ends each authenticated operation's description with who may call it:
 * `Scope \`tasks:write\`; owners, admins and members (not viewers); ...`, from
 * its `x-scope` and the policy wording in `x-access` (then removed).
 */
export function describeAccess(doc: JsonObject): void {
  for (const { op } of operations(doc)) {
    if (typeof op['x-access'] !== 'string') continue;
    const sentence = `Scope \`${op['x-scope']}\`; ${op['x-access']}.`;
    delete op['x-access'];
    op.description = op.description ? `${op.description}\n\n${sentence}` : sentence;
  }
}

/** Names of the component schemas reachable from `roots` (through `$ref`s, transitively). */
export function reachableSchemas(doc: JsonObject, roots: unknown[]): Set<string> {
  const schemas: JsonObject = doc.components?.schemas ?? {};
  const seen = new Set<string>();
  const visit = (node: unknown) =>
    walk(node, (obj) => {
      if (typeof obj.$ref !== 'string' || !obj.$ref.startsWith('#/components/schemas/')) return;
      const name = obj.$ref.slice('#/components/schemas/'.length);
      if (seen.has(name) || !(name in schemas)) return;
      seen.add(name);
      visit(schemas[name]);
    });
  roots.forEach(visit);
  return seen;
}

/** The schemas of every response (inline ones and `$ref`s) and of every request body. */
export function responseAndRequestRoots(doc: JsonObject): { responses: unknown[]; requests: unknown[] } {
  const responses: unknown[] = [];
  const requests: unknown[] = [];
  for (const { op } of operations(doc)) {
    for (const r of Object.values<JsonObject>(op.responses ?? {})) responses.push(...Object.values<JsonObject>(r.content ?? {}).map((m) => m.schema));
    if (op.requestBody) requests.push(...Object.values<JsonObject>(op.requestBody.content ?? {}).map((m) => m.schema));
    for (const p of op.parameters ?? []) requests.push(p.schema);
  }
  for (const r of Object.values<JsonObject>(doc.components?.responses ?? {}))
    responses.push(...Object.values<JsonObject>(r.content ?? {}).map((m) => m.schema));
  return { responses, requests };
}

/**
 * D16: an object schema of a response lists every property as required and
 * allows no other; a `date-time` string has the form of convention 2. Applied
 * in place to `schema` and everything under it (not across `$ref`s).
 */
export function strictify(schema: unknown): void {
  walk(schema, (obj) => {
    if (isObject(obj.properties) && !('additionalProperties' in obj) && !Array.isArray(obj.allOf)) {
      obj.additionalProperties = false;
      obj.required = Object.keys(obj.properties);
    }
    if (obj.format === 'date-time' && !obj.pattern) obj.pattern = TIMESTAMP_PATTERN;
  });
}

/** Example values by format and type, for schemas that give none. */
const EXAMPLE_BY_FORMAT: Record<string, unknown> = { 'date-time': '2025-01-15T09:30:00.000Z' };
const EXAMPLE_BY_TYPE: Record<string, unknown> = { string: 'text', integer: 1, number: 1, boolean: false, null: null, object: {} };

/**
 * An example value of `schema` (resolving `$ref`s into `doc`): the schema's
 * own `example`, else the first enum value, else one built from its type: an
 * object with every property, an array of one item, `null` for a nullable
 * scalar, the object of an object-or-null. Valid against the strict response
 * schemas (a test checks).
 */
export function exampleOf(doc: JsonObject, schema: unknown, depth = 0): unknown {
  if (!isObject(schema) || depth > 32) return null; // depth: a guard against cyclic $refs
  if (typeof schema.$ref === 'string') return exampleOf(doc, doc.components?.schemas?.[schema.$ref.slice('#/components/schemas/'.length)], depth + 1);
  if ('example' in schema) return clone(schema.example);
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const alternatives: unknown[] | undefined = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives)) {
    const chosen = alternatives.find((a) => !(isObject(a) && a.type === 'null')) ?? alternatives[0];
    return exampleOf(doc, chosen, depth + 1);
  }
  const types: unknown[] = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('null')) return null;
  const type = types[0];
  if (type === 'object' && isObject(schema.properties)) {
    return Object.fromEntries(Object.entries<unknown>(schema.properties).map(([k, v]) => [k, exampleOf(doc, v, depth + 1)]));
  }
  if (type === 'array') return [exampleOf(doc, schema.items, depth + 1)];
  if (typeof schema.format === 'string' && schema.format in EXAMPLE_BY_FORMAT) return EXAMPLE_BY_FORMAT[schema.format];
  return typeof type === 'string' && type in EXAMPLE_BY_TYPE ? clone(EXAMPLE_BY_TYPE[type]) : null;
}

/** Gives every 2xx JSON answer without an example one built by exampleOf. */
export function addSuccessExamples(doc: JsonObject): void {
  for (const { op } of operations(doc)) {
    for (const [status, response] of Object.entries<JsonObject>(op.responses ?? {})) {
      const media: JsonObject | undefined = response.content?.['application/json'];
      if (status.startsWith('2') && media?.schema && media.example === undefined && media.examples === undefined) media.example = exampleOf(doc, media.schema);
    }
  }
}

/** Applies strictify to every schema a response reaches, inline or named. */
export function strictResponses(doc: JsonObject): void {
  const { responses } = responseAndRequestRoots(doc);
  responses.forEach(strictify);
  for (const name of reachableSchemas(doc, responses)) strictify(doc.components.schemas[name]);
}

/** Reading order of an operation's keys; others follow by name. */
const OPERATION_KEYS = ['tags', 'summary', 'description', 'operationId', 'x-scope', 'security', 'parameters', 'requestBody', 'responses'];

function sortedObject(obj: JsonObject, compare?: (a: string, b: string) => number): JsonObject {
  return Object.fromEntries(
    Object.keys(obj)
      .sort(compare)
      .map((k) => [k, obj[k]]),
  );
}

/**
 * Stable key order: top-level keys in the usual reading order, paths and
 * component maps by name, methods in METHODS order, keys of an operation in
 * OPERATION_KEYS order, responses by status. Everything else (the tags, the
 * properties of a schema) keeps the order the code declares it in.
 */
export function orderDocument(doc: JsonObject): JsonObject {
  const paths: JsonObject = {};
  for (const path of Object.keys(doc.paths ?? {}).sort()) {
    const item = doc.paths[path];
    const ordered: JsonObject = {};
    for (const key of Object.keys(item)
      .filter((k) => !(METHODS as readonly string[]).includes(k))
      .sort())
      ordered[key] = item[key];
    for (const method of METHODS) {
      if (!item[method]) continue;
      const op: JsonObject = {};
      for (const key of OPERATION_KEYS) if (item[method][key] !== undefined) op[key] = item[method][key];
      for (const key of Object.keys(item[method]).sort()) if (!(key in op)) op[key] = item[method][key];
      if (op.responses) op.responses = sortedObject(op.responses, (a, b) => a.localeCompare(b, 'en', { numeric: true }));
      ordered[method] = op;
    }
    paths[path] = ordered;
  }
  const components: JsonObject = {};
  for (const key of Object.keys(doc.components ?? {}).sort()) components[key] = sortedObject(doc.components[key]);
  const head = ['openapi', 'info', 'jsonSchemaDialect', 'servers', 'security', 'tags', 'externalDocs'];
  const out: JsonObject = {};
  for (const key of head) if (doc[key] !== undefined) out[key] = doc[key];
  out.paths = paths;
  for (const key of Object.keys(doc).sort()) if (!(key in out) && key !== 'components') out[key] = doc[key];
  out.components = components;
  return out;
}

/** Default descriptions of success answers a decorator left without one (a response object requires one). */
export const SUCCESS_DESCRIPTIONS: Record<string, string> = { '200': 'OK', '201': 'Created', '204': 'No content' };

/** Drops what the scanner emits empty (`info.contact: {}`, `parameters: []`) and describes bare success answers. */
export function tidy(doc: JsonObject): void {
  if (isObject(doc.info?.contact) && Object.keys(doc.info.contact).length === 0) delete doc.info.contact;
  for (const { op } of operations(doc)) {
    if (Array.isArray(op.parameters) && op.parameters.length === 0) delete op.parameters;
    for (const [status, response] of Object.entries<JsonObject>(op.responses ?? {})) {
      if (!response.$ref && !response.description && SUCCESS_DESCRIPTIONS[status]) response.description = SUCCESS_DESCRIPTIONS[status];
    }
  }
}

/** All the steps above, on a copy of the scanned document. */
export function finalizeDocument(scanned: JsonObject): JsonObject {
  const doc = clone(scanned);
  tidy(doc);
  describeAccess(doc);
  renameSchemas(doc);
  addIdempotency(doc);
  addGenericResponses(doc);
  addResponseHeaders(doc);
  strictResponses(doc);
  strictInputs(doc);
  addIntegerFormats(doc);
  addSuccessExamples(doc);
  shareHeaders(doc);
  return orderDocument(doc);
}

/** The document as committed and served: 2-space indent, trailing newline. */
export function serializeDocument(doc: JsonObject): string {
  return JSON.stringify(doc, null, 2) + '\n';
}

/** Where shared response headers are published. */
const HEADER_REF = '#/components/headers/';
/** Where schemas are published. */
const SCHEMA_REF = '#/components/schemas/';

/**
 * Publishes response headers once: each header name's most used definition (when used at
 * least twice) goes to `components.headers` under that name, and every response that carries
 * it refers to it with a `$ref` (generators then make one type of it, not one per answer);
 * a shared header's enum is also a named schema (`Cache-Control` -> `CacheControl`), since some
 * generators (Java) make an enum type per use of an inline enum even behind a header `$ref`.
 */
export function shareHeaders(doc: JsonObject): void {
  const holders: JsonObject[] = [];
  walk({ paths: doc.paths, responses: doc.components?.responses }, (obj) => {
    if (isObject(obj.headers) && (obj.description !== undefined || obj.content !== undefined)) holders.push(obj.headers);
  });
  const uses = new Map<string, Map<string, number>>();
  for (const headers of holders) {
    for (const [name, header] of Object.entries<JsonObject>(headers)) {
      if (header.$ref) continue;
      const text = JSON.stringify(header);
      const variants = uses.get(name) ?? new Map<string, number>();
      variants.set(text, (variants.get(text) ?? 0) + 1);
      uses.set(name, variants);
    }
  }
  const shared = new Map<string, string>();
  for (const [name, variants] of uses) {
    const [text, count] = [...variants].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
    if (count >= 2) shared.set(name, text);
  }
  if (shared.size === 0) return;
  doc.components ??= {};
  doc.components.headers ??= {};
  for (const [name, text] of shared) {
    const header: JsonObject = JSON.parse(text);
    // An enum is published as a named schema too: generators make one enum type of it, not one per answer.
    if (isObject(header.schema) && Array.isArray(header.schema.enum)) {
      doc.components.schemas ??= {};
      doc.components.schemas[headerSchemaName(name)] = header.schema;
      header.schema = { $ref: SCHEMA_REF + headerSchemaName(name) };
    }
    doc.components.headers[name] = header;
  }
  for (const headers of holders) {
    for (const [name, header] of Object.entries<JsonObject>(headers)) {
      if (shared.get(name) === JSON.stringify(header)) headers[name] = { $ref: HEADER_REF + name };
    }
  }
}

/** The document with every header `$ref` replaced by its definition, and a header's enum schema by its own (tests compare answers with it). */
export function inlineHeaders(doc: JsonObject): JsonObject {
  const out = clone(doc);
  const defs: JsonObject = out.components?.headers ?? {};
  walk(out, (obj) => {
    if (!isObject(obj.headers)) return;
    for (const [name, header] of Object.entries<JsonObject>(obj.headers)) {
      if (typeof header.$ref === 'string' && header.$ref.startsWith(HEADER_REF)) obj.headers[name] = clone(defs[header.$ref.slice(HEADER_REF.length)]);
      const schemaRef = obj.headers[name].schema?.$ref;
      if (typeof schemaRef === 'string' && schemaRef === SCHEMA_REF + headerSchemaName(name)) {
        obj.headers[name].schema = clone(out.components.schemas[headerSchemaName(name)]);
      }
    }
  });
  if (out.components) {
    delete out.components.headers;
    for (const name of Object.keys(defs)) delete out.components.schemas?.[headerSchemaName(name)];
  }
  return out;
}

/** The schema name of a shared header's enum: `Cache-Control` -> `CacheControl`. */
function headerSchemaName(header: string): string {
  return header.replace(/-/g, '');
}

/** Largest value of a 32-bit signed integer: an `integer` bounded by it is `int32`. */
const INT32_MAX = 2147483647;

/**
 * Gives every `integer` schema a format, for generators that pick a machine type by it:
 * `int32` when its bounds fit 32 bits, else `int64` (event ids and the events cursor, which
 * grow without such a bound).
 */
export function addIntegerFormats(doc: JsonObject): void {
  walk(doc, (obj) => {
    const integer = obj.type === 'integer' || (Array.isArray(obj.type) && obj.type.includes('integer'));
    if (!integer || obj.format !== undefined) return;
    const fits = typeof obj.maximum === 'number' && obj.maximum <= INT32_MAX && (typeof obj.minimum !== 'number' || obj.minimum >= -INT32_MAX - 1);
    obj.format = fits ? 'int32' : 'int64';
  });
}

/** The alternatives of a `^(a|b)(,(a|b))*$` comma-list pattern (the enum it stands for), else null. */
export function commaListValues(pattern: unknown): string[] | null {
  if (typeof pattern !== 'string') return null;
  const m = /^\^\(([^()]+)\)\(,\(\1\)\)\*\$$/.exec(pattern);
  if (!m) return null;
  const values = m[1].split('|').map((v) => v.replace(/\\(.)/g, '$1'));
  return values.every((v) => /^[a-z_.]+$/.test(v)) ? values : null;
}

/** An id as documented: a positive whole number (int64: ids are PostgreSQL bigints or may become so). */
const ID_SCHEMA = { type: 'integer', format: 'int64', minimum: 1 };

/** Prose for what a query parameter accepts beyond its schema. */
const COMMA_LIST_PROSE = 'Several values: one comma-separated list (the parameter may also be repeated; the values of every occurrence count).';

/** Appends `sentence` to `obj.description`, once. */
function addProse(obj: JsonObject, sentence: string): void {
  const text = typeof obj.description === 'string' ? obj.description.trim() : '';
  if (text.includes(sentence)) return;
  obj.description = text === '' ? sentence : `${text}${/[.!?]\)?$/.test(text) ? '' : '.'} ${sentence}`;
}

/**
 * Documents lenient inputs strictly, so that generators type them (the leniency goes to the
 * prose): query ids as integers, `true`/`false` parameters as booleans, comma-list filters as
 * arrays of enums or ids (`style: form, explode: false`), the events cursor as an int64 like
 * the `next_after` it comes from; in bodies, ids as integers and the custom-field list as
 * custom-field values (the service also takes ids as strings of digits and ignores other items).
 */
export function strictInputs(doc: JsonObject): void {
  for (const { op } of operations(doc)) {
    for (const p of (op.parameters ?? []) as JsonObject[]) {
      if (p.in !== 'query' || !isObject(p.schema)) continue;
      const s = p.schema;
      if (s.type === 'string' && Array.isArray(s.enum) && s.enum.length === 2 && s.enum.includes('true') && s.enum.includes('false')) {
        p.schema = { type: 'boolean', ...(s.default !== undefined ? { default: s.default === 'true' } : {}), example: s.example === 'true' };
        addProse(p, 'Also accepted: `1`, `0`, `yes`, `no`.');
      } else if (p.name === 'after') {
        p.schema = { type: 'integer', format: 'int64', minimum: 0, default: 0, example: Number(s.example ?? 0) };
      } else if (/_id$/.test(p.name) && s.type === 'string' && (s.pattern === '^[0-9]+$' || s.pattern === undefined)) {
        p.schema = { ...ID_SCHEMA, example: Number(s.example ?? 1) };
      } else if (s.type === 'array' && isObject(s.items)) {
        const values = commaListValues(s.items.pattern);
        const ids = s.items.pattern === '^([0-9]+)(,([0-9]+))*$';
        const idsOrWords = /^\^\(\[0-9\]\+\|([a-z|]+)\)/.exec(String(s.items.pattern));
        let items: JsonObject | null = null;
        if (values) items = { type: 'string', enum: values };
        else if (ids) items = { ...ID_SCHEMA };
        else if (idsOrWords) items = { anyOf: [{ ...ID_SCHEMA }, { type: 'string', enum: idsOrWords[1].split('|') }] };
        if (!items) continue;
        const example = Array.isArray(s.example)
          ? s.example.flatMap((e: unknown) => String(e).split(',')).map((e: string) => (/^[0-9]+$/.test(e) ? Number(e) : e))
          : undefined;
        p.schema = { type: 'array', maxItems: s.maxItems, items, ...(example ? { example } : {}) };
        p.style = 'form';
        p.explode = false;
        addProse(p, COMMA_LIST_PROSE);
      }
    }
  }
  const schemas: JsonObject = doc.components?.schemas ?? {};
  // A body id: a number or a string of digits (D5), documented as the number.
  const isBodyId = (node: unknown): node is JsonObject =>
    isObject(node) &&
    Array.isArray(node.oneOf) &&
    node.oneOf.length === 2 &&
    node.oneOf.some((b: JsonObject) => b.type === 'integer') &&
    node.oneOf.some((b: JsonObject) => b.pattern === '^[0-9]+$');
  walk(schemas, (obj) => {
    if (!isObject(obj.properties)) return;
    for (const prop of Object.values<JsonObject>(obj.properties)) {
      if (isBodyId(prop) || (isObject(prop) && Array.isArray((prop as JsonObject).anyOf) && (prop as JsonObject).anyOf.some(isBodyId)))
        addProse(prop, 'A string of digits is accepted too.');
    }
  });
  walk(schemas, (obj) => {
    if (!isBodyId(obj)) return;
    delete obj.oneOf;
    Object.assign(obj, ID_SCHEMA, { minimum: 0 });
  });
  walk(schemas, (obj) => {
    if (!isObject(obj.properties)) return;
    for (const prop of Object.values<JsonObject>(obj.properties)) {
      if (!isObject(prop)) continue;
      if (
        prop.type === 'array' &&
        isObject(prop.items) &&
        prop.items.type === undefined &&
        !prop.items.$ref &&
        !prop.items.anyOf &&
        /^An id/.test(String(prop.items.description))
      ) {
        prop.items = { ...ID_SCHEMA };
        addProse(prop, 'Ids may also be strings of digits; other items are ignored.');
      } else if (
        prop.type === 'array' &&
        isObject(prop.items) &&
        Array.isArray(prop.items.anyOf) &&
        prop.items.anyOf.some((b: JsonObject) => isObject(b.not))
      ) {
        prop.items = prop.items.anyOf.find((b: JsonObject) => !isObject(b.not));
        addProse(prop, 'Items that are not objects are ignored.');
      }
    }
  });
}
