import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { run, type Runner } from 'graphile-worker';
import { Pool } from 'pg';

import { jobQueueLogger } from '../common/database/job-queue';
import { processLogger } from '../common/logging/logger';
import type { AppEnv } from '../config/env';
import { InjectSettings } from '../config/settings';
import { AttachmentsRepository } from './attachments.repository';
import { OBJECT_STORAGE, type ObjectStorage } from './storage/storage';

/** The job the attachments trigger adds on every delete (migration 1795960000000), also run each minute. */
export const REMOVALS_TASK = 'attachment_removals';
/** The job that deletes expired pending attachments. */
export const REAP_TASK = 'attachment_reap';
/** Removals claimed per transaction. */
const BATCH = 100;

/**
 * D47's background work, on the job queue (graphile-worker, on our database), in every
 * server process unless ATTACHMENT_WORKER=false: removing the bytes of deleted
 * attachments (the removal queue the trigger fills in the deleting transaction: after
 * the commit, surviving restarts, each entry claimed by one process), and reaping
 * pending uploads past their expiry every five minutes (well within D47's hour).
 */
@Injectable()
export class AttachmentsWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private runner?: Runner;
  private pool?: Pool;

  constructor(
    @InjectSettings() private readonly settings: AppEnv,
    private readonly repo: AttachmentsRepository,
    @Inject(OBJECT_STORAGE) private readonly storage: ObjectStorage,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.settings.attachments.worker || !this.settings.databaseUrl) return;
    this.pool = new Pool({ connectionString: this.settings.databaseUrl, max: 2 });
    const lost = (error: Error) => processLogger().warn({ context: 'JobQueue' }, `job queue connection lost: ${error.message}`);
    this.pool.on('error', lost);
    this.pool.on('connect', (client) => client.on('error', lost));
    this.runner = await run({
      pgPool: this.pool,
      noPreparedStatements: !this.settings.preparedStatements,
      concurrency: 1,
      pollInterval: 2_000,
      noHandleSignals: true,
      logger: jobQueueLogger(processLogger()),
      crontab: `* * * * * ${REMOVALS_TASK} ?max=1\n*/5 * * * * ${REAP_TASK} ?max=1`,
      taskList: {
        [REMOVALS_TASK]: async () => void (await this.removeDue()),
        [REAP_TASK]: async () => void (await this.reap()),
      },
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner?.stop().catch(() => undefined);
    await this.pool?.end().catch(() => undefined);
  }

  /** Removes the bytes of every due removal (none a row points at); returns how many entries were settled. */
  async removeDue(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.repo.processRemovals(BATCH, (key) => this.storage.remove(key));
      total += n;
      if (n < BATCH) break;
    }
    if (total > 0) processLogger().info({ context: 'Attachments', removals: total }, 'attachment bytes removed');
    return total;
  }

  /** Deletes expired pending attachments (their bytes queued by the trigger), then removes what is due. */
  async reap(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.repo.reapExpired(1000);
      total += n;
      if (n < 1000) break;
    }
    await this.removeDue();
    return total;
  }
}
