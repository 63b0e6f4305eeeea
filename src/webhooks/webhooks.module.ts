import { Module } from '@nestjs/common';

import { WebhookWorker } from './webhook-worker';
import { WebhooksController } from './webhooks.controller';
import { WebhookMetrics } from './webhooks.metrics';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** Webhooks (D38): the routes, and the worker that delivers events to them. */
@Module({ controllers: [WebhooksController], providers: [WebhooksService, WebhooksRepository, WebhookWorker, WebhookMetrics], exports: [WebhookMetrics] })
export class WebhooksModule {}
