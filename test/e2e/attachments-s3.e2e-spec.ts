import { HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { AttachmentsWorker } from '../../src/attachments/attachments.worker';
import type { Schema } from '../setup/api-types';
import { auth, createTestApp, TestApp } from '../setup/create-app';
import { fileBody } from '../setup/multipart';
import { loadRoleWorld, RoleWorld } from '../setup/world';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as new (options: object) => { run(): Promise<{ address: string; port: number }>; close(): Promise<void> };

/**
 * The `s3` storage driver (D47) against a real S3-compatible server started here
 * (s3rver, from the npm registry, on loopback): multipart uploads stored as objects,
 * presigned PUT for declared uploads, presigned GET with D47's Content-Type and
 * Content-Disposition, removal of the bytes after a delete. No mock.
 */

const BUCKET = 'h36-attachments';
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

describe('attachments on the s3 driver (s3rver)', () => {
  let s3rver: InstanceType<typeof S3rver>;
  let endpoint: string;
  let client: S3Client;
  let t: TestApp;
  let w: RoleWorld;
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
  const as = () => auth(w.key('owner'));
  const keyOf = async (id: number) => (await t.db.ds.query('SELECT storage_key FROM attachments WHERE id = $1', [id]))[0].storage_key as string;
  const exists = async (key: string) =>
    client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key })).then(
      (head) => head.ContentLength,
      () => null,
    );

  beforeAll(async () => {
    s3rver = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: mkdtempSync(join(tmpdir(), 'h36-s3rver-')),
      configureBuckets: [{ name: BUCKET }],
    });
    const { port } = await s3rver.run();
    endpoint = `http://127.0.0.1:${port}`;
    // The SDK's default credential chain (environment) is what the service uses.
    process.env.AWS_ACCESS_KEY_ID = CREDENTIALS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = CREDENTIALS.secretAccessKey;
    client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: CREDENTIALS });
    t = await createTestApp({
      env: {
        STORAGE_DRIVER: 's3',
        S3_BUCKET: BUCKET,
        S3_REGION: 'us-east-1',
        S3_ENDPOINT: endpoint,
        S3_FORCE_PATH_STYLE: 'true',
        STORAGE_DIR: mkdtempSync(join(tmpdir(), 'h36-s3-staging-')),
        ATTACHMENT_MAX_BYTES: '100000',
      },
    });
    w = await loadRoleWorld(t.db.ds, 's3');
  });
  afterAll(async () => {
    await t?.close();
    client?.destroy();
    await s3rver?.close();
    process.env.AWS_ACCESS_KEY_ID = saved.id;
    process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
    if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
    if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
  });

  it("multipart: the file becomes an object under a random key; download redirects to a presigned GET with D47's headers", async () => {
    const body = fileBody('Résumé final.html', '<h1>hi</h1>', 'text/html');
    const res = await t.inject({
      method: 'POST',
      url: `/api/v1/tasks/${w.ids.t_backlog}/attachments`,
      headers: { ...as(), ...body.headers },
      payload: body.payload,
    });
    expect(res.statusCode).toBe(201);
    const id = (res.json() as Schema<'Attachment'>).id;
    const key = await keyOf(id);
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(await exists(key)).toBe(11);
    const redirect = await t.inject({ method: 'GET', url: `/api/v1/attachments/${id}/download`, headers: as() });
    expect([redirect.statusCode, redirect.body]).toEqual([302, '']);
    const location = redirect.headers.location as string;
    expect(location.startsWith(`${endpoint}/${BUCKET}/${key}?`)).toBe(true);
    const bytes = await fetch(location);
    expect(bytes.status).toBe(200);
    expect(await bytes.text()).toBe('<h1>hi</h1>');
    expect(bytes.headers.get('content-type')).toBe('application/octet-stream');
    expect(bytes.headers.get('content-disposition')).toBe(`attachment; filename="R_sum_ final.html"; filename*=UTF-8''R%C3%A9sum%C3%A9%20final.html`);
  });

  it('declaration: a presigned PUT of exactly the declared size, then confirm; before it, 409', async () => {
    const declared = await t.inject({
      method: 'POST',
      url: `/api/v1/tasks/${w.ids.t_backlog}/attachments`,
      headers: as(),
      payload: { file_name: 'data.csv', file_size: 7, mime_type: 'text/csv' } satisfies Schema<'DeclareAttachment'>,
    });
    expect(declared.statusCode).toBe(201);
    const { attachment, upload } = declared.json() as Schema<'DeclaredAttachment'>;
    expect(upload).toEqual({
      method: 'PUT',
      url: expect.stringContaining(`${endpoint}/${BUCKET}/`),
      headers: { 'Content-Length': '7' },
      expires_at: expect.any(String),
    } satisfies Schema<'UploadLink'>);
    expect((await t.inject({ method: 'POST', url: `/api/v1/attachments/${attachment.id}/confirm`, headers: as() })).json()).toEqual({
      error: 'Upload is missing or incomplete',
    } satisfies Schema<'Error'>);
    const put = await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: 'a,b\n1,2' });
    expect(put.status).toBe(200);
    const confirmed = await t.inject({ method: 'POST', url: `/api/v1/attachments/${attachment.id}/confirm`, headers: as() });
    expect([confirmed.statusCode, confirmed.json()]).toEqual([200, attachment]);
    const location = (await t.inject({ method: 'GET', url: `/api/v1/attachments/${attachment.id}/download`, headers: as() })).headers.location as string;
    const bytes = await fetch(location);
    expect([await bytes.text(), bytes.headers.get('content-type')]).toEqual(['a,b\n1,2', 'text/csv']);
  });

  it('confirmed bytes never change: the presigned PUT, replayed after confirm, writes nowhere a row points at; its object goes, even when written again', async () => {
    const declared = await t.inject({
      method: 'POST',
      url: `/api/v1/tasks/${w.ids.t_backlog}/attachments`,
      headers: as(),
      payload: { file_name: 'keep.txt', file_size: 4, mime_type: 'text/plain' } satisfies Schema<'DeclareAttachment'>,
    });
    const { attachment, upload } = declared.json() as Schema<'DeclaredAttachment'>;
    const uploadKey = await keyOf(attachment.id);
    const put = (body: string) => fetch(upload.url, { method: 'PUT', headers: upload.headers, body });
    expect((await put('one!')).status).toBe(200);
    // Until the confirm, each PUT replaces the bytes.
    expect((await put('good')).status).toBe(200);
    expect((await t.inject({ method: 'POST', url: `/api/v1/attachments/${attachment.id}/confirm`, headers: as() })).statusCode).toBe(200);
    const finalKey = await keyOf(attachment.id);
    expect(finalKey).toMatch(/^[0-9a-f]{32}$/);
    expect(finalKey).not.toBe(uploadKey);
    expect(upload.url).not.toContain(finalKey);
    const read = async () =>
      (await fetch((await t.inject({ method: 'GET', url: `/api/v1/attachments/${attachment.id}/download`, headers: as() })).headers.location as string)).text();
    expect(await read()).toBe('good');
    // The server still takes the replayed PUT (a presigned URL cannot be revoked), but no row points at its key.
    expect((await put('evil')).status).toBe(200);
    expect(await read()).toBe('good');
    // The upload key is removed at once, and again once its link has expired (the replay wrote it again).
    const due = await t.db.ds.query('SELECT due_at <= now() AS now FROM attachment_removals WHERE storage_key = $1 ORDER BY due_at', [uploadKey]);
    expect(due).toEqual([{ now: true }, { now: false }]);
    await t.app.get(AttachmentsWorker).removeDue();
    expect(await exists(uploadKey)).toBeNull();
    expect((await put('evil')).status).toBe(200);
    await t.db.ds.query('UPDATE attachment_removals SET due_at = now() WHERE storage_key = $1', [uploadKey]);
    await t.app.get(AttachmentsWorker).removeDue();
    expect(await exists(uploadKey)).toBeNull();
    expect([await exists(finalKey), await read()]).toEqual([4, 'good']);
  });

  it('confirm judges the copied bytes: a wrong-size upload is 409 and leaves no copy', async () => {
    const declared = await t.inject({
      method: 'POST',
      url: `/api/v1/tasks/${w.ids.t_backlog}/attachments`,
      headers: as(),
      payload: { file_name: 'short.txt', file_size: 4, mime_type: 'text/plain' } satisfies Schema<'DeclareAttachment'>,
    });
    const { attachment } = declared.json() as Schema<'DeclaredAttachment'>;
    const uploadKey = await keyOf(attachment.id);
    // Written past the link (as a racing or misbehaving client could): 3 bytes where 4 were declared.
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: uploadKey, Body: 'abc' }));
    const objects = async () => ((await client.send(new ListObjectsV2Command({ Bucket: BUCKET }))).Contents ?? []).map((o) => o.Key).sort();
    const before = await objects();
    const res = await t.inject({ method: 'POST', url: `/api/v1/attachments/${attachment.id}/confirm`, headers: as() });
    expect([res.statusCode, res.json()]).toEqual([409, { error: 'Upload is missing or incomplete' } satisfies Schema<'Error'>]);
    expect(await objects()).toEqual(before);
    expect(await keyOf(attachment.id)).toBe(uploadKey);
  });

  it('delete: 204, and the object goes once the removal queue runs; the local /files/ routes refuse everything', async () => {
    const body = fileBody('gone.txt', 'bye');
    const uploaded = await t.inject({
      method: 'POST',
      url: `/api/v1/tasks/${w.ids.t_backlog}/attachments`,
      headers: { ...as(), ...body.headers },
      payload: body.payload,
    });
    const id = (uploaded.json() as Schema<'Attachment'>).id;
    const key = await keyOf(id);
    expect(await exists(key)).toBe(3);
    expect((await t.inject({ method: 'DELETE', url: `/api/v1/attachments/${id}`, headers: as() })).statusCode).toBe(204);
    expect(await exists(key)).toBe(3);
    await t.app.get(AttachmentsWorker).removeDue();
    expect(await exists(key)).toBeNull();
    const denied = await t.app.inject({ method: 'GET', url: `/files/${id}/download/9999999999/${'A'.repeat(43)}` });
    expect([denied.statusCode, denied.json()]).toEqual([403, { error: 'Link is invalid or has expired' } satisfies Schema<'Error'>]);
  });
});
