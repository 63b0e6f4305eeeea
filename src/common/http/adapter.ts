import { FastifyAdapter } from '@nestjs/platform-fastify';

import type { AppEnv } from '../../config/env';
import { requestId } from '../logging/logger';
import { answerClientError, answerFrameworkError } from './framework-answers';

/** D7: largest request body accepted, in bytes (1 MiB). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Longest path parameter the router accepts: a digit id of any sensible
 * length reaches its route (D5: 404), anything longer is 414 `URI too long`.
 */
export const MAX_PARAM_LENGTH = 1000;

/**
 * The Fastify adapter of an app with settings `env`: the D7 body limit, no
 * Fastify-level logging (the HTTP layer writes one pino line per request), no
 * Express-middleware layer (the app has no Nest middleware), the request id
 * (`X-Request-Id` when sane, else generated), TRUST_PROXY (client IP from
 * X-Forwarded-For), the HTTP timeouts of `env.timeouts` (a request must arrive whole
 * within `httpRequest`, else 408; an idle connection closes after `httpIdle`) and
 * every framework answer as `{ "error" }` (malformed HTTP, oversized headers,
 * bad URLs, shutting down).
 */
export function createAdapter(env: AppEnv): FastifyAdapter {
  const { timeouts } = env;
  return new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    logger: false,
    return503OnClosing: false,
    requestTimeout: timeouts.httpRequest,
    connectionTimeout: timeouts.httpIdle,
    // Node applies requestTimeout to bodies only when given at creation, and checks deadlines
    // every 30 s by default: both are set here so that the timeout means what it says.
    http: { requestTimeout: timeouts.httpRequest, connectionsCheckingInterval: Math.min(1_000, timeouts.httpRequest) },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
    trustProxy: env.trustProxy,
    requestIdHeader: false,
    genReqId: requestId,
    skipMiddie: true,
  });
}
