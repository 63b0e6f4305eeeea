import {
  ConflictException,
  HttpException,
  Inject,
  Injectable,
  NotFoundException,
  PayloadTooLargeException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import type { Readable } from 'stream';
import { DataSource } from 'typeorm';

import { NOT_FOUND } from '../common/access/access.policy';
import { AccessService } from '../common/access/access.service';
import type { Caller } from '../common/auth/auth-context';
import { RawJson } from '../common/http/raw-json';
import { attachmentStaging, MULTIPART_BODY_OVERHEAD_BYTES } from '../common/http/streamed-body';
import { neverStored } from '../common/validation/body-error';
import type { AppEnv, AttachmentSettings } from '../config/env';
import { InjectSettings } from '../config/settings';
import { AttachmentDto } from '../tasks/tasks.dto';
import { ATTACHMENT_MESSAGES, parseDeclaration, tooLargeMessage } from './attachment-fields';
import { AttachmentMetrics } from './attachments.metrics';
import { AttachmentsRepository, NewAttachment, StoredAttachment } from './attachments.repository';
import { MULTIPART_MESSAGES, type MultipartResult, receiveMultipart, uploadLimits } from './multipart';
import { newObjectKey, OBJECT_STORAGE, type ObjectStorage, type UploadLink } from './storage/storage';

/** What the upload route received, for the service to read after its access check (D47: the body is step 7). */
export interface UploadInput {
  /** The request's Content-Type header. */
  contentType: string | undefined;
  /** The parsed JSON body (undefined when none, or when it is not JSON). */
  body: unknown;
  /** The D7 answer the body parser kept (bad JSON, not an object, another content type). */
  bodyError: HttpException | undefined;
  /** The request's Content-Length, if it sent one. */
  contentLength: number | undefined;
  /** The multipart body, readable once, or the form it held already received (a keyed request's, read ahead). */
  stream(): { ahead: MultipartResult } | { source: Readable };
  /** The same object on every run of one request (WriteRequests runs the route twice after a lost race). */
  request: object;
}

/** A multipart file received and stored: what its row needs. */
interface StoredUpload {
  key: string;
  fileName: string;
  mimeType: string;
  size: number;
}

/** D47: the answer to a JSON declaration. */
export interface DeclaredUpload {
  attachment: AttachmentDto;
  upload: UploadLink & { expires_at: string };
}

/** The key of no object: what a link to an attachment without bytes (a fixture's) names. */
const NO_OBJECT_KEY = '0'.repeat(32);

/** Multipart requests (D47); anything else with a body is JSON or refused. */
const isMultipart = (contentType: string | undefined) => /^multipart\/form-data\s*(;|$)/i.test(contentType ?? '');

/** Rules for attachments (D39, D47): upload, confirm, list, download, delete. */
@Injectable()
export class AttachmentsService {
  private readonly settings: AttachmentSettings;
  /** The multipart file of each request, received and stored once (stored()): a second run of the route after a lost race reuses it. */
  private readonly storing = new WeakMap<object, Promise<StoredUpload>>();

  constructor(
    private readonly access: AccessService,
    private readonly repo: AttachmentsRepository,
    private readonly metrics: AttachmentMetrics,
    private readonly db: DataSource,
    @Inject(OBJECT_STORAGE) private readonly storage: ObjectStorage,
    @InjectSettings() settings: AppEnv,
  ) {
    this.settings = settings.attachments;
  }

  /**
   * D47 upload. Writers who may reach the task (403 `Viewers cannot upload attachments`,
   * `Access denied`); then the body (step 7): multipart, stored and confirmed at once
   * (201 the element, `attachment.created`), or a JSON declaration (201 the pending element
   * and its upload link); then the quota (step 9, 413). The body is read only once the access
   * check passed (a refused caller's bytes are never stored).
   */
  async upload(caller: Caller, taskId: number, input: UploadInput): Promise<RawJson<AttachmentDto> | DeclaredUpload> {
    try {
      if (isMultipart(input.contentType)) {
        // The bytes are stored under `key` only after an intent to remove them unless their row comes:
        // queued by the access check's own statement (one round trip less).
        const key = newObjectKey();
        const row = await this.repo.checkAndQueueIntent('attachment.upload', taskId, caller.userId, key);
        const access = this.access.answer(caller, 'attachment.upload', row);
        return await this.uploadMultipart(caller, access.workspaceId, taskId, input, key);
      }
      const access = await this.access.check(caller, 'attachment.upload', taskId, undefined);
      if (input.bodyError) {
        // D7 answers, at step 7 here; never stored by D35.
        throw neverStored(input.bodyError.getStatus() === 415 ? new UnsupportedMediaTypeException(ATTACHMENT_MESSAGES.contentType) : input.bodyError);
      }
      return await this.declare(caller, access.workspaceId, taskId, (input.body ?? {}) as Record<string, unknown>);
    } catch (error) {
      if (error instanceof HttpException && error.getStatus() < 500) this.metrics.counted('refused');
      throw error;
    }
  }

  private async uploadMultipart(caller: Caller, workspaceId: number, taskId: number, input: UploadInput, key: string): Promise<RawJson<AttachmentDto>> {
    const file = await this.stored(input, key);
    const element = await this.insert(caller, workspaceId, taskId, {
      fileName: file.fileName,
      fileSize: file.size,
      mimeType: file.mimeType,
      storageKey: file.key,
      expiresAt: null,
    });
    this.metrics.counted('stored');
    return new RawJson(element);
  }

  /**
   * D47 step 7 of the multipart form, once per request (a second run of the route after a lost
   * race reuses it, the body being read once): the body read and checked (the form's refusals
   * thrown in D47's order), the file stored under `key` (its intent queued already).
   */
  private stored(input: UploadInput, key: string): Promise<StoredUpload> {
    let stored = this.storing.get(input.request);
    if (!stored) this.storing.set(input.request, (stored = this.receiveAndStore(input, key)));
    return stored;
  }

  private async receiveAndStore(input: UploadInput, key: string): Promise<StoredUpload> {
    const max = this.settings.maxBytes;
    // The rest of the body is never read: a client sending gigabytes is cut off, not drained (the
    // answer closes the connection, registerStreamedBodyParser).
    const tooLarge = () => new PayloadTooLargeException(tooLargeMessage(max));
    // D47 step 7 begins with the whole body's size: a declared length says it before any byte is read.
    if ((input.contentLength ?? 0) > max + MULTIPART_BODY_OVERHEAD_BYTES) throw tooLarge();
    const body = input.stream();
    const received =
      'ahead' in body ? body.ahead : await receiveMultipart(body.source, input.contentType!, attachmentStaging(this.settings), uploadLimits(max));
    if (!received.ok && received.unread) throw tooLarge();
    if (!received.ok) {
      const refusal = new HttpException(received.message, received.status);
      // D47: an unparsable multipart body is a D7 answer to D35 (never stored).
      throw received.message === MULTIPART_MESSAGES.invalid ? neverStored(refusal) : refusal;
    }
    await this.storage.store(key, received.stagedPath, received.size);
    return { key, fileName: received.fileName, mimeType: received.mimeType, size: received.size };
  }

  private async declare(caller: Caller, workspaceId: number, taskId: number, body: Record<string, unknown>): Promise<DeclaredUpload> {
    const declared = parseDeclaration(body, this.settings.maxBytes);
    const key = newObjectKey();
    // Whole seconds: the link carries its expiry in seconds, and `expires_at` must say the same.
    const expiresAt = new Date(Math.floor(Date.now() / 1000 + this.settings.uploadTtlSeconds) * 1000);
    const element = await this.insert(caller, workspaceId, taskId, { ...declared, storageKey: key, expiresAt });
    const attachment = JSON.parse(element) as AttachmentDto;
    const link = await this.storage.uploadLink(
      { attachmentId: attachment.id, key, fileName: declared.fileName, mimeType: declared.mimeType, fileSize: declared.fileSize },
      expiresAt,
    );
    this.metrics.counted('declared');
    return { attachment, upload: { ...link, expires_at: expiresAt.toISOString() } };
  }

  /**
   * The insert with D47's quota (step 9: 413), in a transaction of its own or the request's (the quota
   * lock is a statement before the insert); without a quota, one statement, atomic by itself. 404 when
   * the task went meanwhile.
   */
  private async insert(caller: Caller, workspaceId: number, taskId: number, row: NewAttachment): Promise<string> {
    const quota = this.settings.workspaceQuotaBytes;
    const manager = caller.db?.manager ?? this.db.manager;
    const result =
      quota > 0
        ? await manager.transaction((em) => this.repo.insert(em, caller, workspaceId, taskId, row, quota))
        : await this.repo.insert(manager, caller, workspaceId, taskId, row, quota);
    if ('element' in result) return result.element;
    if (row.expiresAt === null) await this.storage.remove(row.storageKey).catch(() => this.repo.queueRemoval(row.storageKey));
    if (result.refused === 'gone') throw new NotFoundException(NOT_FOUND.task);
    throw new PayloadTooLargeException(ATTACHMENT_MESSAGES.quota);
  }

  /** D47 list: the task's confirmed attachments, oldest first; any member who may reach the task. */
  async list(caller: Caller, taskId: number): Promise<RawJson<AttachmentDto[]>> {
    const { body } = await this.access.checkAndRead(caller, 'attachment.list', taskId, this.repo.byTaskRead);
    return new RawJson(body);
  }

  /**
   * D47 confirm: 200 with the element once the stored bytes number exactly `file_size`
   * (else 409 `Upload is missing or incomplete`); a confirmed attachment answers 200 again.
   * The row is locked while its bytes are judged: an upload link cannot change them meanwhile,
   * and of concurrent confirms one records `attachment.created`. The judged bytes are sealed
   * (storage.seal): no upload link can change them afterwards.
   */
  async confirm(caller: Caller, id: number): Promise<RawJson<AttachmentDto>> {
    await this.access.check(caller, 'attachment.confirm', id);
    const element = await (caller.db?.manager ?? this.db.manager).transaction(async (em) => {
      const row = await this.repo.lockForConfirm(em, id);
      if (!row) throw new NotFoundException(NOT_FOUND.attachment);
      if (row.confirmed) return this.repo.confirm(em, caller, id, null);
      const sealed = row.storage_key === null ? null : await this.seal(row.storage_key);
      if (sealed?.size !== row.file_size) {
        if (sealed && sealed.key !== row.storage_key) await this.storage.remove(sealed.key).catch(() => undefined);
        throw new ConflictException(ATTACHMENT_MESSAGES.incomplete);
      }
      return this.repo.confirm(em, caller, id, sealed.key);
    });
    this.metrics.counted('confirmed');
    return new RawJson(element);
  }

  /** The bytes under the upload key `key` made final (storage.seal), a copy's new key covered by an intent first. */
  private async seal(key: string): Promise<{ key: string; size: number } | null> {
    if (!this.storage.sealsByCopy) return this.storage.seal(key, key);
    const finalKey = newObjectKey();
    await this.repo.queueIntent(finalKey);
    return this.storage.seal(key, finalKey);
  }

  /** D47 download: the URL of a short-lived link to a confirmed attachment's bytes (404 for a pending one, after the access check). */
  async downloadUrl(caller: Caller, id: number): Promise<string> {
    const { body } = await this.access.checkAndRead(caller, 'attachment.download', id, this.repo.storedRead);
    const row = JSON.parse(body) as StoredAttachment;
    if (!row.confirmed) throw new NotFoundException(NOT_FOUND.attachment);
    const expiresAt = new Date(Date.now() + this.settings.downloadTtlSeconds * 1000);
    return this.storage.downloadUrl(
      // A fixture's attachment has no bytes: a key no object has (its link finds nothing).
      { attachmentId: row.id, key: row.storage_key ?? NO_OBJECT_KEY, fileName: row.file_name, mimeType: row.mime_type, fileSize: row.file_size },
      expiresAt,
    );
  }

  /** D47 delete: 204; the bytes go after the commit (the removal queue); `attachment.deleted` for a confirmed one. */
  async delete(caller: Caller, id: number): Promise<void> {
    await this.access.check(caller, 'attachment.delete', id);
    if (!(await this.repo.delete(caller, id, caller.db))) throw new NotFoundException(NOT_FOUND.attachment);
  }
}
