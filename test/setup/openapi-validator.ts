import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';

type JsonObject = Record<string, any>;

/**
 * Whether createTestApp validates every response against the document when
 * the test does not say. `OPENAPI_VALIDATE=0|1` overrides it for a run.
 */
export const VALIDATE_RESPONSES_DEFAULT = true;

/** Paths whose answers are not validated: health bodies are @nestjs/terminus's, metrics is text, the document and Swagger UI are not API answers. */
const UNDOCUMENTED = [/^\/health(\/live|\/ready)?$/, /^\/metrics$/, /^\/api\/v1\/openapi\.json$/, /^\/docs(\/.*)?$/];

const DOC_ID = 'https://openapi.local/openapi.json';

/** What a test sent and what it got back. */
export interface Exchange {
  method: string;
  url: string;
  status: number;
  contentType: string | undefined;
  body: string;
}

interface Route {
  template: string;
  regex: RegExp;
  params: number;
  item: JsonObject;
}

/**
 * Checks responses against an OpenAPI 3.1 document: the route (path template
 * and method) must be documented, the status must be one of its responses,
 * the body must match that response's schema (JSON Schema 2020-12 with ajv,
 * formats included), a response without content must have no body, and an
 * error's message must be one of the messages the response documents (its
 * named examples). A request to no documented route must get the 404
 * `Not found` of D3 step 1.
 */
export class OpenApiResponseValidator {
  private readonly ajv: Ajv2020;
  private readonly routes: Route[];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly doc: JsonObject) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: DOC_ID, components: { schemas: doc.components?.schemas ?? {} } });
    this.routes = Object.entries<JsonObject>(doc.paths ?? {})
      .map(([template, item]) => ({
        template,
        item,
        params: (template.match(/\{[^}]+\}/g) ?? []).length,
        regex: new RegExp(
          '^' +
            template
              .split(/\{[^}]+\}/)
              .map(escapeRegex)
              .join('[^/]+') +
            '$',
        ),
      }))
      // Literal segments win over parameters, as in the router.
      .sort((a, b) => a.params - b.params);
  }

  /** The problems of one exchange; empty when it matches the document. */
  problems(exchange: Exchange): string[] {
    const path = exchange.url.split('?')[0];
    if (UNDOCUMENTED.some((r) => r.test(path))) return [];
    const method = exchange.method.toLowerCase();
    const route = this.routes.find((r) => r.regex.test(path) && r.item[method]);
    if (!route) {
      if (exchange.status === 404 && parseJson(exchange.body)?.error === 'Not found') return [];
      return [`no documented route ${exchange.method.toUpperCase()} ${path} (and the answer is not the 404 'Not found' of an unknown route)`];
    }
    const op: JsonObject = route.item[method];
    const status = String(exchange.status);
    let response: JsonObject | undefined = op.responses?.[status] ?? op.responses?.[status[0] + 'XX'] ?? op.responses?.default;
    if (!response) return [`status ${status} is not documented (documented: ${Object.keys(op.responses ?? {}).join(', ')})`];
    response = this.deref(response);

    const media: JsonObject | undefined = response.content?.['application/json'];
    if (!media) {
      // A body of another documented type (a file's bytes) is not checked here.
      return exchange.body === '' || response.content
        ? []
        : [`status ${status} is documented without a body, but the answer has one: ${snippet(exchange.body)}`];
    }
    const problems: string[] = [];
    if (!exchange.contentType?.startsWith('application/json')) problems.push(`content-type is ${exchange.contentType ?? 'missing'}, expected application/json`);
    const body = parseJson(exchange.body);
    if (body === undefined) return [...problems, `the body is not JSON: ${snippet(exchange.body)}`];
    if (media.schema) {
      const validate = this.validator(media.schema);
      if (!validate(body)) {
        problems.push(
          ...(validate.errors ?? []).map(
            (e) => `body${e.instancePath || ''} ${e.message}${e.params && 'additionalProperty' in e.params ? ` '${e.params.additionalProperty}'` : ''}`,
          ),
        );
      }
    }
    if (exchange.status >= 400 && media.examples && typeof body?.error === 'string') {
      const messages = Object.values<JsonObject>(media.examples).map((e) => e?.value?.error);
      if (!messages.some((m) => documentedMessageMatches(m, body.error)))
        problems.push(`error message '${body.error}' is not documented for ${status} (documented: ${messages.map((m) => `'${m}'`).join(', ')})`);
    }
    return problems;
  }

  /** Throws when the exchange does not match the document, naming method, route, status and problems. */
  assert(exchange: Exchange): void {
    const problems = this.problems(exchange);
    if (problems.length === 0) return;
    const path = exchange.url.split('?')[0];
    const route = this.routes.find((r) => r.regex.test(path))?.template;
    throw new Error(
      `OpenAPI response validation failed: ${exchange.method.toUpperCase()} ${exchange.url}` +
        (route ? ` (route ${route})` : '') +
        ` answered ${exchange.status}:\n  - ${problems.join('\n  - ')}\n  body: ${snippet(exchange.body)}`,
    );
  }

  private deref(response: JsonObject): JsonObject {
    let r = response;
    for (let i = 0; i < 10 && typeof r.$ref === 'string'; i++) {
      const [, kind, name] = /^#\/components\/(\w+)\/(.+)$/.exec(r.$ref) ?? [];
      r = this.doc.components?.[kind]?.[name];
      if (!r) throw new Error(`OpenAPI: unresolvable $ref ${response.$ref}`);
    }
    return r;
  }

  /** One compiled function per distinct schema (every error answer shares the Error one). */
  private validator(schema: JsonObject): ValidateFunction {
    const key = JSON.stringify(schema);
    let fn = this.compiled.get(key);
    if (!fn) {
      fn = this.ajv.compile(rebase(schema));
      this.compiled.set(key, fn);
    }
    return fn;
  }
}

