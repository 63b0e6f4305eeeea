import { AddressInfo, connect } from 'net';

import { SCOPES } from '../../src/common/auth/scope';
import { loadFixture } from '../../src/fixtures/fixture-loader';
import { createTestApp, TestApp } from '../setup/create-app';
import { RawAnswer, rawRequest } from '../setup/raw-http';

/**
 * Issue 8, D31: what Fastify and Node answer on their own, over a real socket
 * (inject cannot send malformed HTTP): every answer is `{ "error": string }` with
 * a JSON content type and the right status. HTTP_REQUEST_TIMEOUT_MS is short here
 * so that a client dribbling its body is cut (item 8).
 */

const KEY = 'svc_edge_owner';
const REQUEST_TIMEOUT_MS = 1_500;
const IDLE_TIMEOUT_MS = 700;
const JSON_TYPE = /^application\/json(; charset=utf-8)?$/;

describe('framework answers over a socket (issue 8; D5, D31)', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp({ env: { HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), HTTP_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS) } });
    await loadFixture(t.db.ds, {
      users: [{ ref: 'alice', email: 'alice@edges.test', name: 'Alice' }],
      api_keys: [{ user: 'alice', key: KEY, scopes: [...SCOPES] }],
    });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(async () => {
    await t.close();
  });

  const get = (path: string, extra = '') =>
    rawRequest(port, [`GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n${extra}Connection: close\r\n\r\n`]);

  const expectError = (answer: RawAnswer, status: number, error: string) => {
    expect({ status: answer.status, body: JSON.parse(answer.body) }).toEqual({ status, body: { error } });
    expect(answer.headers['content-type']).toMatch(JSON_TYPE);
  };

  it('answers bad percent-encoding in the path with 400 (not to be stored on a keyed path, D31)', async () => {
    for (const path of ['/api/v1/tasks/%E0%A4%A', '/api/v1/workspaces/%ZZ/tasks']) {
      const answer = await get(path);
      expectError(answer, 400, 'Malformed URL');
      expect(answer.headers['cache-control']).toBe('no-store');
    }
    expect((await get('/nowhere/%ZZ')).headers['cache-control']).toBeUndefined();
  });

  it.each([[101], [500], [1000]])('answers a well-formed id of %i digits as not found (D5)', async (digits) => {
    expectError(await get(`/api/v1/tasks/${'9'.repeat(digits)}`), 404, 'Task not found');
  });

  it('answers a path parameter past the router limit with 414', async () => {
    expectError(await get(`/api/v1/tasks/${'9'.repeat(1001)}`), 414, 'URI too long');
    expectError(await get(`/api/v1/tasks/${'a'.repeat(5000)}`), 414, 'URI too long');
  });

  it('answers oversized headers with 431', async () => {
    expectError(await get('/api/v1/me', `X-Big: ${'a'.repeat(20_000)}\r\n`), 431, 'Request headers are too large');
  });

  it.each([
    ['garbage', 'GARBAGE\r\n\r\n'],
    ['a bad request line', 'GET /api/v1/me HTTP/9\r\n\r\n'],
    ['a header without colon', 'GET /api/v1/me HTTP/1.1\r\nHost x\r\n\r\n'],
    ['a bad Content-Length', 'POST /api/v1/labels HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'],
    ['both Content-Length and chunked', 'POST /api/v1/labels HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'],
  ])('answers malformed HTTP (%s) with 400', async (_case, bytes) => {
    expectError(await rawRequest(port, [bytes]), 400, 'Malformed HTTP request');
  });

  it('cuts a client that dribbles its body with 408 once HTTP_REQUEST_TIMEOUT_MS has passed (item 8)', async () => {
    const body = JSON.stringify({ workspace_id: 1, name: 'slow' });
    const head = `POST /api/v1/labels HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    // One byte every 200 ms: the connection is never idle, the whole request would take ~6 s.
    const answer = await rawRequest(port, [head, ...body.split('')], 200);
    expectError(answer, 408, 'Request timeout');
    expect(answer.ms).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    expect(answer.ms).toBeLessThan(REQUEST_TIMEOUT_MS + 2_500);
  });

  it('cuts a client that dribbles its headers with 408 (item 8)', async () => {
    const head = `GET /api/v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n`;
    const answer = await rawRequest(port, [...head.split(''), '\r\n'], 100);
    expectError(answer, 408, 'Request timeout');
  });

  it('closes a connection on which nothing moves after HTTP_IDLE_TIMEOUT_MS (item 8)', async () => {
    const socket = connect(port, '127.0.0.1');
    const started = Date.now();
    let received = '';
    socket.on('data', (d) => (received += d));
    await new Promise((done) => socket.on('close', done));
    expect(received).toBe('');
    expect(Date.now() - started).toBeGreaterThanOrEqual(IDLE_TIMEOUT_MS - 100);
    expect(Date.now() - started).toBeLessThan(REQUEST_TIMEOUT_MS);
  });

  it('serves a request that arrives whole in time', async () => {
    const answer = await get('/api/v1/me');
    expect(answer.status).toBe(200);
  });
});

describe('shutting down (issue 8; D31, D32)', () => {
  it('finishes the request in flight and answers a request that arrives meanwhile with 503', async () => {
    const t = await createTestApp();
    await loadFixture(t.db.ds, {
      users: [{ ref: 'alice', email: 'alice@closing.test', name: 'Alice' }],
      api_keys: [{ user: 'alice', key: KEY, scopes: [...SCOPES] }],
    });
    await t.app.listen(0, '127.0.0.1');
    const port = (t.app.getHttpServer().address() as AddressInfo).port;
    const fastify = t.app.getHttpAdapter().getInstance();
    try {
      const socket = connect(port, '127.0.0.1');
      let received = '';
      socket.on('data', (d) => (received += d.toString('utf8')));
      const closed = new Promise((done) => socket.on('close', done));
      await new Promise((done) => socket.on('connect', done));
      // A request in flight: headers and half of its body.
      const body = JSON.stringify({ name: 'x' });
      socket.write(
        `POST /api/v1/labels HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 3)}`,
      );
      await new Promise((r) => setTimeout(r, 100));
      const closing = fastify.close();
      await new Promise((r) => setTimeout(r, 100));
      // The rest of its body, and a second request pipelined behind it.
      socket.write(`${body.slice(3)}GET /api/v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n\r\n`);
      await closed;
      await closing;
      const answers = received.split(/(?=HTTP\/1\.1 )/).map((text) => ({
        status: Number(text.split(' ')[1]),
        type: /content-type: ([^\r]+)/i.exec(text)?.[1],
        body: JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)),
      }));
      expect(answers).toEqual([
        { status: 400, type: expect.stringMatching(JSON_TYPE), body: { error: 'workspace_id is required' } },
        { status: 503, type: expect.stringMatching(JSON_TYPE), body: { error: 'Service unavailable' } },
      ]);
    } finally {
      await t.close();
    }
  });
});

describe('a body that trickles past REQUEST_TIMEOUT_MS (issue 31)', () => {
  const HANDLER_MS = 500;
  const RECEIVE_MS = 1_500;
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp({ env: { REQUEST_TIMEOUT_MS: String(HANDLER_MS), HTTP_REQUEST_TIMEOUT_MS: String(RECEIVE_MS), HTTP_IDLE_TIMEOUT_MS: '5000' } });
    await loadFixture(t.db.ds, {
      users: [{ ref: 'alice', email: 'alice@trickle.test', name: 'Alice' }],
      api_keys: [{ user: 'alice', key: KEY, scopes: [...SCOPES] }],
    });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(async () => {
    await t.close();
  });

  /** Sends `chunks` `gapMs` apart and returns every byte the server wrote until it closed the connection. */
  const everything = (chunks: string[], gapMs: number): Promise<string> =>
    new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let received = '';
      socket.on('data', (d) => (received += d));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(received));
      socket.on('connect', async () => {
        for (const chunk of chunks) {
          if (socket.destroyed) return;
          socket.write(chunk);
          await new Promise((r) => setTimeout(r, gapMs));
        }
      });
    });

  it('gets exactly one answer, 408 once HTTP_REQUEST_TIMEOUT_MS has passed (the handler deadline runs from the whole request)', async () => {
    const body = JSON.stringify({ workspace_id: 1, name: 'trickled label' });
    const head = `POST /api/v1/labels HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    // One byte every 100 ms: never idle, the whole request would take ~4 s.
    const received = await everything([head, ...body.split('')], 100);
    const statusLines = received.match(/HTTP\/1\.1 \d{3}/g);
    expect(statusLines).toEqual(['HTTP/1.1 408']);
    expect(received).toContain('{"error":"Request timeout"}');
  });

  it('a request received whole in time still has REQUEST_TIMEOUT_MS for its handler', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/v1/me', headers: { authorization: `Bearer ${KEY}` } });
    expect(res.statusCode).toBe(200);
  });
});
