import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createReadStream, mkdirSync } from 'fs';
import { unlink } from 'fs/promises';
import { join } from 'path';

import { contentDisposition, servedContentType } from './content-headers';
import { LinkTarget, ObjectStorage, requireObjectKey, UploadLink } from './storage';

/** S3_*: the bucket and how to reach it (credentials: the AWS SDK's default chain). */
export interface S3Options {
  bucket: string;
  region?: string;
  endpoint?: string;
  forcePathStyle: boolean;
}

/** Seconds until `expiresAt`, at least 1 (a presigned URL needs a positive lifetime). */
const secondsUntil = (expiresAt: Date) => Math.max(1, Math.floor((expiresAt.getTime() - Date.now()) / 1000));

/** True for the SDK's answer that an object (or the copy's source) does not exist. */
function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
}

/**
 * D47's `s3` driver: objects in one bucket under their random keys, staged in a
 * local directory and sent whole with PutObject (a known length, so memory stays
 * bounded whatever the size). Links are presigned: the PUT signs the declared
 * `Content-Length` (S3 refuses other sizes), the GET overrides `Content-Type`
 * and `Content-Disposition` with D47's values.
 */
export class S3Storage implements ObjectStorage {
  readonly stagingDir: string;
  readonly client: S3Client;
  private readonly bucket: string;

  constructor(options: S3Options, stagingDir: string) {
    this.bucket = options.bucket;
    this.client = new S3Client({
      // Unset: the SDK's own chain (AWS_REGION, the profile).
      region: options.region,
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle,
      // Checksums only where S3 requires them: the SDK's default (a CRC trailer in aws-chunked
      // uploads) is not understood by many S3-compatible servers, which would store the framing.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    this.stagingDir = join(stagingDir);
    mkdirSync(this.stagingDir, { recursive: true });
  }

  async store(key: string, stagedPath: string, size: number): Promise<void> {
    try {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: requireObjectKey(key), Body: createReadStream(stagedPath), ContentLength: size }),
      );
    } finally {
      await unlink(stagedPath).catch(() => undefined);
    }
  }

  async size(key: string): Promise<number | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: requireObjectKey(key) }));
      return head.ContentLength ?? 0;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  /**
   * A presigned PUT cannot be revoked and S3 offers no condition that allows replacing
   * the bytes until confirm and never after: the confirmed bytes are a server-side copy
   * under `finalKey`, whose size is judged (the copy's, not the upload's: a PUT racing
   * the confirm cannot change what was judged). The upload key is removed by the caller.
   */
  readonly sealsByCopy = true;

  async seal(key: string, finalKey: string): Promise<{ key: string; size: number } | null> {
    try {
      await this.client.send(
        new CopyObjectCommand({ Bucket: this.bucket, Key: requireObjectKey(finalKey), CopySource: `${this.bucket}/${requireObjectKey(key)}` }),
      );
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
    const size = await this.size(finalKey);
    return size === null ? null : { key: finalKey, size };
  }

  async remove(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: requireObjectKey(key) }));
  }

  async uploadLink(target: LinkTarget, expiresAt: Date): Promise<UploadLink> {
    const command = new PutObjectCommand({ Bucket: this.bucket, Key: requireObjectKey(target.key), ContentLength: target.fileSize });
    const url = await getSignedUrl(this.client, command, { expiresIn: secondsUntil(expiresAt), signableHeaders: new Set(['content-length']) });
    return { method: 'PUT', url, headers: { 'Content-Length': String(target.fileSize) } };
  }

  async downloadUrl(target: LinkTarget, expiresAt: Date): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: requireObjectKey(target.key),
      ResponseContentType: servedContentType(target.mimeType),
      ResponseContentDisposition: contentDisposition(target.fileName),
    });
    return getSignedUrl(this.client, command, { expiresIn: secondsUntil(expiresAt) });
  }
}
