import fs from 'fs';
import { existsSync, mkdtempSync, readdirSync } from 'fs';
import { type AddressInfo, connect } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';

import { createRootLogger, replaceRootLogger } from '../../src/common/logging/logger';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { fileBody, multipart } from '../setup/multipart';
import { QueryCounter } from '../setup/query-counter';
import { rawRequest } from '../setup/raw-http';
import { loadRoleWorld, RoleWorld, WorldRole } from '../setup/world';

/**
 * Hostile input against attachments on the local driver (issue 36, D47): bodies that lie
 * about their length or stop midway, tricky names, wrong-size and replayed uploads, Range
 * abuse; D35 on both upload forms; the quota under concurrency; metrics, the log line and
 * CORS of the /files/ links. Always a 4xx `{"error"}` or the contract's answer, never a
 * 500, never another attachment's bytes, no partial object.
 */

const MAX = 64 * 1024;

/** Object files and staging files under `dir`. */
function filesUnder(dir: string): { objects: string[]; staging: string[] } {
  const objects = join(dir, 'objects');
  return {
    objects: existsSync(objects) ? readdirSync(objects).flatMap((d) => readdirSync(join(objects, d))) : [],
    staging: existsSync(join(dir, 'tmp')) ? readdirSync(join(dir, 'tmp')) : [],
  };
}

const settle = (ms = 300) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes `chunks` on a new connection to 127.0.0.1:`port`, then hangs up without waiting for an answer (a client that goes away). */
function sendAndHangUp(port: number, chunks: Array<string | Buffer>): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      for (const chunk of chunks) socket.write(chunk);
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, 150);
    });
    socket.on('error', () => resolve());
  });
}

/** What a client that keeps sending a huge body saw: the answer, whether the server closed the connection, and how much it sent. */
interface Flood {
  answer: string;
  closedByServer: boolean;
  sentBytes: number;
}

/**
 * Writes `head`, then body bytes as fast as the socket takes them (`chunked`: as chunks), for
 * at most `ms` or until the server closes the connection (FIN, reset or a failed write).
 */
function flood(port: number, head: string, options: { chunked: boolean; ms: number }): Promise<Flood> {
  return new Promise((resolve) => {
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const framed = options.chunked ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]) : chunk;
    let answer = '';
    let sentBytes = 0;
    let closedByServer = false;
    let done = false;
    const socket = connect(port, '127.0.0.1');
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ answer, closedByServer, sentBytes });
    };
    const timer = setTimeout(finish, options.ms);
    const pump = () => {
      while (!done && !socket.destroyed && socket.writable) {
        sentBytes += chunk.length;
        if (!socket.write(framed)) return void socket.once('drain', pump);
      }
    };
    socket.on('connect', () => {
      socket.write(head);
      pump();
    });
    socket.on('data', (data) => (answer += data.toString('latin1')));
    const closed = () => {
      closedByServer = true;
      // Let the answer's last bytes arrive.
      setTimeout(finish, 50);
    };
    socket.on('end', closed);
    socket.on('error', closed);
    socket.on('close', closed);
  });
}

