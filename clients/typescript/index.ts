/**
 * Typed client of the work-tracking API: `openapi-fetch` over the types that
 * `openapi-typescript` generates from openapi.json (`npm run client` rewrites
 * schema.d.ts after `npm run openapi`). Every path, parameter, body and answer
 * is typed by the document. It runs wherever `fetch` and `crypto.randomUUID`
 * are global: Node.js 20 and later, browsers, workers.
 *
 *   const api = createApiClient('http://localhost:3000', 'svc_...');
 *   const { data, error, response } = await api.GET('/api/v1/tasks/{task_id}', { params: { path: { task_id: 41 } } });
 *
 * On top of the typed calls:
 * - retries: a request answered 503 or 429, or that failed on the network, is sent again
 *   (after `Retry-After` when the answer has one, else after a growing delay); every POST
 *   gets an `Idempotency-Key` unless it has one, and its retries send the same key, so the
 *   service does the work once and answers each retry with the stored answer;
 * - conditional task edits: getTask/updateTask/deleteTask carry the task's `ETag` and send
 *   it as `If-Match`; a task changed meanwhile throws PreconditionFailedError;
 * - iterators: tasks() walks keyset pages of List tasks, events() the events feed.
 */
import createClient, { type Client, type ClientOptions, type Middleware } from 'openapi-fetch';

import type { components, paths } from './schema.js';

export type { components, operations, paths } from './schema.js';

/** The component schemas of the document by name: `Schemas['Task']`, `Schemas['Error']`, ... */
export type Schemas = components['schemas'];

/** A client bound to one server and one API key. */
export type ApiClient = Client<paths>;

/** When and how often a request is sent again. */
export interface RetryOptions {
  /** Retries after the first try (default 3; 0 turns retries off). */
  retries?: number;
  /** Delay before the first retry when the answer has no `Retry-After`, doubled for each next one (default 250 ms). */
  baseDelayMs?: number;
  /** Longest wait before a retry, `Retry-After` included: a longer `Retry-After` is not waited for, its answer is returned (default 30,000 ms). */
  maxDelayMs?: number;
}

/** Options of createApiClient: those of openapi-fetch (but `baseUrl`), and `retry`. */
export interface ApiClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  retry?: RetryOptions;
}

/** The answers that are worth sending a request again for: the service is unavailable for now, or the key's rate limit is reached. */
const RETRIED_STATUSES = new Set([429, 503]);

/**
 * The POST routes that do not take an `Idempotency-Key` (the service ignores it): a retry
 * could do the work twice, so they are not retried after a network error or a 503.
 */
export const POSTS_WITHOUT_IDEMPOTENCY: readonly string[] = ['/api/v1/api-keys'];

/**
 * A client of the API at `baseUrl` (scheme, host and port; the paths carry
 * `/api/v1`) sending `apiKey` as `Authorization: Bearer <key>`, with retries
 * (`options.retry`) and an `Idempotency-Key` on every POST.
 */
export function createApiClient(baseUrl: string, apiKey: string, options: ApiClientOptions = {}): ApiClient {
  const { retry, ...rest } = options;
  const client = createClient<paths>({
    ...rest,
    baseUrl,
    headers: { ...(rest.headers as Record<string, string> | undefined), authorization: `Bearer ${apiKey}` },
    fetch: retryingFetch(rest.fetch ?? ((request: Request) => globalThis.fetch(request)), retry ?? {}),
  });
  client.use(idempotencyKeys);
  return client;
}

/** Gives a POST that takes one an `Idempotency-Key` when it has none. */
const idempotencyKeys: Middleware = {
  onRequest({ request, schemaPath }) {
    if (request.method === 'POST' && !POSTS_WITHOUT_IDEMPOTENCY.includes(schemaPath) && !request.headers.has('idempotency-key')) {
      request.headers.set('idempotency-key', newIdempotencyKey());
    }
    return request;
  },
};

/**
 * `fetch` sending a request again on 503, 429 or a network error, while `retries` allow.
 * A POST is sent again only with an `Idempotency-Key` (each try sends the same request,
 * key included). The last answer is returned; the last network error is thrown.
 */
