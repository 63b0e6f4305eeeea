import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, unlinkSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { AttachmentsWorker } from '../../src/attachments/attachments.worker';
import { LinkSigner } from '../../src/attachments/storage/signed-links';
import type { Schema } from '../setup/api-types';
import { auth } from '../setup/create-app';
import { BOUNDARY, fileBody, multipart } from '../setup/multipart';
import { roleKeys, useRoleWorld, WORLD_NAMES, WorldRole } from '../setup/world';

/**
 * Attachments (D39, D47, D48) on the default local driver: upload (multipart and
 * JSON declaration + upload link + confirm), list, download (302 to a /files/ link),
 * delete, pending attachments, the removal queue and reaper, events and ETags.
 * The checks every route makes (keys, scopes, ids, non-members, role messages) are
 * the route matrix's; hostile input: files-local.e2e-spec.ts.
 */

const MAX = 4096;
const STORAGE_DIR = mkdtempSync(join(tmpdir(), 'h36-attachments-'));
const { key } = roleKeys('at');
const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ELEMENT_KEYS = ['created_at', 'file_name', 'file_size', 'id', 'mime_type', 'uploader'] satisfies Array<keyof Schema<'Attachment'>>;

/** Every object file under the storage directory (their names are their keys). */
const objectFiles = (): string[] => {
  const root = join(STORAGE_DIR, 'objects');
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((dir) => readdirSync(join(root, dir)));
};