describe('attachments on the local driver: hostile input, retries, quota, operations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'h36-files-'));
  const lines: Record<string, any>[] = [];
  let previousLogger: ReturnType<typeof replaceRootLogger>;
  let t: TestApp;
  let w: RoleWorld;
  let port: number;
  const as = (role: WorldRole = 'owner') => auth(w.key(role));
  const sql = (text: string, params: unknown[] = []) => t.db.ds.query(text, params);
  const rowCount = async () => (await sql('SELECT count(*)::int AS n FROM attachments'))[0].n as number;
  const uploadUrl = () => `/api/v1/tasks/${w.ids.t_backlog}/attachments`;
  const upload = (body: { payload: Buffer; headers: Record<string, string> }, extra: Record<string, string> = {}) =>
    t.inject({ method: 'POST', url: uploadUrl(), headers: { ...as(), ...body.headers, ...extra }, payload: body.payload });
  const declare = async (size: number) => {
    const res = await t.inject({
      method: 'POST',
      url: uploadUrl(),
      headers: as(),
      payload: { file_name: 'd.bin', file_size: size, mime_type: 'application/octet-stream' },
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    return { id: body.attachment.id as number, path: new URL(body.upload.url).pathname };
  };
  const linkOf = async (id: number) =>
    new URL((await t.inject({ method: 'GET', url: `/api/v1/attachments/${id}/download`, headers: as() })).headers.location as string).pathname;
  /** A request written on a socket (to lie about lengths, or to stop midway). */
  const head = (method: string, path: string, headers: Record<string, string | number>) =>
    `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n`;

  beforeAll(async () => {
    previousLogger = replaceRootLogger(createRootLogger({ logLevel: 'info', logFormat: 'json' }, { write: (s: string) => void lines.push(JSON.parse(s)) }));
    t = await createTestApp({ env: { STORAGE_DIR: dir, ATTACHMENT_MAX_BYTES: String(MAX), LOG_LEVEL: 'info', CORS_ORIGINS: 'https://app.example.com' } });
    w = await loadRoleWorld(t.db.ds, 'fl');
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(async () => {
    await t.close();
    replaceRootLogger(previousLogger);
  });

  describe('bodies that lie or stop', () => {
    it('a multipart body that stops midway (connection closed): no row, no object, no staging file left', async () => {
      const before = { rows: await rowCount(), files: filesUnder(dir) };
      const { payload, headers } = fileBody('cut.bin', Buffer.alloc(40_000, 7));
      await sendAndHangUp(port, [head('POST', uploadUrl(), { ...as(), ...headers, 'content-length': payload.length }), payload.subarray(0, 20_000)]);
      await settle();
      expect(await rowCount()).toBe(before.rows);
      expect(filesUnder(dir).objects).toEqual(before.files.objects);
      expect(filesUnder(dir).staging).toEqual([]);
    }, 20_000);

    it('a Content-Length shorter than the body: the body read is cut, 400 Invalid multipart body; nothing stored', async () => {
      const before = await rowCount();
      const { payload, headers } = fileBody('short.bin', Buffer.alloc(1000, 1));
      const answer = await rawRequest(port, [
        head('POST', uploadUrl(), { ...as(), ...headers, 'content-length': payload.length - 100, connection: 'close' }),
        payload,
      ]);
      // The multipart body is cut (400 Invalid multipart body); the rest reads as a malformed next request
      // (400 Malformed HTTP request), whichever is answered first.
      expect(answer.status).toBe(400);
      expect(['Invalid multipart body', 'Malformed HTTP request']).toContain(JSON.parse(answer.body).error);
      await settle();
      expect(await rowCount()).toBe(before);
    });

    it('a Content-Length longer than the body, then the client half-closes: no row, no object, no staging file, no 500 (upload and link)', async () => {
      const before = { rows: await rowCount(), files: filesUnder(dir) };
      const { payload, headers } = fileBody('long.bin', Buffer.alloc(5000, 3));
      const { path } = await declare(100);
      for (const [request, body] of [
        [head('POST', uploadUrl(), { ...as(), ...headers, 'content-length': payload.length + 1000 }), payload],
        [head('PUT', path, { 'content-length': 100 }), Buffer.alloc(60, 1)],
      ] as const) {
        await new Promise<void>((resolve) => {
          const socket = connect(port, '127.0.0.1', () => socket.end(Buffer.concat([Buffer.from(request), body])));
          socket.on('data', () => undefined);
          socket.on('close', () => resolve());
          socket.on('error', () => resolve());
        });
      }
      await settle();
      expect(await rowCount()).toBe(before.rows + 1); // the declaration only
      expect(filesUnder(dir).objects).toEqual(before.files.objects);
      expect(filesUnder(dir).staging).toEqual([]);
      expect(lines.filter((l) => typeof l.res?.status === 'number' && l.res.status >= 500)).toEqual([]);
    }, 20_000);

    it('a Content-Length over the limit plus 1 MiB: 413 without reading the body', async () => {
      const answer = await rawRequest(port, [
        head('POST', uploadUrl(), { ...as(), 'content-type': 'multipart/form-data; boundary=x', 'content-length': MAX + 1024 * 1024 + 1, connection: 'close' }),
        '--x\r\n',
      ]);
      expect([answer.status, JSON.parse(answer.body)]).toEqual([413, { error: `Attachment is too large (at most ${MAX} bytes)` }]);
    });

    it.each([
      ['a Content-Length of 10 GiB', false, {}],
      ['a chunked body that never ends', true, {}],
      // Issue 36: a keyed body is read before its fingerprint is known; it is cut at the limit all the same.
      ['a chunked body that never ends, with an Idempotency-Key', true, { 'idempotency-key': 'flood-chunked' }],
      ['a Content-Length of 10 GiB, with an Idempotency-Key', false, { 'idempotency-key': 'flood-declared' }],
    ])(
      '%s: 413 {"error"} with Connection: close, the connection is closed while the client still sends, nothing stored',
      async (_name, chunked, extra) => {
        const before = { rows: await rowCount(), files: filesUnder(dir) };
        const headers = {
          ...as(),
          ...extra,
          'content-type': 'multipart/form-data; boundary=x',
          ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': 10 * 1024 ** 3 }),
        };
        const seen = await flood(port, head('POST', uploadUrl(), headers), { chunked, ms: 8000 });
        expect(seen.closedByServer).toBe(true);
        expect(seen.answer).toMatch(/^HTTP\/1\.1 413 /);
        expect(seen.answer).toMatch(/\r\nconnection: close\r\n/i);
        expect(JSON.parse(seen.answer.slice(seen.answer.indexOf('\r\n\r\n') + 4))).toEqual({ error: `Attachment is too large (at most ${MAX} bytes)` });
        // Cut off early: the server read about the limit plus 1 MiB, not what the client meant to send.
        expect(seen.sentBytes).toBeLessThan(256 * 1024 * 1024);
        await settle();
        expect(await rowCount()).toBe(before.rows);
        expect(filesUnder(dir).objects).toEqual(before.files.objects);
        expect(filesUnder(dir).staging).toEqual([]);
      },
      20_000,
    );

    it('an endless chunked body refused before any read (a viewer: 403) closes its connection too; a cut keyed body replays its 413', async () => {
      const headers = (role: WorldRole, extra: Record<string, string> = {}) =>
        head('POST', uploadUrl(), { ...as(role), ...extra, 'content-type': 'multipart/form-data; boundary=x', 'transfer-encoding': 'chunked' });
      // A whole small body from a viewer: 403, and nothing of it is stored.
      const before = filesUnder(dir).objects;
      const small = await upload(fileBody('v.txt', 'viewer bytes'), as('viewer'));
      expect(small.statusCode).toBe(403);
      const viewer = await flood(port, headers('viewer'), { chunked: true, ms: 8000 });
      expect([viewer.closedByServer, viewer.answer.split('\r\n')[0]]).toEqual([true, 'HTTP/1.1 403 Forbidden']);
      expect(viewer.answer).toMatch(/\r\nconnection: close\r\n/i);
      expect(viewer.sentBytes).toBeLessThan(256 * 1024 * 1024);
      // Both floods send the same bytes up to the limit: the same request for D35 (a step-7 answer, stored).
      const first = await flood(port, headers('owner', { 'idempotency-key': 'flood-replay' }), { chunked: true, ms: 8000 });
      const again = await flood(port, headers('owner', { 'idempotency-key': 'flood-replay' }), { chunked: true, ms: 8000 });
      for (const seen of [first, again]) {
        expect([seen.closedByServer, seen.answer.split('\r\n')[0]]).toEqual([true, 'HTTP/1.1 413 Payload Too Large']);
        expect(seen.sentBytes).toBeLessThan(256 * 1024 * 1024);
      }
      expect(first.answer).not.toMatch(/\r\nidempotent-replayed:/i);
      expect(again.answer).toMatch(/\r\nidempotent-replayed: true\r\n/i);
      await settle();
      expect(filesUnder(dir).staging).toEqual([]);
      expect(filesUnder(dir).objects).toEqual(before);
    }, 40_000);

    it('an upload link PUT of 10 GiB (chunked or declared): 400 with Connection: close, the connection is closed while the client still sends', async () => {
      const { id, path } = await declare(10);
      for (const chunked of [false, true]) {
        const seen = await flood(port, head('PUT', path, chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': 10 * 1024 ** 3 }), {
          chunked,
          ms: 8000,
        });
        expect(seen.closedByServer).toBe(true);
        expect(seen.answer).toMatch(/^HTTP\/1\.1 400 [^]*\r\nconnection: close\r\n/i);
        expect(JSON.parse(seen.answer.slice(seen.answer.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'Upload must be exactly 10 bytes' });
        expect(seen.sentBytes).toBeLessThan(256 * 1024 * 1024);
      }
      await settle();
      expect((await t.inject({ method: 'POST', url: `/api/v1/attachments/${id}/confirm`, headers: as() })).statusCode).toBe(409);
      expect(filesUnder(dir).staging).toEqual([]);
    }, 30_000);

    it('an upload link PUT whose Content-Length is not the declared size: 400 at once; one that stops midway stores nothing', async () => {
      const { id, path } = await declare(10);
      const wrong = await rawRequest(port, [head('PUT', path, { 'content-length': 5, connection: 'close' }), '12345']);
      expect([wrong.status, JSON.parse(wrong.body)]).toEqual([400, { error: 'Upload must be exactly 10 bytes' }]);
      await sendAndHangUp(port, [head('PUT', path, { 'content-length': 10 }), '12345']);
      await settle();
      expect((await t.inject({ method: 'POST', url: `/api/v1/attachments/${id}/confirm`, headers: as() })).json()).toEqual({
        error: 'Upload is missing or incomplete',
      });
      expect(filesUnder(dir).staging).toEqual([]);
      // Chunked, longer than declared: 400, nothing stored.
      const chunked = await rawRequest(port, [head('PUT', path, { 'transfer-encoding': 'chunked', connection: 'close' }), 'c\r\n123456789012\r\n0\r\n\r\n']);
      expect([chunked.status, JSON.parse(chunked.body)]).toEqual([400, { error: 'Upload must be exactly 10 bytes' }]);
      expect((await t.inject({ method: 'POST', url: `/api/v1/attachments/${id}/confirm`, headers: as() })).statusCode).toBe(409);
    }, 20_000);
  });

  describe('Expect: 100-continue', () => {
    /** What a client that waits for `100 Continue` before its body saw: whether it came, and the final answer. */
    const expecting = (headers: Record<string, string | number>, body: Buffer) =>
      new Promise<{ continued: boolean; status: number; text: string }>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(head('POST', uploadUrl(), { ...headers, expect: '100-continue' })));
        let text = '';
        let continued = false;
        const finish = () => {
          socket.destroy();
          resolve({ continued, status: Number(text.split(' ')[1]), text });
        };
        socket.on('data', (data) => {
          text += data.toString('latin1');
          if (!continued && text.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
            continued = true;
            text = text.slice('HTTP/1.1 100 Continue\r\n\r\n'.length);
            socket.write(body);
          }
          const end = text.indexOf('\r\n\r\n');
          const length = /\r\ncontent-length: (\d+)\r\n/i.exec(text);
          if (end >= 0 && length && text.length >= end + 4 + Number(length[1])) finish();
        });
        socket.on('close', finish);
        socket.on('error', finish);
      });

    it('a valid upload gets 100 Continue, then its 201 (keyed or not)', async () => {
      const before = await rowCount();
      for (const extra of [{}, { 'idempotency-key': 'expect-1' }] as Record<string, string>[]) {
        const { payload, headers } = fileBody('continue.txt', 'sent after 100');
        const seen = await expecting({ ...as(), ...headers, ...extra, 'content-length': payload.length }, payload);
        expect([seen.continued, seen.status]).toEqual([true, 201]);
      }
      expect(await rowCount()).toBe(before + 2);
    });

    it.each([
      ['no API key', 401, () => ({})],
      ['a viewer', 403, () => as('viewer')],
      ['a task that does not exist', 404, () => as()],
      ['a declared length over the limit plus 1 MiB', 413, () => as()],
    ] as const)('%s: the final answer at once, without 100 Continue, and the connection closes', async (name, status, key) => {
      const { payload, headers } = fileBody('never.txt', 'never sent');
      const length = status === 413 ? MAX + 1024 * 1024 + 1 : payload.length;
      const path = status === 404 ? '/api/v1/tasks/999999999/attachments' : uploadUrl();
      const seen = await new Promise<{ continued: boolean; status: number; text: string }>((resolve) => {
        const socket = connect(port, '127.0.0.1', () =>
          socket.write(head('POST', path, { ...key(), ...headers, 'content-length': length, expect: '100-continue' })),
        );
        let text = '';
        // A client that waited this long without an answer would send its body anyway.
        const timer = setTimeout(() => socket.destroy(), 3000);
        socket.on('data', (data) => (text += data.toString('latin1')));
        socket.on('close', () => {
          clearTimeout(timer);
          resolve({ continued: text.startsWith('HTTP/1.1 100'), status: Number(text.split(' ')[1]), text });
        });
      });
      expect([name, seen.continued, seen.status]).toEqual([name, false, status]);
      expect(seen.text).toMatch(/\r\nconnection: close\r\n/i);
    });
  });

  describe('confirmed bytes never change', () => {
    it('PUTs racing a confirm over real HTTP: the confirm judges one whole upload, and once it answers every PUT is 403 and the bytes stay', async () => {
      const { id, path } = await declare(8);
      const url = `http://127.0.0.1:${port}${path}`;
      const put = (body: string) => fetch(url, { method: 'PUT', body }).then(async (r) => [r.status, await r.json().catch(() => null)] as const);
      expect(await put('AAAAAAAA')).toEqual([204, null]);
      const bodies = Array.from({ length: 20 }, (_, i) => String.fromCharCode(66 + i).repeat(8));
      const racing = bodies.map((b) => put(b));
      const confirmed = await t.inject({ method: 'POST', url: `/api/v1/attachments/${id}/confirm`, headers: as() });
      expect(confirmed.statusCode).toBe(200);
      const answers = await Promise.all(racing);
      expect(answers.every(([status]) => status === 204 || status === 403)).toBe(true);
      const link = await linkOf(id);
      const stored = (await t.inject({ method: 'GET', url: link })).body;
      expect(['AAAAAAAA', ...bodies]).toContain(stored);
      for (const b of ['ZZZZZZZZ', 'YYYYYYYY']) expect(await put(b)).toEqual([403, { error: 'Link is invalid or has expired' }]);
      expect((await t.inject({ method: 'GET', url: link })).body).toBe(stored);
      expect(filesUnder(dir).staging).toEqual([]);
    }, 20_000);
  });

  describe('names and links', () => {
    it.each([
      [`form-data; name="file"; filename*=UTF-8''%2e%2e%2f`, 400, 'file_name must be 1 to 255 characters'],
      [`form-data; name="file"; filename*=bogus`, 400, 'file_name must be 1 to 255 characters'],
      [`form-data; name="file"; filename*=UTF-8''%ZZ.txt`, 400, 'file_name must be 1 to 255 characters'],
      [`form-data; name="file"; filename*=KOI8-R''%E9.txt`, 400, 'file_name must be 1 to 255 characters'],
      [`form-data; name="file"; filename*=ISO-8859-1''%E9t%E9.txt`, 201, 'été.txt'],
      [`form-data; name="file"; filename="a\\"b.txt"`, 201, 'a"b.txt'],
      [`form-data; name="file"; filename="%2e%2e%2fx.txt"`, 201, '%2e%2e%2fx.txt'],
      [`form-data; name="file"; filename="..\\\\..\\\\boot.ini"`, 201, 'boot.ini'],
      [`form-data; name="file"; filename="\u202Etxt.exe"`, 201, '\u202Etxt.exe'],
      [`form-data; name="file"; filename="nul\u0000byte.txt"`, 201, 'nulbyte.txt'],
      [`form-data; name="file"; filename=""`, 400, 'file_name must be 1 to 255 characters'],
    ])('%s: %d', async (disposition, status, expected) => {
      const res = await upload(multipart([{ disposition, contentType: 'text/plain', body: 'x' }]));
      expect(res.statusCode).toBe(status);
      if (status === 201) expect(res.json().file_name).toBe(expected);
      else expect(res.json()).toEqual({ error: expected });
    });

    it('the stored name never reaches the file system: objects are named by random keys only', async () => {
      const res = await upload(fileBody('../../../../tmp/evil.txt', 'evil'));
      expect(res.json().file_name).toBe('evil.txt');
      expect(filesUnder(dir).objects.every((name) => /^[0-9a-f]{32}$/.test(name))).toBe(true);
      expect(existsSync('/tmp/evil.txt')).toBe(false);
    });

    it("a replayed download link answers the same bytes until it expires; a link never answers another attachment's bytes", async () => {
      const a = (await upload(fileBody('a.txt', 'AAAA'))).json().id;
      const b = (await upload(fileBody('b.txt', 'BBBB'))).json().id;
      const link = await linkOf(a);
      for (let i = 0; i < 3; i++) expect((await t.inject({ method: 'GET', url: link })).body).toBe('AAAA');
      const swapped = link.replace(`/files/${a}/`, `/files/${b}/`);
      expect((await t.app.inject({ method: 'GET', url: swapped })).json()).toEqual({ error: 'Link is invalid or has expired' });
      expect((await t.inject({ method: 'GET', url: await linkOf(b) })).body).toBe('BBBB');
    });

    it('Range abuse: a thousand ranges, huge numbers, garbage: the whole body or 416, never an error of the server', async () => {
      const id = (await upload(fileBody('r.txt', '0123456789'))).json().id;
      const link = await linkOf(id);
      const many = 'bytes=' + Array.from({ length: 1000 }, (_, i) => `${i}-${i}`).join(',');
      const cases: [string, number][] = [
        [many, 200],
        ['bytes=0-99999999999999999999', 200],
        ['bytes=99999999999999-', 416],
        ['bytes=-', 200],
        ['bytes=--1', 200],
        ['bytes=1-2, 3-4', 200],
        ['bytes= 2 - 3 ', 206],
        ['BYTES=0-0', 206],
        ['bytes=10-', 416],
        ['bytes=0x1-2', 200],
        ['bytes=\u00e9', 200],
      ];
      for (const [range, status] of cases) {
        const res = await t.app.inject({ method: 'GET', url: link, headers: { range } });
        expect([range.slice(0, 30), res.statusCode]).toEqual([range.slice(0, 30), status]);
        if (status === 200) expect(res.body).toBe('0123456789');
      }
    });
  });

  describe('Idempotency-Key on both upload forms (D35)', () => {
    it('a JSON declaration is replayed: same answer, one row', async () => {
      const send = (size: number) =>
        t.inject({
          method: 'POST',
          url: uploadUrl(),
          headers: { ...as(), 'idempotency-key': 'decl-1' },
          payload: { file_name: 'k.txt', file_size: size, mime_type: 'text/plain' },
        });
      const before = await rowCount();
      const first = await send(3);
      const again = await send(3);
      expect([first.statusCode, again.statusCode, again.headers['idempotent-replayed']]).toEqual([201, 201, 'true']);
      expect(again.body).toBe(first.body);
      expect(await rowCount()).toBe(before + 1);
      expect((await send(4)).json()).toEqual({ error: 'Idempotency-Key was already used with a different request' });
    });

    it('a multipart upload is the same request only with the same bytes, boundary included', async () => {
      const before = await rowCount();
      const body = fileBody('same.txt', 'same bytes');
      const first = await upload(body, { 'idempotency-key': 'mp-1' });
      const again = await upload(body, { 'idempotency-key': 'mp-1' });
      expect([first.statusCode, again.statusCode, again.headers['idempotent-replayed']]).toEqual([201, 201, 'true']);
      expect(again.body).toBe(first.body);
      expect(await rowCount()).toBe(before + 1);
      const other = await upload(fileBody('same.txt', 'other bytes'), { 'idempotency-key': 'mp-1' });
      expect([other.statusCode, other.json()]).toEqual([422, { error: 'Idempotency-Key was already used with a different request' }]);
      const otherBoundary = await upload(
        multipart([{ name: 'file', filename: 'same.txt', contentType: 'text/plain', body: 'same bytes' }], 'another-boundary'),
        { 'idempotency-key': 'mp-1' },
      );
      expect(otherBoundary.statusCode).toBe(422);
      expect(await rowCount()).toBe(before + 1);
      // No staged file outlives its request.
      expect(filesUnder(dir).staging).toEqual([]);
    });

    it('an invalid multipart body is never stored: a retry under the same key runs anew; a stored 400 replays', async () => {
      const bad = { payload: Buffer.from('garbage'), headers: { 'content-type': 'multipart/form-data; boundary=zz' } };
      const first = await upload(bad, { 'idempotency-key': 'mp-bad' });
      expect([first.statusCode, first.json()]).toEqual([400, { error: 'Invalid multipart body' }]);
      const retry = await upload(bad, { 'idempotency-key': 'mp-bad' });
      expect([retry.statusCode, retry.headers['idempotent-replayed']]).toEqual([400, undefined]);
      // A step-7 rule of the form is stored like any other.
      const none = multipart([{ name: 'other', body: 'x' }]);
      expect((await upload(none, { 'idempotency-key': 'mp-none' })).json()).toEqual({ error: 'file is required' });
      const replay = await upload(none, { 'idempotency-key': 'mp-none' });
      expect([replay.statusCode, replay.headers['idempotent-replayed'], replay.json()]).toEqual([400, 'true', { error: 'file is required' }]);
      // D7 answers of the JSON form are never stored either.
      const badJson = { payload: Buffer.from('{nope'), headers: { 'content-type': 'application/json' } };
      expect((await upload(badJson, { 'idempotency-key': 'json-bad' })).json()).toEqual({ error: 'Invalid JSON body' });
      expect((await upload(badJson, { 'idempotency-key': 'json-bad' })).headers['idempotent-replayed']).toBeUndefined();
    });

    it('a keyed multipart upload writes its file once: the file staged while its body is read ahead becomes the stored object', async () => {
      const writes = jest.spyOn(fs, 'createWriteStream');
      try {
        const res = await upload(fileBody('once.txt', 'written once'), { 'idempotency-key': 'mp-once' });
        expect(res.statusCode).toBe(201);
        const written = writes.mock.calls.map((call) => String(call[0])).filter((path) => path.startsWith(dir));
        // One file under tmp/ (no copy of the raw body beside the staged file), renamed into place.
        expect(written).toHaveLength(1);
        expect(written[0].startsWith(join(dir, 'tmp'))).toBe(true);
        expect(existsSync(written[0])).toBe(false);
      } finally {
        writes.mockRestore();
      }
      const [{ storage_key: key }] = await sql('SELECT storage_key FROM attachments WHERE file_name = $1', ['once.txt']);
      expect(fs.readFileSync(join(dir, 'objects', key.slice(0, 2), key), 'utf8')).toBe('written once');
      expect(filesUnder(dir).staging).toEqual([]);
    });

    it('a keyed multipart upload refused at step 6 or replayed leaves no staged file', async () => {
      const body = fileBody('viewer.txt', 'not for viewers');
      const viewer = await upload(body, { ...as('viewer'), 'idempotency-key': 'mp-viewer' });
      expect(viewer.statusCode).toBe(403);
      const first = await upload(fileBody('twice.txt', 'twice'), { 'idempotency-key': 'mp-twice' });
      const replay = await upload(fileBody('twice.txt', 'twice'), { 'idempotency-key': 'mp-twice' });
      expect([first.statusCode, replay.statusCode, replay.headers['idempotent-replayed']]).toEqual([201, 201, 'true']);
      await settle(50);
      expect(filesUnder(dir).staging).toEqual([]);
    });

    it('50 identical keyed multipart uploads at once create one row', async () => {
      const before = await rowCount();
      const body = fileBody('burst.txt', 'burst');
      const answers = await Promise.all(Array.from({ length: 50 }, () => upload(body, { 'idempotency-key': 'mp-burst' })));
      expect(answers.every((r) => r.statusCode === 201 || r.statusCode === 409)).toBe(true);
      expect(await rowCount()).toBe(before + 1);
    });
  });

  describe('round trips of a multipart upload', () => {
    const counter = new QueryCounter();
    beforeAll(() => counter.install());
    afterAll(() => counter.uninstall());
    const removals = async () => (await sql('SELECT count(*)::int AS n FROM attachment_removals'))[0].n as number;

    it('two statements: the access check, which also queues the intent of the bytes, then the insert', async () => {
      expect((await upload(fileBody('warm.txt', 'warm'))).statusCode).toBe(201);
      const before = await removals();
      const { result, statements } = await counter.record(() => upload(fileBody('counted.txt', 'counted')));
      expect(result.statusCode).toBe(201);
      expect(statements).toHaveLength(2);
      // The intent is there: the bytes went to disk only after it.
      expect(await removals()).toBe(before + 1);
    });

    it('a refused caller queues no intent (the check gates it)', async () => {
      const before = await removals();
      const res = await upload(fileBody('v.txt', 'v'), as('viewer'));
      expect([res.statusCode, res.json()]).toEqual([403, { error: 'Viewers cannot upload attachments' }]);
      expect(await removals()).toBe(before);
    });
  });

  describe('operations', () => {
    it('metrics: uploads by result, bytes stored, removals waiting', async () => {
      const text = (await t.inject({ method: 'GET', url: '/metrics' })).body;
      expect(text).toMatch(/^attachment_uploads_total\{result="stored"\} [1-9]\d*$/m);
      expect(text).toMatch(/^attachment_uploads_total\{result="refused"\} [1-9]\d*$/m);
      expect(text).toMatch(/^attachment_uploads_total\{result="declared"\} [1-9]\d*$/m);
      expect(text).toMatch(/^attachment_bytes_stored [1-9]\d*$/m);
      expect(text).toMatch(/^attachment_removals_pending \d+$/m);
    });

    it("one log line per upload and download, without the link's token", async () => {
      const { path } = await declare(2);
      await t.inject({ method: 'PUT', url: path, payload: 'ok' });
      const id = (await upload(fileBody('log.txt', 'log'))).json().id;
      const link = await linkOf(id);
      await t.inject({ method: 'GET', url: link });
      await settle(400);
      const signature = link.split('/').pop()!;
      const fileLines = lines.filter((l) => l.route === '/files/*');
      expect(fileLines.map((l) => [l.req.method, l.req.url, l.res.status])).toEqual(
        expect.arrayContaining([
          ['PUT', '/files/[redacted]', 204],
          ['GET', '/files/[redacted]', 200],
        ]),
      );
      expect(JSON.stringify(lines)).not.toContain(signature);
      expect(JSON.stringify(lines)).not.toContain(path.split('/').pop()!);
      expect(lines.filter((l) => l.route === '/api/v1/tasks/:task_id/attachments' && l.req.method === 'POST').length).toBeGreaterThan(0);
    });

    it('CORS: the links answer browsers of the allowed origins (PUT preflight, GET)', async () => {
      const { path } = await declare(1);
      const preflight = await t.app.inject({
        method: 'OPTIONS',
        url: path,
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type' },
      });
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example.com');
      expect(preflight.headers['access-control-allow-methods']).toContain('PUT');
      const put = await t.inject({ method: 'PUT', url: path, headers: { origin: 'https://app.example.com' }, payload: 'x' });
      expect([put.statusCode, put.headers['access-control-allow-origin']]).toEqual([204, 'https://app.example.com']);
      const id = (await upload(fileBody('cors.txt', 'cors'))).json().id;
      const get = await t.inject({ method: 'GET', url: await linkOf(id), headers: { origin: 'https://app.example.com' } });
      expect([get.statusCode, get.headers['access-control-allow-origin']]).toEqual([200, 'https://app.example.com']);
      expect(get.headers['access-control-expose-headers']).toContain('Content-Disposition');
    });

    it('no answer here was a 500', () => {
      expect(lines.filter((l) => typeof l.res?.status === 'number' && l.res.status >= 500)).toEqual([]);
    });
  });
});

describe('workspace quota (ATTACHMENT_WORKSPACE_QUOTA_BYTES)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'h36-quota-'));
  let t: TestApp;
  let w: RoleWorld;
  const declare = (size: number) =>
    t.inject({
      method: 'POST',
      url: `/api/v1/tasks/${w.ids.t_backlog}/attachments`,
      headers: auth(w.key('owner')),
      payload: { file_name: 'q.bin', file_size: size, mime_type: 'application/octet-stream' },
    });

  beforeAll(async () => {
    t = await createTestApp({ env: { STORAGE_DIR: dir, ATTACHMENT_WORKSPACE_QUOTA_BYTES: '100', ATTACHMENT_MAX_BYTES: '1000' } });
    w = await loadRoleWorld(t.db.ds, 'qt');
  });
  afterAll(() => t.close());

  it('confirmed and pending bytes count; over the quota: 413 after the body checks; a pending delete frees its bytes; expired pending ones do not count', async () => {
    const first = await declare(60);
    expect(first.statusCode).toBe(201);
    const over = await declare(41);
    expect([over.statusCode, over.json()]).toEqual([413, { error: 'Workspace storage quota exceeded' }]);
    // The body's own answers come first (step 7 before step 9).
    expect((await declare(2000)).json()).toEqual({ error: 'Attachment is too large (at most 1000 bytes)' });
    const multipart = await t.inject({
      method: 'POST',
      url: `/api/v1/tasks/${w.ids.t_backlog}/attachments`,
      headers: { ...auth(w.key('owner')), ...fileBody('m.bin', Buffer.alloc(41)).headers },
      payload: fileBody('m.bin', Buffer.alloc(41)).payload,
    });
    expect([multipart.statusCode, multipart.json()]).toEqual([413, { error: 'Workspace storage quota exceeded' }]);
    expect((await declare(40)).statusCode).toBe(201);
    expect((await t.inject({ method: 'DELETE', url: `/api/v1/attachments/${first.json().attachment.id}`, headers: auth(w.key('owner')) })).statusCode).toBe(
      204,
    );
    expect((await declare(60)).statusCode).toBe(201);
    await t.db.ds.query(`UPDATE attachments SET expires_at = now() - interval '1 second' WHERE NOT confirmed`);
    expect((await declare(100)).statusCode).toBe(201);
  });

  it('is serialized per workspace: of 10 concurrent declarations of 30 bytes into 90 free, exactly 3 pass', async () => {
    await t.db.ds.query('DELETE FROM attachments');
    await declare(10);
    const answers = await Promise.all(Array.from({ length: 10 }, () => declare(30)));
    expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 201, 201, 413, 413, 413, 413, 413, 413, 413]);
    expect((await t.db.ds.query('SELECT sum(file_size)::int AS n FROM attachments'))[0].n).toBe(100);
  });
});

