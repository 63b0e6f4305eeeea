import { readFileSync } from 'fs';
import { createServer, type IncomingHttpHeaders, request as httpRequest, type Server } from 'http';
import { join } from 'path';
import * as ts from 'typescript';

import * as sdk from '../../clients/typescript';
import { SCOPES } from '../../src/common/auth/scope';
import type { FixtureWorld } from '../../src/fixtures/fixture.types';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { createTestApp, TestApp } from '../setup/create-app';
import { ROOT } from '../setup/paths';

/**
 * Issue 32: clients/typescript is a package (@work-tracking/client). Its README's
 * integration runs here, as written, against the app listening on loopback; its
 * retries go through a proxy of this test that answers 503 and loses answers, and
 * a POST's retries carry one Idempotency-Key (D35); If-Match helpers turn a 412
 * into PreconditionFailedError (D36); the iterators walk keyset pages (D34) and
 * the events feed until next_after equals after (D37).
 */

const CLIENT_DIR = join(ROOT, 'clients', 'typescript');
const KEY = 'svc_sdk_owner';

const world: FixtureWorld = {
  users: [{ ref: 'alice', email: 'alice@sdk.test', name: 'Alice' }],
  api_keys: [{ user: 'alice', key: KEY, scopes: [...SCOPES] }],
  workspaces: [
    {
      ref: 'acme',
      name: 'Acme',
      slug: 'sdk-acme',
      owner: 'alice',
      folders: [
        {
          ref: 'eng',
          name: 'Engineering',
          lists: [
            { ref: 'backlog', name: 'Backlog' },
            { ref: 'paged', name: 'Paged' },
          ],
        },
      ],
    },
  ],
};

/** The code block that follows `<!-- example -->` in the package README. */
function readmeExample(): string {
  const readme = readFileSync(join(CLIENT_DIR, 'README.md'), 'utf8');
  const match = /<!-- example -->\s*```ts\n([\s\S]*?)```/.exec(readme);
  if (!match) throw new Error('clients/typescript/README.md has no example block');
  return match[1];
}

/** One request the proxy saw. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  at: number;
}

/**
 * An HTTP proxy on loopback in front of the app: `plan` says, per request, whether to
 * forward it (`pass`), answer 503 with a Retry-After itself, or forward it and then
 * lose the answer (the connection is destroyed after the app has done the work).
 */
class FaultyProxy {
  readonly seen: Seen[] = [];
  plan: Array<'pass' | { status: number; retryAfter?: string } | 'lose-answer'> = [];
  private constructor(readonly server: Server) {}

