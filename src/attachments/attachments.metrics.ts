import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Registry } from 'prom-client';

import { AttachmentsRepository } from './attachments.repository';

/** How an upload ended, for `attachment_uploads_total`. */
export type UploadResult = 'stored' | 'declared' | 'confirmed' | 'refused';
const UPLOAD_RESULTS: UploadResult[] = ['stored', 'declared', 'confirmed', 'refused'];

/**
 * Attachment metrics, on the app's registry once /metrics is mounted: uploads of this
 * process by result (multipart `stored`, JSON `declared`, `confirmed`, `refused` with a 4xx
 * of the body, size or quota), and, read at each scrape, the bytes of confirmed
 * attachments and the removals waiting.
 */
@Injectable()
export class AttachmentMetrics {
  private uploads?: Counter<'result'>;

  constructor(private readonly repo: AttachmentsRepository) {}

  /** Adds the metrics to `registry` (src/metrics/metrics.ts). */
  register(registry: Registry): void {
    this.uploads = new Counter({
      name: 'attachment_uploads_total',
      help: 'Attachment uploads answered by this process, by result',
      labelNames: ['result'],
      registers: [registry],
    });
    for (const result of UPLOAD_RESULTS) this.uploads.labels(result).inc(0);
    const repo = this.repo;
    new Gauge({
      name: 'attachment_bytes_stored',
      help: 'Bytes of confirmed attachments, all workspaces',
      registers: [registry],
      async collect() {
        this.set(await repo.bytesStored().catch(() => 0));
      },
    });
    new Gauge({
      name: 'attachment_removals_pending',
      help: 'Attachment objects waiting for their bytes to be removed (and upload intents not yet settled)',
      registers: [registry],
      async collect() {
        this.set(await repo.removalQueueDepth().catch(() => 0));
      },
    });
  }

  /** Counts one upload answer. */
  counted(result: UploadResult): void {
    this.uploads?.labels(result).inc();
  }
}
