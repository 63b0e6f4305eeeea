import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Registry } from 'prom-client';

import { DELIVERY_RESULTS, DeliveryResult } from './webhooks.dto';
import { WebhooksRepository } from './webhooks.repository';

/**
 * Webhook delivery metrics, on the app's registry once /metrics is mounted:
 * attempts made by this process by result, and, read from the queue at each
 * scrape, the pending deliveries and the age of the oldest one due.
 */
@Injectable()
export class WebhookMetrics {
  private attempts?: Counter<'result'>;

  constructor(private readonly repo: WebhooksRepository) {}

  /** Adds the metrics to `registry` (src/metrics/metrics.ts). */
  register(registry: Registry): void {
    this.attempts = new Counter({
      name: 'work_tracking_webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts made by this process, by result',
      labelNames: ['result'],
      registers: [registry],
    });
    for (const result of DELIVERY_RESULTS) this.attempts.labels(result).inc(0);
    let state: Promise<{ pending: number; oldest_due_seconds: number }> | undefined;
    // Both gauges read one query per scrape.
    const read = () => (state ??= this.repo.queueState().finally(() => setImmediate(() => (state = undefined))));
    new Gauge({
      name: 'work_tracking_webhook_deliveries_pending',
      help: 'Webhook deliveries waiting in the queue (retries scheduled for later included)',
      registers: [registry],
      async collect() {
        this.set((await read().catch(() => ({ pending: 0 }))).pending);
      },
    });
    new Gauge({
      name: 'work_tracking_webhook_delivery_oldest_pending_seconds',
      help: 'Seconds since the oldest webhook delivery that is due fell due (0: none waiting)',
      registers: [registry],
      async collect() {
        this.set((await read().catch(() => ({ oldest_due_seconds: 0 }))).oldest_due_seconds);
      },
    });
  }

  /** Counts one finished attempt. */
  attempted(result: DeliveryResult): void {
    this.attempts?.labels(result).inc();
  }
}