describe('attachments (D47)', () => {
  const { t, ids } = useRoleWorld(
    'at',
    (b) => ({ workspaces: [b.solo('doomed_ws', 'owner', { tasks: [{ ref: 't_doomed_ws', title: 'In a workspace to delete' }] })] }),
    {
      env: { STORAGE_DIR, ATTACHMENT_MAX_BYTES: String(MAX), PUBLIC_URL: 'https://files.example.test/base/' },
    },
  );
  const sql = (text: string, params: unknown[] = []) => t.db.ds.query(text, params);
  const as = (role: WorldRole) => auth(key(role));

  const upload = (task: number, body: { payload: Buffer; headers: Record<string, string> }, role: WorldRole = 'owner', extra: Record<string, string> = {}) =>
    t.inject({ method: 'POST', url: `/api/v1/tasks/${task}/attachments`, headers: { ...as(role), ...body.headers, ...extra }, payload: body.payload });
  const declare = (task: number, payload: unknown, role: WorldRole = 'owner', extra: Record<string, string> = {}) =>
    t.inject({
      method: 'POST',
      url: `/api/v1/tasks/${task}/attachments`,
      headers: { ...as(role), 'content-type': 'application/json', ...extra },
      payload: JSON.stringify(payload),
    });
  const confirm = (id: number, role: WorldRole = 'owner') => t.inject({ method: 'POST', url: `/api/v1/attachments/${id}/confirm`, headers: as(role) });
  const list = (task: number, role: WorldRole = 'owner') => t.inject({ method: 'GET', url: `/api/v1/tasks/${task}/attachments`, headers: as(role) });
  const download = (id: number, role: WorldRole = 'owner') => t.inject({ method: 'GET', url: `/api/v1/attachments/${id}/download`, headers: as(role) });
  const remove = (id: number, role: WorldRole = 'owner') => t.inject({ method: 'DELETE', url: `/api/v1/attachments/${id}`, headers: as(role) });
  const getTask = (task: number) => t.inject({ method: 'GET', url: `/api/v1/tasks/${task}`, headers: as('owner') });
  /** The path of an absolute link of this app (PUBLIC_URL's path is its own: the link is under it). */
  const pathOf = (url: string) => {
    expect(url.startsWith('https://files.example.test/base/files/')).toBe(true);
    return url.slice('https://files.example.test/base'.length);
  };
  const fetchLink = (
    url: string,
    method: 'GET' | 'HEAD' | 'PUT' | 'POST' | 'DELETE' = 'GET',
    headers: Record<string, string> = {},
    payload?: Buffer | string,
  ) => t.inject({ method, url: pathOf(url), headers, payload });
  const eventsOf = async (types: string[]) =>
    (await sql(`SELECT type, data FROM events WHERE type = ANY($1) ORDER BY id`, [types])) as { type: string; data: Record<string, unknown> }[];
  const worker = () => t.app.get(AttachmentsWorker);

  describe('multipart upload', () => {
    it('201: the attachment element, confirmed at once, by the caller; attachment.created; in the listing and in get task; ETag changes', async () => {
      const before = await getTask(ids.t_backlog);
      const res = await upload(ids.t_backlog, fileBody('notes.txt', 'hello world', 'Text/Plain; charset=utf-8'), 'member');
      expect(res.statusCode).toBe(201);
      const element = res.json();
      expect(Object.keys(element).sort()).toEqual(ELEMENT_KEYS);
      expect(element).toEqual({
        id: expect.any(Number),
        file_name: 'notes.txt',
        file_size: 11,
        mime_type: 'text/plain',
        created_at: expect.stringMatching(TS),
        uploader: { id: ids.member, name: WORLD_NAMES.member, avatar_url: null },
      } satisfies Schema<'Attachment'>);
      expect((await list(ids.t_backlog)).json()).toEqual([element]);
      const after = await getTask(ids.t_backlog);
      expect(after.json().attachments).toEqual([element]);
      expect(after.headers.etag).not.toBe(before.headers.etag);
      expect(await eventsOf(['attachment.created'])).toEqual([
        { type: 'attachment.created', data: { attachment_id: element.id, task_id: ids.t_backlog, list_id: ids.backlog } },
      ]);
      // The bytes are stored under a random key, never the file name.
      const [row] = await sql('SELECT storage_key FROM attachments WHERE id = $1', [element.id]);
      expect(row.storage_key).toMatch(/^[0-9a-f]{32}$/);
      expect(objectFiles()).toContain(row.storage_key);
      const stored = readFileSync(join(STORAGE_DIR, 'objects', row.storage_key.slice(0, 2), row.storage_key), 'utf8');
      expect(stored).toBe('hello world');
    });

    it.each([
      ['a plain name', 'form-data; name="file"; filename="plain.txt"', 'plain.txt'],
      ['filename* after filename', `form-data; name="file"; filename="fallback.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9.txt`, 'résumé.txt'],
      ['filename* before filename', `form-data; name="file"; filename*=UTF-8''%E2%82%AC%20rates.txt; filename="fallback.txt"`, '€ rates.txt'],
      ['a quoted UTF-8 name', 'form-data; name="file"; filename="Łódź.txt"', 'Łódź.txt'],
      ['a path', 'form-data; name="file"; filename="../../etc/passwd"', 'passwd'],
      ['a Windows path', 'form-data; name="file"; filename="C:\\\\Users\\\\me\\\\report.pdf"', 'report.pdf'],
      ['a traversal in filename*', `form-data; name="file"; filename*=UTF-8''..%2F..%2Fsecret.txt`, 'secret.txt'],
      ['control characters and spaces', 'form-data; name="file"; filename="  a\tb\u0007c.txt  "', 'abc.txt'],
    ])('file_name from %s', async (_case, disposition, expected) => {
      const res = await upload(ids.t_backlog, multipart([{ disposition, contentType: 'text/plain', body: 'x' }]));
      expect([res.statusCode, res.json().file_name]).toEqual([201, expected]);
    });

    it.each([
      ['image/PNG', 'image/png'],
      ['application/pdf; name=x', 'application/pdf'],
      ['not a type', 'application/octet-stream'],
      [undefined, 'application/octet-stream'],
    ])('mime_type from the part Content-Type %p: %s', async (type, expected) => {
      const res = await upload(ids.t_backlog, multipart([{ name: 'file', filename: 'f.bin', contentType: type, body: 'x' }]));
      expect([res.statusCode, res.json().mime_type]).toEqual([201, expected]);
    });

    it('other parts are ignored; only file parts named file count', async () => {
      const res = await upload(
        ids.t_backlog,
        multipart([
          { name: 'comment', body: 'not a file' },
          { name: 'other', filename: 'other.txt', body: 'another file, other name' },
          { name: 'file', filename: 'real.txt', contentType: 'text/plain', body: 'real' },
        ]),
      );
      expect([res.statusCode, res.json().file_name, res.json().file_size]).toEqual([201, 'real.txt', 4]);
    });

    it.each([
      ['no part at all', multipart([]), 'file is required'],
      ['a part named file without a file name', multipart([{ name: 'file', body: 'x' }]), 'file is required'],
      ['a file part of another name', multipart([{ name: 'upload', filename: 'a.txt', body: 'x' }]), 'file is required'],
      [
        'two file parts',
        multipart([
          { name: 'file', filename: 'a.txt', body: 'a' },
          { name: 'file', filename: 'b.txt', body: 'b' },
        ]),
        'Send one file per request',
      ],
      [
        'two file parts, the first with a bad name',
        multipart([
          { name: 'file', filename: '   ', body: 'a' },
          { name: 'file', filename: 'b.txt', body: 'b' },
        ]),
        'Send one file per request',
      ],
      ['a blank name', fileBody('  \t ', 'x'), 'file_name must be 1 to 255 characters'],
      ['a name of only a path', fileBody('dir/', 'x'), 'file_name must be 1 to 255 characters'],
      ['a 256-character name', fileBody('a'.repeat(252) + '.txt', 'x'), 'file_name must be 1 to 255 characters'],
      ['an empty body', { payload: Buffer.alloc(0), headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` } }, 'Invalid multipart body'],
      ['no boundary', { payload: fileBody('a.txt', 'x').payload, headers: { 'content-type': 'multipart/form-data' } }, 'Invalid multipart body'],
      [
        'a body cut before its closing boundary',
        { payload: fileBody('a.txt', 'x').payload.subarray(0, 120), headers: fileBody('a.txt', 'x').headers },
        'Invalid multipart body',
      ],
      [
        'another boundary',
        { payload: fileBody('a.txt', 'x').payload, headers: { 'content-type': 'multipart/form-data; boundary=other' } },
        'Invalid multipart body',
      ],
    ])('400 for %s: %s, and nothing stored', async (_case, body, message) => {
      const rows = (await sql('SELECT count(*)::int AS n FROM attachments'))[0].n;
      const files = objectFiles().length;
      const res = await upload(ids.t_backlog, body);
      expect([res.statusCode, res.json()]).toEqual([400, { error: message }]);
      expect((await sql('SELECT count(*)::int AS n FROM attachments'))[0].n).toBe(rows);
      expect(objectFiles().length).toBe(files);
      expect(readdirSync(join(STORAGE_DIR, 'tmp'))).toEqual([]);
    });

    it('a 255-character name is accepted (code points, not bytes)', async () => {
      const name = 'é'.repeat(251) + '.txt';
      const res = await upload(ids.t_backlog, fileBody(name, 'x'));
      expect([res.statusCode, res.json().file_name]).toEqual([201, name]);
    });

    it(`413 for a file over ATTACHMENT_MAX_BYTES, after the name; exactly the limit is accepted`, async () => {
      const files = objectFiles().length;
      const over = await upload(ids.t_backlog, fileBody('big.bin', Buffer.alloc(MAX + 1, 1)));
      expect([over.statusCode, over.json()]).toEqual([413, { error: `Attachment is too large (at most ${MAX} bytes)` }]);
      expect(objectFiles().length).toBe(files);
      const badName = await upload(ids.t_backlog, fileBody('  ', Buffer.alloc(MAX + 1, 1)));
      expect([badName.statusCode, badName.json()]).toEqual([400, { error: 'file_name must be 1 to 255 characters' }]);
      const exact = await upload(ids.t_backlog, fileBody('exact.bin', Buffer.alloc(MAX, 1)));
      expect([exact.statusCode, exact.json().file_size]).toEqual([201, MAX]);
    });

    it('413 for a whole body over the limit plus 1 MiB, before the part rules', async () => {
      const body = multipart([{ name: 'pad', body: Buffer.alloc(1024 * 1024 + MAX + 10) }]);
      const res = await upload(ids.t_backlog, body);
      expect([res.statusCode, res.json()]).toEqual([413, { error: `Attachment is too large (at most ${MAX} bytes)` }]);
    });

    it('other parts may fill the 1 MiB beside the file', async () => {
      const res = await upload(
        ids.t_backlog,
        multipart([
          { name: 'pad', body: Buffer.alloc(1000 * 1024) },
          { name: 'file', filename: 'a.txt', body: 'a' },
        ]),
      );
      expect(res.statusCode).toBe(201);
    });

    it('10,000 tiny parts are read and dropped', async () => {
      const parts = Array.from({ length: 10_000 }, (_, i) => ({ name: `p${i}`, body: 'x' }));
      const res = await upload(ids.t_backlog, multipart([...parts, { name: 'file', filename: 'last.txt', body: 'end' }]));
      expect([res.statusCode, res.json().file_name]).toEqual([201, 'last.txt']);
    });
  });

  describe('the body comes after role and restriction (step 7)', () => {
    it('viewers: 403 Viewers cannot upload attachments, whatever the body', async () => {
      for (const body of [
        fileBody('a.txt', 'x'),
        { payload: Buffer.from('{bad'), headers: { 'content-type': 'application/json' } },
        { payload: Buffer.from('x'), headers: { 'content-type': 'text/plain' } },
      ]) {
        const res = await upload(ids.t_backlog, body, 'viewer');
        expect([res.statusCode, res.json()]).toEqual([403, { error: 'Viewers cannot upload attachments' }]);
      }
    });

    it('restricted members outside their lists: 403 Access denied; inside: 201', async () => {
      expect((await upload(ids.t_inbox, fileBody('a.txt', 'x'), 'restricted')).json()).toEqual({ error: 'Access denied' });
      expect((await upload(ids.t_backlog, fileBody('a.txt', 'x'), 'restricted')).statusCode).toBe(201);
    });

    it.each([
      ['text/plain', 'x', 415, 'Content-Type must be application/json or multipart/form-data'],
      ['multipart/mixed; boundary=x', '--x--', 415, 'Content-Type must be application/json or multipart/form-data'],
      ['application/json', '{bad', 400, 'Invalid JSON body'],
      ['application/json', '[1]', 400, 'Request body must be a JSON object'],
    ])('%s body %p: %d %s', async (type, payload, status, message) => {
      const res = await upload(ids.t_backlog, { payload: Buffer.from(payload), headers: { 'content-type': type } });
      expect([res.statusCode, res.json()]).toEqual([status, { error: message }]);
    });

    it('a JSON body over 1 MiB is 413 before authentication', async () => {
      const res = await t.inject({
        method: 'POST',
        url: `/api/v1/tasks/${ids.t_backlog}/attachments`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ pad: 'x'.repeat(1024 * 1024) }),
      });
      expect([res.statusCode, res.json()]).toEqual([413, { error: 'Request body is too large' }]);
    });
  });

  describe('JSON declaration, upload link and confirm', () => {
    it('201 with the pending attachment and its upload link; invisible until confirmed; 409 until the bytes are there; then 200, once recorded', async () => {
      const before = await getTask(ids.t_backlog);
      const listed = (await list(ids.t_backlog)).json();
      const res = await declare(
        ids.t_backlog,
        { file_name: 'spec.pdf', file_size: 5, mime_type: 'Application/PDF; q=1' } satisfies Schema<'DeclareAttachment'>,
        'admin',
      );
      expect(res.statusCode).toBe(201);
      const body = res.json();
      expect(Object.keys(body).sort()).toEqual(['attachment', 'upload'] satisfies Array<keyof Schema<'DeclaredAttachment'>>);
      expect(body.attachment).toEqual({
        id: expect.any(Number),
        file_name: 'spec.pdf',
        file_size: 5,
        mime_type: 'application/pdf',
        created_at: expect.stringMatching(TS),
        uploader: { id: ids.admin, name: WORLD_NAMES.admin, avatar_url: null },
      } satisfies Schema<'Attachment'>);
      expect(body.upload).toEqual({
        method: 'PUT',
        url: expect.any(String),
        headers: {},
        expires_at: expect.stringMatching(TS),
      } satisfies Schema<'UploadLink'>);
      const ttl = Date.parse(body.upload.expires_at) - Date.now();
      expect(ttl).toBeGreaterThan(3590_000);
      expect(ttl).toBeLessThanOrEqual(3600_000);
      const id = body.attachment.id;

      // Pending: in no listing, not in get task, not downloadable; the task's tag is unchanged.
      expect((await list(ids.t_backlog)).json()).toEqual(listed);
      const pendingTask = await getTask(ids.t_backlog);
      expect(pendingTask.json().attachments).toEqual(listed);
      expect(pendingTask.headers.etag).toBe(before.headers.etag);
      expect((await download(id)).json()).toEqual({ error: 'Attachment not found' });
      expect(await eventsOf(['attachment.created'])).not.toContainEqual(expect.objectContaining({ data: expect.objectContaining({ attachment_id: id }) }));

      expect((await confirm(id)).json()).toEqual({ error: 'Upload is missing or incomplete' });
      const wrong = await fetchLink(body.upload.url, 'PUT', { 'content-type': 'application/pdf' }, '1234');
      expect([wrong.statusCode, wrong.json()]).toEqual([400, { error: 'Upload must be exactly 5 bytes' }]);
      const longer = await fetchLink(body.upload.url, 'PUT', {}, '123456');
      expect([longer.statusCode, longer.json()]).toEqual([400, { error: 'Upload must be exactly 5 bytes' }]);
      expect((await confirm(id)).statusCode).toBe(409);
      const put = await fetchLink(body.upload.url, 'PUT', { 'content-type': 'application/pdf' }, 'first');
      expect([put.statusCode, put.body, put.headers['content-type']]).toEqual([204, '', undefined]);
      // Each upload replaces the bytes until confirmed.
      expect((await fetchLink(body.upload.url, 'PUT', {}, '%PDF!')).statusCode).toBe(204);
      // A rejected upload changes nothing.
      expect((await fetchLink(body.upload.url, 'PUT', {}, 'xx')).statusCode).toBe(400);

      const confirmed = await confirm(id, 'member');
      expect([confirmed.statusCode, confirmed.json()]).toEqual([200, body.attachment]);
      const again = await confirm(id);
      expect([again.statusCode, again.json()]).toEqual([200, body.attachment]);
      const created = (await eventsOf(['attachment.created'])).filter((e) => e.data.attachment_id === id);
      expect(created).toEqual([{ type: 'attachment.created', data: { attachment_id: id, task_id: ids.t_backlog, list_id: ids.backlog } }]);
      expect((await list(ids.t_backlog)).json()).toEqual([...listed, body.attachment]);
      const after = await getTask(ids.t_backlog);
      expect(after.headers.etag).not.toBe(before.headers.etag);

      // Confirmed bytes never change: the upload link is dead.
      const late = await fetchLink(body.upload.url, 'PUT', {}, 'other');
      expect([late.statusCode, late.json()]).toEqual([403, { error: 'Link is invalid or has expired' }]);
      const link = (await download(id)).headers.location as string;
      expect((await fetchLink(link)).body).toBe('%PDF!');
    });

    it('a 0-byte file needs its PUT too', async () => {
      const { attachment, upload: link } = (
        await declare(ids.t_backlog, { file_name: 'empty.txt', file_size: 0, mime_type: 'text/plain' } satisfies Schema<'DeclareAttachment'>)
      ).json();
      expect((await confirm(attachment.id)).statusCode).toBe(409);
      expect((await fetchLink(link.url, 'PUT')).statusCode).toBe(204);
      expect((await confirm(attachment.id)).statusCode).toBe(200);
    });

    it('concurrent confirms: all 200, one attachment.created', async () => {
      const { attachment, upload: link } = (
        await declare(ids.t_backlog, { file_name: 'race.txt', file_size: 3, mime_type: 'text/plain' } satisfies Schema<'DeclareAttachment'>)
      ).json();
      expect((await fetchLink(link.url, 'PUT', {}, 'abc')).statusCode).toBe(204);
      const answers = await Promise.all(Array.from({ length: 8 }, () => confirm(attachment.id)));
      expect(answers.map((r) => r.statusCode)).toEqual(Array(8).fill(200));
      expect((await eventsOf(['attachment.created'])).filter((e) => e.data.attachment_id === attachment.id)).toHaveLength(1);
    });

    it.each([
      [{}, 'file_name is required'],
      [{ file_name: 5, file_size: 'x', mime_type: 1 }, 'file_name is required'],
      [{ file_name: ' / ', file_size: 'x' }, 'file_name must be 1 to 255 characters'],
      [{ file_name: 'a.txt' }, 'file_size must be a non-negative integer'],
      [{ file_name: 'a.txt', file_size: -1, mime_type: 'x' }, 'file_size must be a non-negative integer'],
      [{ file_name: 'a.txt', file_size: 1.5 }, 'file_size must be a non-negative integer'],
      [{ file_name: 'a.txt', file_size: '5' }, 'file_size must be a non-negative integer'],
      [{ file_name: 'a.txt', file_size: MAX + 1 }, 'mime_type must be a MIME type such as application/pdf'],
      [{ file_name: 'a.txt', file_size: 5, mime_type: 'pdf' }, 'mime_type must be a MIME type such as application/pdf'],
      [{ file_name: 'a.txt', file_size: 5, mime_type: 'text/' + 'p'.repeat(251) }, 'mime_type must be a MIME type such as application/pdf'],
      [{ file_name: 'a.txt', file_size: 5, mime_type: null }, 'mime_type must be a MIME type such as application/pdf'],
    ])('400 for %p: %s (fields in order)', async (payload, message) => {
      const res = await declare(ids.t_backlog, payload);
      expect([res.statusCode, res.json()]).toEqual([400, { error: message }]);
    });

    it('413 for a declared size over the limit, after the other fields', async () => {
      const res = await declare(ids.t_backlog, { file_name: 'a.txt', file_size: MAX + 1, mime_type: 'text/plain' });
      expect([res.statusCode, res.json()]).toEqual([413, { error: `Attachment is too large (at most ${MAX} bytes)` }]);
      expect(
        (await declare(ids.t_backlog, { file_name: 'a.txt', file_size: MAX, mime_type: 'text/plain' } satisfies Schema<'DeclareAttachment'>)).statusCode,
      ).toBe(201);
    });

    it('an expired pending attachment is gone: confirm and delete 404, its link 403; a non-member still gets 403 while it is pending', async () => {
      const { attachment, upload: link } = (
        await declare(ids.t_backlog, { file_name: 'late.txt', file_size: 1, mime_type: 'text/plain' } satisfies Schema<'DeclareAttachment'>)
      ).json();
      const outsider = await confirm(attachment.id, 'outsider');
      expect([outsider.statusCode, outsider.json()]).toEqual([403, { error: 'Access denied' }]);
      await sql(`UPDATE attachments SET expires_at = now() - interval '1 second' WHERE id = $1`, [attachment.id]);
      expect((await confirm(attachment.id)).json()).toEqual({ error: 'Attachment not found' });
      expect((await remove(attachment.id)).json()).toEqual({ error: 'Attachment not found' });
      expect((await confirm(attachment.id, 'outsider')).json()).toEqual({ error: 'Attachment not found' });
      expect((await fetchLink(link.url, 'PUT', {}, 'x')).json()).toEqual({ error: 'Link is invalid or has expired' });
    });

    it('a pending attachment loaded from a fixture counts as expired', async () => {
      const [row] = await sql(
        `INSERT INTO attachments (workspace_id, task_id, uploader_id, file_name, file_size, mime_type, confirmed) VALUES ($1, $2, $3, 'f.txt', 1, 'text/plain', false) RETURNING id`,
        [ids.ws, ids.t_backlog, ids.owner],
      );
      expect((await confirm(row.id)).json()).toEqual({ error: 'Attachment not found' });
      expect((await download(row.id)).json()).toEqual({ error: 'Attachment not found' });
    });

    it('deleting a pending attachment: 204, no event', async () => {
      const { attachment } = (
        await declare(ids.t_backlog, { file_name: 'p.txt', file_size: 1, mime_type: 'text/plain' } satisfies Schema<'DeclareAttachment'>)
      ).json();
      const res = await remove(attachment.id);
      expect([res.statusCode, res.body]).toEqual([204, '']);
      expect((await eventsOf(['attachment.deleted'])).filter((e) => e.data.attachment_id === attachment.id)).toEqual([]);
    });
  });

  describe('download', () => {
    let id: number;
    let link: string;
    const content = 'The quick brown fox';
    beforeAll(async () => {
      const disposition = `form-data; name="file"; filename*=UTF-8''%C3%9Cn%C3%AFcode%20%22quoted%22%20name%7E.txt`;
      id = (await upload(ids.t_backlog, multipart([{ disposition, contentType: 'text/plain', body: content }]))).json().id;
      link = (await download(id)).headers.location as string;
    });

    it('302 with an empty body and an absolute Location valid without a key', async () => {
      const res = await download(id, 'viewer');
      expect([res.statusCode, res.body]).toEqual([302, '']);
      const bytes = await fetchLink(res.headers.location as string);
      expect(bytes.statusCode).toBe(200);
      expect(bytes.body).toBe(content);
      expect(bytes.headers).toMatchObject({
        'content-type': 'text/plain',
        'content-length': String(content.length),
        'content-disposition': `attachment; filename="_n_code _quoted_ name~.txt"; filename*=UTF-8''%C3%9Cn%C3%AFcode%20%22quoted%22%20name~.txt`,
        'x-content-type-options': 'nosniff',
      });
    });

    it('HEAD answers as GET without a body', async () => {
      const res = await fetchLink(link, 'HEAD');
      expect([res.statusCode, res.body, res.headers['content-length']]).toEqual([200, '', String(content.length)]);
    });

    it.each([
      ['bytes=0-2', 206, 'The', 'bytes 0-2/19'],
      ['bytes=16-', 206, 'fox', 'bytes 16-18/19'],
      ['bytes=-3', 206, 'fox', 'bytes 16-18/19'],
      ['bytes=10-1000', 206, 'brown fox', 'bytes 10-18/19'],
      ['bytes=0-0,1-1', 200, content, undefined],
      ['bytes=5-2', 200, content, undefined],
      ['items=0-1', 200, content, undefined],
      ['bytes=abc', 200, content, undefined],
    ])('Range %s: %d', async (range, status, body, contentRange) => {
      const res = await fetchLink(link, 'GET', { range });
      expect([res.statusCode, res.body, res.headers['content-range']]).toEqual([status, body, contentRange]);
      expect(res.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    });

    it.each(['bytes=19-', 'bytes=100-200', 'bytes=-0'])('Range %s: 416 with Content-Range bytes */size', async (range) => {
      const res = await fetchLink(link, 'GET', { range });
      expect([res.statusCode, res.json(), res.headers['content-range']]).toEqual([416, { error: 'Range not satisfiable' }, 'bytes */19']);
    });

    it('any range of a 0-byte file is unsatisfiable', async () => {
      const empty = (await upload(ids.t_backlog, fileBody('empty.txt', ''))).json();
      const emptyLink = (await download(empty.id)).headers.location as string;
      expect((await fetchLink(emptyLink)).statusCode).toBe(200);
      const res = await fetchLink(emptyLink, 'GET', { range: 'bytes=0-' });
      expect([res.statusCode, res.headers['content-range']]).toEqual([416, 'bytes */0']);
    });

    it('no answer of a link leaves its file open: 200, HEAD, 206, 416, a 0-byte file (issue 36)', async () => {
      const objects = join(STORAGE_DIR, 'objects');
      const openObjects = () =>
        readdirSync('/proc/self/fd').filter((fd) => {
          try {
            return readlinkSync(`/proc/self/fd/${fd}`).startsWith(objects);
          } catch {
            return false; // closed meanwhile
          }
        }).length;
      const empty = (await upload(ids.t_backlog, fileBody('empty.txt', ''))).json();
      const emptyLink = (await download(empty.id)).headers.location as string;
      const before = openObjects();
      const answers: number[] = [];
      for (let i = 0; i < 3; i++) {
        answers.push((await fetchLink(link)).statusCode, (await fetchLink(link, 'HEAD')).statusCode);
        answers.push((await fetchLink(link, 'GET', { range: 'bytes=0-2' })).statusCode, (await fetchLink(link, 'GET', { range: 'bytes=100-' })).statusCode);
        answers.push((await fetchLink(emptyLink)).statusCode, (await fetchLink(emptyLink, 'HEAD')).statusCode);
      }
      expect(answers).toEqual([200, 200, 206, 416, 200, 200, 200, 200, 206, 416, 200, 200, 200, 200, 206, 416, 200, 200]);
      // A stream's descriptor is closed just after its answer ended.
      await new Promise((done) => setTimeout(done, 100));
      expect(openObjects()).toBe(before);
    });

    it('a link whose file is gone from disk answers 403, for GET and HEAD', async () => {
      const att = (await upload(ids.t_backlog, fileBody('lost.txt', 'lost'))).json();
      const attLink = (await download(att.id)).headers.location as string;
      const [{ storage_key: key }] = (await sql('SELECT storage_key FROM attachments WHERE id = $1', [att.id])) as { storage_key: string }[];
      unlinkSync(join(STORAGE_DIR, 'objects', key.slice(0, 2), key));
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await fetchLink(attLink, method);
        expect([method, res.statusCode]).toEqual([method, 403]);
      }
      expect((await fetchLink(attLink)).json()).toEqual({ error: 'Link is invalid or has expired' });
    });

    it.each([
      'text/html',
      'image/svg+xml',
      'application/xhtml+xml',
      'application/atom+xml',
      'text/javascript',
      'application/xml',
      'text/xml',
      'text/xsl',
      'application/javascript',
      'application/x-javascript',
      'application/ecmascript',
      'text/ecmascript',
      'Text/HTML; charset=utf-8',
      'IMAGE/SVG+XML',
    ])('%s is served as application/octet-stream with nosniff', async (type) => {
      const body = '<html><script>alert(1)</script></html>';
      const att = (await upload(ids.t_backlog, fileBody('page.html', body, type))).json();
      expect(att.mime_type).toBe(type.split(';')[0].toLowerCase());
      const res = await fetchLink((await download(att.id)).headers.location as string);
      expect([res.headers['content-type'], res.headers['x-content-type-options'], res.body]).toEqual(['application/octet-stream', 'nosniff', body]);
    });

    it('403 for tampered, expired, other-operation and unknown links, other methods and paths; API keys are ignored there', async () => {
      const path = pathOf(link);
      const [, , idPart, op, expiry, sig] = path.split('/');
      const secret = (await sql(`SELECT value FROM server_secrets WHERE name = 'files'`))[0].value as string;
      const expired = new LinkSigner(() => secret).path(id, 'download', new Date(Date.now() - 1000));
      const other = (await upload(ids.t_backlog, fileBody('other.txt', 'OTHER'))).json().id;
      const denied = [
        `/files/${idPart}/${op}/${expiry}/${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`,
        `/files/${other}/${op}/${expiry}/${sig}`,
        `/files/${idPart}/${op}/${Number(expiry) + 1}/${sig}`,
        `/files/${idPart}/upload/${expiry}/${sig}`,
        expired,
        `/files/${idPart}/${op}/${expiry}/${sig}/extra`,
        `/files/${idPart}/${op}/${expiry}`,
        '/files/',
        '/files',
        `/files/${idPart}/download/${expiry}/..%2F..%2F..%2Fetc%2Fpasswd`,
      ];
      for (const url of denied) {
        // Paths no document describes: past the response validator.
        const res = await t.app.inject({ method: 'GET', url, headers: as('owner') });
        expect([url, res.statusCode, res.json()]).toEqual([url, 403, { error: 'Link is invalid or has expired' }]);
      }
      for (const method of ['PUT', 'POST', 'DELETE', 'PATCH'] as const) {
        const res = await t.app.inject({ method, url: path, payload: 'x' });
        expect([method, res.statusCode, res.json()]).toEqual([method, 403, { error: 'Link is invalid or has expired' }]);
      }
      // Dot segments are resolved by the router before any route: never a file, never 5xx.
      for (const url of ['/files/%2e%2e/%2e%2e/etc/passwd', '/files/../../etc/passwd']) {
        const res = await t.app.inject({ method: 'GET', url });
        expect([403, 404]).toContain(res.statusCode);
        expect(res.body).not.toContain('root:');
      }
      // A query string changes nothing.
      expect((await t.inject({ method: 'GET', url: `${path}?x=1` })).body).toBe(content);
    });

    it('a restricted member outside the lists gets 403 before the pending 404; non-members 403', async () => {
      const inbox = (await upload(ids.t_inbox, fileBody('in.txt', 'x'))).json().id;
      expect((await download(inbox, 'restricted')).json()).toEqual({ error: 'Access denied' });
      expect((await download(inbox, 'outsider')).json()).toEqual({ error: 'Access denied' });
      const { attachment } = (
        await declare(ids.t_inbox, { file_name: 'p.txt', file_size: 1, mime_type: 'text/plain' } satisfies Schema<'DeclareAttachment'>)
      ).json();
      expect((await download(attachment.id, 'restricted')).json()).toEqual({ error: 'Access denied' });
      expect((await download(attachment.id, 'restrictedViewer')).json()).toEqual({ error: 'Attachment not found' });
    });
  });

  describe('events (D48)', () => {
    it('attachment events reach restricted members as comment events do: only for tasks of their lists; the feed knows both types', async () => {
      const inside = (await upload(ids.t_backlog, fileBody('in.txt', 'x'))).json().id;
      const outside = (await upload(ids.t_inbox, fileBody('out.txt', 'x'))).json().id;
      expect((await remove(outside)).statusCode).toBe(204);
      const feed = async (role: WorldRole) =>
        (
          await t.inject({ method: 'GET', url: `/api/v1/workspaces/${ids.ws}/events?type=attachment.created,attachment.deleted&limit=100`, headers: as(role) })
        ).json().data as {
          type: string;
          data: { attachment_id: number };
        }[];
      const seen = (events: { type: string; data: { attachment_id: number } }[]) => events.map((e) => `${e.type} ${e.data.attachment_id}`);
      expect(seen(await feed('owner'))).toEqual(
        expect.arrayContaining([`attachment.created ${inside}`, `attachment.created ${outside}`, `attachment.deleted ${outside}`]),
      );
      const restricted = seen(await feed('restricted'));
      expect(restricted).toContain(`attachment.created ${inside}`);
      expect(restricted).not.toContain(`attachment.created ${outside}`);
      expect(restricted).not.toContain(`attachment.deleted ${outside}`);
    });
  });

  describe('delete and the removal of bytes', () => {
    it('204; attachment.deleted; gone from the listing; ETag changes; the link dies; the bytes go after the commit', async () => {
      const att = (await upload(ids.t_backlog, fileBody('gone.txt', 'bye'))).json();
      const [{ storage_key: stored }] = await sql('SELECT storage_key FROM attachments WHERE id = $1', [att.id]);
      const link = (await download(att.id)).headers.location as string;
      const before = await getTask(ids.t_backlog);
      expect((await remove(att.id, 'viewer')).json()).toEqual({ error: 'Viewers cannot delete attachments' });
      const res = await remove(att.id, 'member');
      expect([res.statusCode, res.body]).toEqual([204, '']);
      expect((await eventsOf(['attachment.deleted'])).filter((e) => e.data.attachment_id === att.id)).toEqual([
        { type: 'attachment.deleted', data: { attachment_id: att.id, task_id: ids.t_backlog, list_id: ids.backlog } },
      ]);
      expect((await list(ids.t_backlog)).json().map((a: { id: number }) => a.id)).not.toContain(att.id);
      expect((await getTask(ids.t_backlog)).headers.etag).not.toBe(before.headers.etag);
      expect((await fetchLink(link)).json()).toEqual({ error: 'Link is invalid or has expired' });
      expect((await remove(att.id)).json()).toEqual({ error: 'Attachment not found' });
      // Queued in the deleting transaction; removed by the worker.
      expect(await sql('SELECT storage_key FROM attachment_removals WHERE storage_key = $1 AND due_at <= now()', [stored])).toHaveLength(1);
      expect(objectFiles()).toContain(stored);
      await worker().removeDue();
      expect(objectFiles()).not.toContain(stored);
      expect(await sql('SELECT 1 FROM attachment_removals WHERE storage_key = $1 AND due_at <= now()', [stored])).toEqual([]);
    });

    it("task, list, folder and workspace deletes queue their attachments' bytes (the trigger covers every cascade)", async () => {
      const [{ id: folder }] = await sql(`INSERT INTO folders (workspace_id, name, position) VALUES ($1, 'Doomed', 99) RETURNING id`, [ids.ws]);
      const newList = async (name: string) =>
        (await sql(`INSERT INTO lists (workspace_id, folder_id, name, position) VALUES ($1, $2, $3, 99) RETURNING id`, [ids.ws, folder, name]))[0].id as number;
      const [listA, listB] = [await newList('A'), await newList('B')];
      const makeTask = async (list: number) =>
        (await t.inject({ method: 'POST', url: '/api/v1/tasks', headers: as('owner'), payload: { list_id: list, title: 'Doomed' } })).json().id as number;
      const keyOf = async (task: number) => {
        const att = (await upload(task, fileBody('f.txt', 'bytes'))).json();
        return (await sql('SELECT storage_key FROM attachments WHERE id = $1', [att.id]))[0].storage_key as string;
      };
      const doomedTask = await makeTask(listA);
      const taskKey = await keyOf(doomedTask);
      const listKey = await keyOf(await makeTask(listB));
      const folderKey = await keyOf(await makeTask(listA));
      const wsKey = await keyOf(ids.t_doomed_ws);
      const del = (url: string) => t.inject({ method: 'DELETE', url, headers: as('owner') });
      const queued = async () =>
        (await sql('SELECT storage_key FROM attachment_removals WHERE due_at <= now()')).map((r: { storage_key: string }) => r.storage_key);

      expect((await del(`/api/v1/tasks/${doomedTask}`)).statusCode).toBe(204);
      expect(await queued()).toContain(taskKey);
      expect((await del(`/api/v1/lists/${listB}`)).statusCode).toBe(204);
      expect(await queued()).toContain(listKey);
      expect((await del(`/api/v1/folders/${folder}`)).statusCode).toBe(204);
      expect(await queued()).toContain(folderKey);
      // Workspace delete (its route is another's): the cascade alone queues the bytes.
      await sql('DELETE FROM workspaces WHERE id = $1', [ids.doomed_ws]);
      expect(await queued()).toContain(wsKey);
      for (const k of [taskKey, listKey, folderKey, wsKey]) expect(objectFiles()).toContain(k);
      await worker().removeDue();
      for (const k of [taskKey, listKey, folderKey, wsKey]) expect(objectFiles()).not.toContain(k);
    });

    it("never removes bytes a row still points at; an upload's intent settles without removing them", async () => {
      const att = (await upload(ids.t_backlog, fileBody('kept.txt', 'kept'))).json();
      const [{ storage_key: stored }] = await sql('SELECT storage_key FROM attachments WHERE id = $1', [att.id]);
      // The multipart upload queued an intent for its key, due later.
      expect(await sql('SELECT 1 FROM attachment_removals WHERE storage_key = $1 AND due_at > now()', [stored])).toHaveLength(1);
      await sql(`UPDATE attachment_removals SET due_at = now() WHERE storage_key = $1`, [stored]);
      // A stray removal for a live key (it cannot happen; still never obeyed).
      await sql('INSERT INTO attachment_removals (storage_key) VALUES ($1)', [stored]);
      await worker().removeDue();
      expect(objectFiles()).toContain(stored);
      expect(await sql('SELECT 1 FROM attachment_removals WHERE storage_key = $1', [stored])).toEqual([]);
      expect((await fetchLink((await download(att.id)).headers.location as string)).body).toBe('kept');
    });

    it('the reaper deletes expired pending uploads and their bytes', async () => {
      const { attachment, upload: link } = (
        await declare(ids.t_backlog, { file_name: 'r.txt', file_size: 2, mime_type: 'text/plain' } satisfies Schema<'DeclareAttachment'>)
      ).json();
      expect((await fetchLink(link.url, 'PUT', {}, 'ok')).statusCode).toBe(204);
      const [{ storage_key: stored }] = await sql('SELECT storage_key FROM attachments WHERE id = $1', [attachment.id]);
      expect(objectFiles()).toContain(stored);
      await worker().reap();
      expect(objectFiles()).toContain(stored);
      await sql(`UPDATE attachments SET expires_at = now() - interval '1 second' WHERE id = $1`, [attachment.id]);
      expect(await worker().reap()).toBeGreaterThanOrEqual(1);
      expect(await sql('SELECT 1 FROM attachments WHERE id = $1', [attachment.id])).toEqual([]);
      expect(objectFiles()).not.toContain(stored);
    });

    it('a rolled-back delete queues nothing', async () => {
      const att = (await upload(ids.t_backlog, fileBody('rb.txt', 'x'))).json();
      const [{ storage_key: stored }] = await sql('SELECT storage_key FROM attachments WHERE id = $1', [att.id]);
      await sql('DELETE FROM attachment_removals WHERE storage_key = $1', [stored]);
      const runner = t.db.ds.createQueryRunner();
      await runner.startTransaction();
      await runner.query('DELETE FROM attachments WHERE id = $1', [att.id]);
      await runner.rollbackTransaction();
      await runner.release();
      expect(await sql('SELECT 1 FROM attachment_removals WHERE storage_key = $1', [stored])).toEqual([]);
    });
  });
});
