import helmet from '@fastify/helmet';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AppEnv } from '../../config/env';
import { mountMetrics } from '../../metrics/metrics';
import { CALLER_KEY, type Caller } from '../auth/auth-context';
import { setRequestLogFields } from '../logging/logger';

/** Request headers a browser may send cross-origin (D20's two key forms, the body type, the request id). */
const CORS_ALLOWED_HEADERS = ['Authorization', 'X-API-Key', 'Content-Type', 'X-Request-Id'];
/** Response headers a browser script may read. */
const CORS_EXPOSED_HEADERS = ['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After'];

/**
 * The operational layer of the HTTP app (issue 12), applied by configureApp:
 * helmet's security headers (a CSP Swagger UI can live with), CORS for the
 * origins of CORS_ORIGINS (off when unset), the `X-Request-Id` answer header,
 * the route pattern and API key id on each request's log line, and Prometheus metrics at /metrics unless
 * METRICS_ENABLED=false.
 */
export async function configureHttp(app: NestFastifyApplication, env: AppEnv): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: [`'self'`],
        styleSrc: [`'self'`, `'unsafe-inline'`],
        imgSrc: [`'self'`, 'data:'],
        scriptSrc: [`'self'`],
        // The service is often served over plain HTTP (npm start, behind a TLS proxy): upgrading
        // /docs' own requests to https would break Swagger UI there.
        upgradeInsecureRequests: null,
      },
    },
  });
  if (env.corsOrigins.length > 0) {
    app.enableCors({
      origin: env.corsOrigins.includes('*') ? true : env.corsOrigins,
      methods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
      allowedHeaders: CORS_ALLOWED_HEADERS,
      exposedHeaders: CORS_EXPOSED_HEADERS,
      maxAge: 600,
    });
  }
  const fastify = app.getHttpAdapter().getInstance();
  // onSend: before the response is written, so the request line (written on 'finish') sees these.
  fastify.addHook('onSend', (request, reply, payload, done) => {
    void reply.header('X-Request-Id', request.id);
    const caller = (request as unknown as Record<string, Caller | undefined>)[CALLER_KEY];
    setRequestLogFields(request.raw, { route: request.routeOptions.url, key_id: caller?.keyId });
    done(null, payload);
  });
  if (env.metricsEnabled) mountMetrics(app);
}
