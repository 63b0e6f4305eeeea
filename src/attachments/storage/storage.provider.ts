import { Injectable, OnModuleInit, Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { attachmentStaging } from '../../common/http/streamed-body';
import type { AppEnv } from '../../config/env';
import { SETTINGS } from '../../config/settings';
import { LocalStorage } from './local-storage';
import { LinkSigner } from './signed-links';
import { OBJECT_STORAGE, ObjectStorage } from './storage';

/** Start-up error when the database has no `files` secret: its migrations have not run. */
export const MISSING_FILES_SECRET = 'The database has no files secret: run the migrations (npm run cli -- migrate)';

/**
 * The secret that signs the local driver's links (D47): the random `files` row the
 * migrations created in `server_secrets`, shared by every process on the database,
 * read once at start (as the cursor secret is).
 */
@Injectable()
export class FilesSecret implements OnModuleInit {
  private value?: string;
  /** The links signed and checked with this secret. */
  readonly links = new LinkSigner(() => this.get());

  constructor(private readonly db: DataSource) {}

  async onModuleInit(): Promise<void> {
    const rows = (await this.db.query(`SELECT value FROM server_secrets WHERE name = 'files'`)) as { value: string }[];
    if (rows.length === 0) throw new Error(MISSING_FILES_SECRET);
    this.value = rows[0].value;
  }

  /** The secret (after start-up). */
  get(): string {
    if (this.value === undefined) throw new Error(MISSING_FILES_SECRET);
    return this.value;
  }
}

/** The ObjectStorage of STORAGE_DRIVER (D47); the AWS SDK is loaded only for `s3`. */
export const OBJECT_STORAGE_PROVIDER: Provider = {
  provide: OBJECT_STORAGE,
  inject: [SETTINGS, FilesSecret],
  useFactory: (settings: AppEnv, secret: FilesSecret): ObjectStorage => {
    const { driver, dir, s3, publicUrl } = settings.attachments;
    if (driver === 's3') {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { S3Storage } = require('./s3-storage') as typeof import('./s3-storage');
      const staging = attachmentStaging(settings.attachments).dir;
      return new S3Storage({ bucket: s3.bucket!, region: s3.region, endpoint: s3.endpoint, forcePathStyle: s3.forcePathStyle }, staging);
    }
    return new LocalStorage(dir, publicUrl, secret.links);
  },
};