function retryingFetch(send: (request: Request) => Promise<Response>, options: RetryOptions): (request: Request) => Promise<Response> {
  const retries = options.retries ?? 3;
  const baseDelayMs = options.baseDelayMs ?? 250;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  return async (request: Request) => {
    const retriable = request.method !== 'POST' || request.headers.has('idempotency-key');
    for (let attempt = 0; ; attempt++) {
      const last = !retriable || attempt >= retries;
      let response: Response;
      try {
        response = await send(last ? request : request.clone());
      } catch (err) {
        // An abort is the caller's decision, not a network failure.
        if (last || request.signal.aborted) throw err;
        await sleep(backoff(attempt, baseDelayMs, maxDelayMs), request.signal);
        continue;
      }
      if (last || !RETRIED_STATUSES.has(response.status)) return response;
      const wait = retryAfterMs(response.headers.get('retry-after')) ?? backoff(attempt, baseDelayMs, maxDelayMs);
      if (wait > maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(wait, request.signal);
    }
  };
}

/** Exponential delay with full jitter: up to `base * 2^attempt`, at most `max` (ms). */
function backoff(attempt: number, base: number, max: number): number {
  return Math.min(max, Math.round(Math.random() * base * 2 ** attempt));
}

/** `Retry-After` in milliseconds: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Resolves after `ms`, or rejects when `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A new value for the `Idempotency-Key` header of a POST: one per request you may retry, reused for each retry of it. */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

/** True when `response` is the stored answer of an earlier request with the same `Idempotency-Key` (`Idempotent-Replayed: true`). */
export function isReplay(response: Response): boolean {
  return response.headers.get('idempotent-replayed') === 'true';
}

/** The `ETag` of a task answer (Get, Create and Update task), to send back as `If-None-Match` or `If-Match`; undefined when absent. */
export function etagOf(response: Response): string | undefined {
  return response.headers.get('etag') ?? undefined;
}

/** An error answer (4xx or 5xx) as an exception: its status, its `{ error }` body and the response. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Schemas['Error'] | undefined,
    readonly response: Response,
  ) {
    super(`${status}: ${body?.error ?? response.statusText}`);
    this.name = 'ApiError';
  }
}

/** 412: the task changed since the `ETag` sent as `If-Match` was read; read it again, then decide. */
export class PreconditionFailedError extends ApiError {
  constructor(body: Schemas['Error'] | undefined, response: Response) {
    super(412, body, response);
    this.name = 'PreconditionFailedError';
  }
}

/**
 * The `data` of an openapi-fetch result, or its error answer thrown: PreconditionFailedError
 * for 412, ApiError for any other error status.
 */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  const { response } = result;
  if (response.ok || response.status === 304) return result.data as T;
  const body = result.error as Schemas['Error'] | undefined;
  throw response.status === 412 ? new PreconditionFailedError(body, response) : new ApiError(response.status, body, response);
}

/**
 * A task with the `ETag` it was read with: what updateTask and deleteTask send as `If-Match`.
 * Get task answers a `Task`; Create and Update task a `TaskWrite` (without labels, subtasks
 * and attachments).
 */
export interface VersionedTask<T extends Schemas['TaskWrite'] = Schemas['TaskWrite']> {
  task: T;
  etag: string;
}

/** The task `taskId` with its `ETag` (Get task); throws ApiError (404 when not visible). */
export async function getTask(api: ApiClient, taskId: number): Promise<VersionedTask<Schemas['Task']>> {
  const result = await api.GET('/api/v1/tasks/{task_id}', { params: { path: { task_id: taskId } } });
  return { task: unwrap(result), etag: etagOf(result.response)! };
}

/** Creates a task (Create task; retried safely with one `Idempotency-Key`) and returns it with its `ETag`. */
export async function createTask(api: ApiClient, body: Schemas['CreateTask']): Promise<VersionedTask> {
  const result = await api.POST('/api/v1/tasks', { body });
  return { task: unwrap(result), etag: etagOf(result.response)! };
}

