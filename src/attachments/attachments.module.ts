import { Module } from '@nestjs/common';

import { AttachmentsController } from './attachments.controller';
import { AttachmentMetrics } from './attachments.metrics';
import { AttachmentsRepository } from './attachments.repository';
import { AttachmentsService } from './attachments.service';
import { AttachmentsWorker } from './attachments.worker';
import { FilesRoutes } from './files.routes';
import { FilesSecret, OBJECT_STORAGE_PROVIDER } from './storage/storage.provider';

/** Attachments (D39, D47): the API routes, the local driver's /files/ routes, the storage driver and the background removals. */
@Module({
  controllers: [AttachmentsController],
  providers: [AttachmentsService, AttachmentsRepository, AttachmentMetrics, AttachmentsWorker, FilesRoutes, FilesSecret, OBJECT_STORAGE_PROVIDER],
  exports: [AttachmentMetrics],
})
export class AttachmentsModule {}