/** `schema` with its local `$ref`s pointing into the document registered under DOC_ID. */
function rebase(schema: unknown): JsonObject {
  return JSON.parse(JSON.stringify(schema), (key, value) => (key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? DOC_ID + value : value));
}

/**
 * Whether an error message is the documented `message`; a `<word>` in a
 * documented message stands for any text (`Unknown query parameter: <name>`).
 */
export function documentedMessageMatches(documented: string, message: string): boolean {
  if (!/<[a-z_]+>/.test(documented)) return documented === message;
  return new RegExp(
    '^' +
      documented
        .split(/<[a-z_]+>/)
        .map(escapeRegex)
        .join('.*') +
      '$',
    's',
  ).test(message);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function snippet(text: string): string {
  return text.length > 500 ? text.slice(0, 500) + '...' : text;
}

/** Whether to validate: the test's choice, else `OPENAPI_VALIDATE`, else VALIDATE_RESPONSES_DEFAULT. */
export function validationEnabled(choice?: boolean): boolean {
  if (choice !== undefined) return choice;
  if (process.env.OPENAPI_VALIDATE === '1') return true;
  if (process.env.OPENAPI_VALIDATE === '0') return false;
  return VALIDATE_RESPONSES_DEFAULT;
}

/** The exchange of an inject call. */
export function exchangeOf(options: InjectOptions | string, response: LightMyRequestResponse): Exchange {
  const opts = typeof options === 'string' ? { url: options } : options;
  const url = typeof opts.url === 'string' ? opts.url : ((opts.path as string | undefined) ?? '/');
  const query = opts.query && typeof opts.query === 'object' ? new URLSearchParams(opts.query as Record<string, string>).toString() : '';
  const contentType = response.headers['content-type'];
  return {
    method: opts.method ?? 'GET',
    url: query ? `${url}${url.includes('?') ? '&' : '?'}${query}` : url,
    status: response.statusCode,
    contentType: Array.isArray(contentType) ? contentType[0] : contentType === undefined ? undefined : String(contentType),
    body: response.body,
  };
}

/**
 * A function createTestApp passes every inject answer through: it throws when
 * the answer does not match the document the app serves; identity when
 * validation is off.
 */
export async function responseChecker(
  app: NestFastifyApplication,
  enabled: boolean,
): Promise<(options: InjectOptions | string, response: LightMyRequestResponse) => LightMyRequestResponse> {
  if (!enabled) return (_options, response) => response;
  const served = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  const validator = new OpenApiResponseValidator(JSON.parse(served.body));
  return (options, response) => {
    validator.assert(exchangeOf(options, response));
    return response;
  };
}