/**
 * Applies `changes` to the task only if it is still as `current` was read (Update task with
 * `If-Match`); the updated task with its new `ETag`. Throws PreconditionFailedError when it
 * changed meanwhile, ApiError for any other error.
 */
export async function updateTask(api: ApiClient, current: VersionedTask, changes: Schemas['UpdateTask']): Promise<VersionedTask> {
  const result = await api.PATCH('/api/v1/tasks/{task_id}', {
    params: { path: { task_id: current.task.id }, header: { 'If-Match': current.etag } },
    body: changes,
  });
  return { task: unwrap(result), etag: etagOf(result.response)! };
}

/** Deletes the task only if it is still as `current` was read (Delete task with `If-Match`); throws PreconditionFailedError otherwise. */
export async function deleteTask(api: ApiClient, current: VersionedTask): Promise<void> {
  unwrap(await api.DELETE('/api/v1/tasks/{task_id}', { params: { path: { task_id: current.task.id }, header: { 'If-Match': current.etag } } }));
}

/** The query of List tasks, without what the iterator sets (`page`, `cursor`, `include_total`). */
export type TaskQuery = Omit<NonNullable<paths['/api/v1/workspaces/{workspace_id}/tasks']['get']['parameters']['query']>, 'page' | 'cursor' | 'include_total'>;

/** A task as List tasks answers it. */
export type TaskListItem = Schemas['TaskListItem'];

/**
 * Every task of the workspace that matches `query`, in its `sort` order, fetched as keyset
 * pages of `query.limit` tasks (List tasks with `include_total=false`, then `cursor`).
 * A task not changed meanwhile is neither repeated nor skipped. Throws ApiError.
 */
export async function* tasks(api: ApiClient, workspaceId: number, query: TaskQuery = {}): AsyncGenerator<TaskListItem, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = unwrap(
      await api.GET('/api/v1/workspaces/{workspace_id}/tasks', {
        params: { path: { workspace_id: workspaceId }, query: cursor === undefined ? { ...query, include_total: false } : { ...query, cursor } },
      }),
    );
    if (!('next_cursor' in page)) throw new Error('List tasks answered a numbered page to a keyset request');
    yield* page.data;
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
}

/** An event of the feed. */
export type WorkspaceEvent = Schemas['Event'];

/** Options of events(). */
export interface EventFeedOptions {
  /** Start after this event id (0, the default: from the oldest event kept). */
  after?: number;
  /** Only these event types. */
  type?: NonNullable<paths['/api/v1/workspaces/{workspace_id}/events']['get']['parameters']['query']>['type'];
  /** Events per request. */
  limit?: number;
  /** Keep polling once caught up, every `pollIntervalMs` (default false: stop when caught up). */
  follow?: boolean;
  /** Wait between polls once caught up (default 2,000 ms). */
  pollIntervalMs?: number;
  /** Stops following (the iterator throws the abort reason). */
  signal?: AbortSignal;
}

/**
 * The events of the workspace in id order, each once: polls the feed with `after` set to
 * the previous answer's `next_after`. Caught up when `next_after` equals the `after` sent;
 * then it stops, or with `follow` waits `pollIntervalMs` and polls again. Save the last
 * event's `id` to resume with `after` later. Throws ApiError.
 */
export async function* events(api: ApiClient, workspaceId: number, options: EventFeedOptions = {}): AsyncGenerator<WorkspaceEvent, void, undefined> {
  let after = options.after ?? 0;
  for (;;) {
    const page = unwrap(
      await api.GET('/api/v1/workspaces/{workspace_id}/events', {
        params: {
          path: { workspace_id: workspaceId },
          query: { after, ...(options.type ? { type: options.type } : {}), ...(options.limit ? { limit: options.limit } : {}) },
        },
        signal: options.signal,
      }),
    );
    yield* page.data;
    if (page.next_after !== after) {
      after = page.next_after;
      continue;
    }
    if (!options.follow) return;
    await sleep(options.pollIntervalMs ?? 2_000, options.signal);
  }
}