  static async start(target: URL): Promise<FaultyProxy> {
    const proxy: FaultyProxy = new FaultyProxy(
      createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          proxy.seen.push({ method: req.method!, url: req.url!, headers: req.headers, at: Date.now() });
          const step = proxy.plan.shift() ?? 'pass';
          if (typeof step === 'object') {
            res.writeHead(step.status, { 'content-type': 'application/json', ...(step.retryAfter !== undefined ? { 'retry-after': step.retryAfter } : {}) });
            res.end(JSON.stringify({ error: step.status === 503 ? 'Service temporarily unavailable' : 'Too many requests' }));
            return;
          }
          const out = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
            const body: Buffer[] = [];
            answer.on('data', (c: Buffer) => body.push(c));
            answer.on('end', () => {
              if (step === 'lose-answer') {
                req.socket.destroy();
                return;
              }
              res.writeHead(answer.statusCode!, answer.headers);
              res.end(Buffer.concat(body));
            });
          });
          out.end(Buffer.concat(chunks));
        });
      }),
    );
    await new Promise<void>((done) => proxy.server.listen(0, '127.0.0.1', done));
    return proxy;
  }

  get url(): string {
    const address = this.server.address();
    if (!address || typeof address === 'string') throw new Error('proxy not listening');
    return `http://127.0.0.1:${address.port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((done) => this.server.close(() => done()));
  }
}

describe('@work-tracking/client, the SDK (issue 32)', () => {
  let t: TestApp;
  let ids: Record<string, number>;
  let baseUrl: string;
  let proxy: FaultyProxy;
  let api: sdk.ApiClient;

  beforeAll(async () => {
    t = await createTestApp();
    ids = await loadFixture(t.db.ds, world);
    await t.app.listen(0, '127.0.0.1');
    baseUrl = await t.app.getUrl();
    proxy = await FaultyProxy.start(new URL(baseUrl));
    api = sdk.createApiClient(proxy.url, KEY, { retry: { retries: 3, baseDelayMs: 10 } });
  });
  beforeEach(() => {
    proxy.seen.length = 0;
    proxy.plan = [];
  });
  afterAll(async () => {
    await proxy.close();
    await t.close();
  });

  describe('the package', () => {
    const pkg = JSON.parse(readFileSync(join(CLIENT_DIR, 'package.json'), 'utf8'));

    it('is an ES module with declarations, versioned as the document', () => {
      const document = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8'));
      expect(pkg).toMatchObject({
        name: '@work-tracking/client',
        version: document.info.version,
        type: 'module',
        exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } },
        files: ['dist', 'README.md'],
        engines: { node: '>=20' },
      });
      // The one dependency is the one the project tests it with.
      const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
      expect(pkg.dependencies).toEqual({ 'openapi-fetch': root.devDependencies['openapi-fetch'] });
    });

    it('imports nothing of Node.js: it runs in browsers too', () => {
      const source = readFileSync(join(CLIENT_DIR, 'index.ts'), 'utf8');
      const imports = [...source.matchAll(/^(?:import|export)[^;]*? from '([^']+)'/gm)].map((m) => m[1]);
      expect([...new Set(imports)].sort()).toEqual(['./schema.js', 'openapi-fetch']);
      expect(source).not.toMatch(/\brequire\(|\bprocess\.|\bBuffer\b/);
    });

    it('does not retry the POSTs that take no Idempotency-Key, and only those', () => {
      const document = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8'));
      const unkeyed = Object.entries<Record<string, { parameters?: Array<{ name?: string }> }>>(document.paths)
        .filter(([, item]) => item.post && !(item.post.parameters ?? []).some((p) => p.name === 'Idempotency-Key'))
        .map(([path]) => path);
      expect(sdk.POSTS_WITHOUT_IDEMPOTENCY).toEqual(unkeyed);
    });
  });

  describe('the README integration, run as written', () => {
    it('type-checks against the package', () => {
      const options: ts.CompilerOptions = {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
        types: [],
        skipLibCheck: true,
        paths: { '@work-tracking/client': [join(CLIENT_DIR, 'index.ts')] },
      };
      const file = join(CLIENT_DIR, '__readme-example__.ts');
      const host = ts.createCompilerHost(options);
      const read = host.readFile.bind(host);
      host.readFile = (name) => (name === file ? readmeExample() : read(name));
      const exists = host.fileExists.bind(host);
      host.fileExists = (name) => name === file || exists(name);
      const program = ts.createProgram([file], options, host);
      const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      expect(problems).toEqual([]);
    }, 120_000);

    it('creates, updates with If-Match, refuses a stale ETag, lists and reads the events', async () => {
      const code = ts.transpileModule(readmeExample(), { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
      const module = { exports: {} as { integrate: (baseUrl: string, apiKey: string, workspaceId: number, listId: number) => Promise<unknown> } };
      const load = (name: string): unknown => {
        if (name !== '@work-tracking/client') throw new Error(`the example imports ${name}`);
        return sdk;
      };
      new Function('require', 'module', 'exports', code)(load, module, module.exports);

      const result = await module.exports.integrate(baseUrl, KEY, ids.acme, ids.backlog);
      const id = (result as { task: { id: number } }).task.id;
      expect(result).toEqual({
        task: expect.objectContaining({ id: expect.any(Number), list_id: ids.backlog, title: 'Write and publish the release notes', priority: 'high' }),
        refused: true,
        titles: ['Write and publish the release notes'],
        happened: [`task.created #${id}`, `task.updated #${id}`],
      });
      const stored = await t.db.ds.query('SELECT title, priority FROM tasks WHERE list_id = $1', [ids.backlog]);
      expect(stored).toEqual([{ title: 'Write and publish the release notes', priority: 'high' }]);
    });
  });

  describe('retries', () => {
    it('sends a POST again with the same Idempotency-Key when its answer is lost, and the task is created once', async () => {
      proxy.plan = ['lose-answer'];
      const created = await api.POST('/api/v1/tasks', { body: { list_id: ids.backlog, title: 'Created once' } });
      expect([created.response.status, sdk.isReplay(created.response), created.data?.title]).toEqual([201, true, 'Created once']);
      expect(proxy.seen.map((s) => [s.method, s.url])).toEqual([
        ['POST', '/api/v1/tasks'],
        ['POST', '/api/v1/tasks'],
      ]);
      const [first, retry] = proxy.seen.map((s) => s.headers['idempotency-key']);
      expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(retry).toBe(first);
      expect(await t.db.ds.query(`SELECT count(*)::int AS n FROM tasks WHERE title = 'Created once'`)).toEqual([{ n: 1 }]);
    });

    it('keeps the Idempotency-Key the caller set', async () => {
      proxy.plan = [{ status: 503, retryAfter: '0' }];
      const key = sdk.newIdempotencyKey();
      const created = await api.POST('/api/v1/tasks', { params: { header: { 'Idempotency-Key': key } }, body: { list_id: ids.backlog, title: 'My key' } });
      expect([created.response.status, sdk.isReplay(created.response)]).toEqual([201, false]);
      expect(proxy.seen.map((s) => s.headers['idempotency-key'])).toEqual([key, key]);
    });

    it('waits Retry-After seconds after a 503, then gets the answer', async () => {
      proxy.plan = [{ status: 503, retryAfter: '1' }];
      const me = await api.GET('/api/v1/me');
      expect(me.response.status).toBe(200);
      expect(proxy.seen.length).toBe(2);
      expect(proxy.seen[1].at - proxy.seen[0].at).toBeGreaterThanOrEqual(950);
    });

    it('retries a 429 at most `retries` times, then returns it; a Retry-After past maxDelayMs is returned at once', async () => {
      proxy.plan = Array.from({ length: 4 }, () => ({ status: 429, retryAfter: '0' }));
      const limited = await api.GET('/api/v1/me');
      expect([limited.response.status, limited.error, proxy.seen.length]).toEqual([429, { error: 'Too many requests' }, 4]);

      proxy.seen.length = 0;
      proxy.plan = [{ status: 503, retryAfter: '3600' }];
      const busy = await api.GET('/api/v1/me');
      expect([busy.response.status, proxy.seen.length]).toEqual([503, 1]);
    });

    it('sends Create API key once: it takes no Idempotency-Key', async () => {
      proxy.plan = [{ status: 503, retryAfter: '0' }];
      const created = await api.POST('/api/v1/api-keys', { body: { name: 'once', scopes: ['tasks:read'] } });
      expect(created.response.status).toBe(503);
      expect(proxy.seen.map((s) => [s.method, s.headers['idempotency-key']])).toEqual([['POST', undefined]]);
    });

    it('reads Retry-After as seconds or an HTTP date', () => {
      expect(sdk.retryAfterMs('2')).toBe(2000);
      expect(sdk.retryAfterMs(' 0 ')).toBe(0);
      expect(sdk.retryAfterMs(new Date(Date.now() - 60_000).toUTCString())).toBe(0);
      const ahead = sdk.retryAfterMs(new Date(Date.now() + 60_000).toUTCString())!;
      expect(ahead).toBeGreaterThan(58_000);
      expect(ahead).toBeLessThanOrEqual(60_000);
      expect([sdk.retryAfterMs(null), sdk.retryAfterMs(''), sdk.retryAfterMs('soon')]).toEqual([undefined, undefined, undefined]);
    });

    it('throws the network error once retries are spent', async () => {
      proxy.plan = ['lose-answer', 'lose-answer'];
      const once = sdk.createApiClient(proxy.url, KEY, { retry: { retries: 1, baseDelayMs: 1 } });
      await expect(once.GET('/api/v1/me')).rejects.toThrow('fetch failed');
      expect(proxy.seen.length).toBe(2);
    });
  });

  describe('conditional task edits', () => {
    it('updates and deletes with the ETag read; a stale one throws PreconditionFailedError, other errors ApiError', async () => {
      const created = await sdk.createTask(api, { list_id: ids.backlog, title: 'Guarded' });
      const read = await sdk.getTask(api, created.task.id);
      expect(read.etag).toBe(created.etag);
      expect(read.task).toEqual({ ...created.task, labels: [], subtasks: [], attachments: [] });

      const edited = await sdk.updateTask(api, read, { priority: 'urgent' });
      expect([edited.task.priority, edited.etag === read.etag]).toEqual(['urgent', false]);
      expect(proxy.seen.filter((s) => s.method === 'PATCH').map((s) => s.headers['if-match'])).toEqual([read.etag]);

      const stale = sdk.updateTask(api, read, { priority: 'low' });
      await expect(stale).rejects.toBeInstanceOf(sdk.PreconditionFailedError);
      await expect(stale).rejects.toMatchObject({ status: 412, body: { error: 'Precondition failed' } });
      await expect(sdk.deleteTask(api, read)).rejects.toBeInstanceOf(sdk.PreconditionFailedError);

      await sdk.deleteTask(api, edited);
      const gone = sdk.getTask(api, edited.task.id);
      await expect(gone).rejects.toBeInstanceOf(sdk.ApiError);
      await expect(gone).rejects.toMatchObject({ status: 404, body: { error: 'Task not found' }, message: '404: Task not found' });
      await expect(gone).rejects.not.toBeInstanceOf(sdk.PreconditionFailedError);
    });
  });

  describe('iterators', () => {
    it('walks keyset pages of tasks: each task once, in the sort order', async () => {
      const titles = ['e', 'a', 'd', 'b', 'c'];
      for (const title of titles) await sdk.createTask(api, { list_id: ids.paged, title });
      proxy.seen.length = 0;
      const walked: string[] = [];
      for await (const task of sdk.tasks(api, ids.acme, { list_id: ids.paged, sort: 'title', limit: 2 })) walked.push(task.title);
      expect(walked).toEqual(['a', 'b', 'c', 'd', 'e']);
      const queries = proxy.seen.map((s) => new URL(s.url, 'http://x').searchParams);
      expect(queries.map((q) => [q.get('include_total'), q.has('cursor'), q.get('limit')])).toEqual([
        ['false', false, '2'],
        [null, true, '2'],
        [null, true, '2'],
      ]);
    });

    it('reads the events feed until caught up, resumes after the last id, and follows new events until aborted', async () => {
      const all: sdk.WorkspaceEvent[] = [];
      for await (const event of sdk.events(api, ids.acme, { limit: 3 })) all.push(event);
      expect(all.length).toBeGreaterThan(3);
      expect(all.map((e) => e.id)).toEqual([...all.map((e) => e.id)].sort((a, b) => a - b));
      expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
      // Caught up: the last request sent after = the next_after it got back.
      const afters = proxy.seen.map((s) => Number(new URL(s.url, 'http://x').searchParams.get('after')));
      expect(afters.at(-1)).toBe(all.at(-1)!.id);

      const last = all.at(-1)!.id;
      const controller = new AbortController();
      const followed: string[] = [];
      const following = (async () => {
        for await (const event of sdk.events(api, ids.acme, {
          after: last,
          follow: true,
          pollIntervalMs: 50,
          signal: controller.signal,
          type: ['task.created'],
        })) {
          followed.push(event.type);
          controller.abort();
        }
      })();
      await new Promise((done) => setTimeout(done, 150));
      await sdk.createTask(api, { list_id: ids.paged, title: 'followed' });
      await expect(following).rejects.toBeDefined();
      expect(followed).toEqual(['task.created']);
    });
  });
});