describe('the removal worker on the job queue (ATTACHMENT_WORKER=true)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'h36-worker-'));
  let t: TestApp;
  let w: RoleWorld;
  beforeAll(async () => {
    t = await createTestApp({ env: { STORAGE_DIR: dir, ATTACHMENT_WORKER: 'true' } });
    w = await loadRoleWorld(t.db.ds, 'wk');
  });
  afterAll(() => t.close());

  it('a delete wakes the queue: the bytes go within seconds of the commit, with no call from the test', async () => {
    const body = fileBody('w.txt', 'worker');
    const id = (
      await t.inject({
        method: 'POST',
        url: `/api/v1/tasks/${w.ids.t_backlog}/attachments`,
        headers: { ...auth(w.key('owner')), ...body.headers },
        payload: body.payload,
      })
    ).json().id;
    const [{ storage_key: key }] = await t.db.ds.query('SELECT storage_key FROM attachments WHERE id = $1', [id]);
    expect(filesUnder(dir).objects).toContain(key);
    expect((await t.inject({ method: 'DELETE', url: `/api/v1/tasks/${w.ids.t_backlog}`, headers: auth(w.key('owner')) })).statusCode).toBe(204);
    const deadline = Date.now() + 15_000;
    while (filesUnder(dir).objects.includes(key) && Date.now() < deadline) await settle(200);
    expect(filesUnder(dir).objects).not.toContain(key);
    expect(await t.db.ds.query(`SELECT 1 FROM attachment_removals WHERE due_at <= now()`)).toEqual([]);
  }, 30_000);
});
