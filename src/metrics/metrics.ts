import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { getStorageToken } from '@nestjs/throttler';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DataSource } from 'typeorm';

import { AttachmentMetrics } from '../attachments/attachments.metrics';
import { errorExamples } from '../common/openapi/api-errors.decorator';
import { rateLimitStoreUp } from '../common/throttle/throttle.module';
import { WebhookMetrics } from '../webhooks/webhooks.metrics';

/** Path of the Prometheus text exposition (public, outside /api/v1). */
export const METRICS_PATH = '/metrics';

/** The OpenAPI path item of METRICS_PATH (a Fastify route, which the controller scan does not see). */
export const METRICS_OPENAPI = {
  get: {
    tags: ['Health'],
    summary: 'Metrics',
    description:
      'Prometheus text exposition: requests by method, route and status, durations, database pool, process. No key needed. Absent (404) when metrics are turned off.',
    operationId: 'getMetrics',
    responses: {
      200: {
        description: 'Metrics in the Prometheus text format',
        content: {
          'text/plain': {
            schema: { type: 'string', maxLength: 10_000_000 },
            example: 'work_tracking_http_requests_total{method="GET",route="/api/v1/me",status="200"} 1\n',
          },
        },
      },
      404: { description: '', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorDto' }, examples: errorExamples(['Not found']) } } },
    },
  },
};

/** Route label of requests that matched no route (keeps label cardinality bounded). */
const UNMATCHED = 'unmatched';

interface PgPool {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** Counts one answered request: its method, route pattern (none: unmatched), status and duration in ms. */
export type ObserveRequest = (method: string, route: string | undefined, status: number, ms: number) => void;

/**
 * Prometheus metrics of one app: requests by method, route
 * pattern and status, their duration histogram, the database pool (in use,
 * idle, waiting), whether the rate-limit store answers and the process metrics of prom-client, on a registry of
 * its own. Served at GET /metrics; returns the function that counts a request,
 * which the HTTP layer calls for every answer (unknown routes, the OpenAPI
 * document and errors included).
 */
export function mountMetrics(app: NestFastifyApplication): ObserveRequest {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'work_tracking_http_requests_total', help: 'HTTP requests answered', labelNames, registers: [registry] });
  const duration = new Histogram({
    name: 'work_tracking_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, in seconds',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const pool = (): PgPool | undefined => {
    try {
      return (app.get(DataSource, { strict: false }).driver as unknown as { master?: PgPool }).master;
    } catch {
      return undefined;
    }
  };
  const poolGauge = (name: string, help: string, read: (p: PgPool) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const p = pool();
        this.set(p ? read(p) : 0);
      },
    });
  poolGauge('work_tracking_db_pool_connections_in_use', 'Database connections checked out of the pool', (p) => p.totalCount - p.idleCount);
  poolGauge('work_tracking_db_pool_connections_idle', 'Idle database connections in the pool', (p) => p.idleCount);
  poolGauge('work_tracking_db_pool_requests_waiting', 'Queries waiting for a database connection', (p) => p.waitingCount);

  new Gauge({
    name: 'work_tracking_rate_limit_store_up',
    help: 'Whether the rate-limit counter store answers (1) or requests pass uncounted (0); always 1 in memory',
    registers: [registry],
    collect() {
      let storage: unknown;
      try {
        storage = app.get(getStorageToken(), { strict: false });
      } catch {
        storage = undefined;
      }
      this.set(rateLimitStoreUp(storage) ? 1 : 0);
    },
  });

  // D38: webhook delivery attempts by result, queue depth and the age of the oldest due delivery.
  app.get(WebhookMetrics, { strict: false }).register(registry);
  // D47: uploads by result, bytes stored, removals waiting.
  app.get(AttachmentMetrics, { strict: false }).register(registry);

  // One bound child per (method, route, status): the label object is built once per combination (prom-client still hashes it on each observation).
  const children = new Map<string, { count: Counter.Internal; time: Histogram.Internal<string> }>();
  const observe: ObserveRequest = (method, route = UNMATCHED, status, ms) => {
    const key = `${method} ${status} ${route}`;
    let child = children.get(key);
    if (!child) {
      const labels = { method, route, status: String(status) };
      children.set(key, (child = { count: requests.labels(labels), time: duration.labels(labels) }));
    }
    child.count.inc();
    child.time.observe(ms / 1000);
  };

  const fastify = app.getHttpAdapter().getInstance();
  fastify.get(METRICS_PATH, async (_request, reply) => {
    const text = await registry.metrics();
    return reply.header('content-type', registry.contentType).send(text);
  });
  return observe;
}
