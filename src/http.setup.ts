import { ServiceUnavailableException } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import helmet from 'helmet';
import type { Logger } from 'pino';

import { callerOfRequest } from './common/auth/auth-context';
import { keepOutOfCaches } from './common/cache/cache-control';
import { sendError } from './common/errors/error.filter';
import { cutAtDeadline } from './common/http/deadline';
import { inFlight, type InFlightEntry } from './common/http/in-flight';
import { sendNotModified } from './common/http/not-modified';
import { needsKey } from './common/http/paths';
import { logRequest } from './common/logging/logger';
import { RateLimitGuard } from './common/throttle/throttle.guard';
import type { AppEnv } from './config/env';
import { mountMetrics } from './metrics/metrics';

/** D47: the prefix of the attachment links, whose paths are secrets. */
const FILES_PATH = '/files/';

/** Request headers a browser may send cross-origin (D20's two key forms, the body type, the request id, D35's and D36's headers). */
const CORS_ALLOWED_HEADERS = ['Authorization', 'X-API-Key', 'Content-Type', 'X-Request-Id', 'If-Match', 'If-None-Match', 'Idempotency-Key', 'Range'];
/** Response headers a browser script may read (D36). */
const CORS_EXPOSED_HEADERS = [
  'ETag',
  'Idempotent-Replayed',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'X-Request-Id',
  'Content-Disposition',
  'Content-Range',
  'Location',
];

/**
 * helmet's security headers, computed once: helmet runs against a recording
 * response at start-up, and every answer then gets the same name/value pairs
 * (same headers as running helmet per request, without re-building them).
 * The CSP is one Swagger UI can live with, and the service is often served over
 * plain HTTP (npm start, behind a TLS proxy), so it does not upgrade /docs' own requests.
 */
export function securityHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: unknown) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  const middleware = helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: [`'self'`],
        styleSrc: [`'self'`, `'unsafe-inline'`],
        imgSrc: [`'self'`, 'data:'],
        scriptSrc: [`'self'`],
        upgradeInsecureRequests: null,
      },
    },
  });
  let failure: unknown;
  middleware({} as never, recorder as never, (error?: unknown) => (failure = error));
  if (failure) throw failure;
  return headers;
}

/** Per-request state of the pipeline, kept on the request. */
interface Lifecycle {
  /** The request's place in the in-flight list. */
  entry: InFlightEntry;
  deadline?: NodeJS.Timeout;
}
const LIFECYCLE = Symbol('lifecycle');
type Tracked = FastifyRequest & { [LIFECYCLE]?: Lifecycle };

/**
 * The operational layer of the HTTP app, applied by configureApp,
 * as Fastify hooks per request (one pass each, nothing per
 * request that can be done once): helmet's security headers, `X-Request-Id`,
 * `Cache-Control: no-store` on keyed routes (D31), the REQUEST_TIMEOUT_MS
 * deadline (503 `Service unavailable`, counted from the whole request), the in-flight list of the
 * shutdown, the rate limit (when on); then, once answered, the request's log line and its metrics.
 * CORS for the origins of CORS_ORIGINS (off when unset); Prometheus metrics at
 * /metrics unless METRICS_ENABLED=false.
 */
export async function configureHttp(app: NestFastifyApplication, env: AppEnv, logger: Logger): Promise<void> {
  if (env.corsOrigins.length > 0) {
    app.enableCors({
      origin: env.corsOrigins.includes('*') ? true : env.corsOrigins,
      // PUT and HEAD: the attachment links under /files/ (browser uploads and downloads, D47).
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      allowedHeaders: CORS_ALLOWED_HEADERS,
      exposedHeaders: CORS_EXPOSED_HEADERS,
      maxAge: 600,
    });
  }
  const fastify = app.getHttpAdapter().getInstance();
  const headers = securityHeaders();
  const requests = inFlight(fastify);
  const timeoutMs = env.timeouts.request;
  const observe = env.metricsEnabled ? mountMetrics(app) : undefined;

  const finish = (request: Tracked) => {
    const lifecycle = request[LIFECYCLE];
    if (!lifecycle) return;
    requests.delete(lifecycle.entry);
    clearTimeout(lifecycle.deadline);
  };
  fastify.addHook('onRequest', (request: Tracked, reply, done) => {
    request[LIFECYCLE] = { entry: requests.add(request) };
    // An answer whose connection went first (a client's malformed next request, a reset) never reaches
    // onResponse or onRequestAbort (its body was complete): it leaves the in-flight list all the same.
    reply.raw.once('close', () => finish(request));
    void reply.headers(headers).header('x-request-id', request.id);
    keepOutOfCaches(reply, request.routeOptions.url);
    done();
  });
  // The deadline runs from the moment the request is received whole (its body parsed): until then
  // HTTP_REQUEST_TIMEOUT_MS governs (408, connection closed), so a trickling body gets that one answer.
  // A write's database work is stopped first (cutAtDeadline), so that the 503 means nothing
  // committed; a write that already committed gets its own answer instead.
  fastify.addHook('preValidation', (request: Tracked, reply, done) => {
    const lifecycle = request[LIFECYCLE];
    if (lifecycle && !reply.sent) {
      lifecycle.deadline = setTimeout(() => {
        if (reply.sent) return;
        void cutAtDeadline(request).then((cut) => {
          if (cut && !reply.sent) sendError(reply, new ServiceUnavailableException(), request);
        });
      }, timeoutMs);
    }
    done();
  });
  // The rate limit counts a request as soon as its headers are in: a refused one costs no body read.
  const limiter = app.get(RateLimitGuard);
  if (limiter.enabled) {
    fastify.addHook('onRequest', async (request, reply) => {
      if (!needsKey(request.routeOptions.url)) return;
      try {
        await limiter.limitRequest(request, reply);
      } catch (error) {
        sendError(reply, error, request);
        return reply;
      }
    });
  }
  fastify.addHook('onRequestAbort', (request: Tracked, done) => {
    finish(request);
    done();
  });
  fastify.addHook('onSend', sendNotModified);
  fastify.addHook('onResponse', (request: Tracked, reply: FastifyReply, done) => {
    finish(request);
    const route = request.routeOptions.url;
    const caller = callerOfRequest(request);
    logRequest(logger, {
      requestId: request.id,
      method: request.method,
      route,
      // D47: a /files/ link is a bearer token: its path is never logged.
      url: request.url.startsWith(FILES_PATH) ? `${FILES_PATH}[redacted]` : request.url,
      headers: request.headers,
      remoteAddress: request.ip,
      status: reply.statusCode,
      durationMs: reply.elapsedTime,
      workspaceId: caller?.workspaceId,
      keyId: caller?.keyId,
    });
    observe?.(request.method, route, reply.statusCode, reply.elapsedTime);
    done();
  });
}
