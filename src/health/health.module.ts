import { Controller, Get, HttpException, Module, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheckService, HealthIndicatorService, TerminusModule, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { DataSource } from 'typeorm';

import { Public } from '../common/auth/authenticated.decorator';
import type { AppEnv } from '../config/env';
import { InjectSettings } from '../config/settings';
import { isShuttingDown } from './shutdown-state';

/** Body of GET /health. */
const HEALTH_BODY = { type: 'object', properties: { status: { type: 'string', enum: ['ok', 'unavailable'] } } };

/** One probe result of @nestjs/terminus, by check name: `{ "status": "up" | "down", ... }`. */
const CHECKS = {
  type: 'object',
  additionalProperties: { type: 'object', properties: { status: { type: 'string', enum: ['up', 'down'] } }, required: ['status'], additionalProperties: true },
};

/** Body of the probes, in @nestjs/terminus's shape. */
const PROBE_BODY = {
  type: 'object',
  properties: { status: { type: 'string', enum: ['ok', 'error', 'shutting_down'] }, info: CHECKS, error: CHECKS, details: CHECKS },
};

/**
 * Health routes, outside /api/v1 and without a key. D1: `GET /health`, 200
 * when the database answers, else 503. Beside it, the probes of an
 * orchestrator: `/health/live` (the process serves HTTP) and `/health/ready`
 * (the database answers within DB_CONNECT_TIMEOUT_MS, every migration is applied,
 * and shutdown has not begun), in @nestjs/terminus's shape.
 */
@ApiTags('Health')
@Controller('health')
export class HealthController {
  /** An unreachable database is reported within DB_CONNECT_TIMEOUT_MS, whatever the pool waits for. */
  private readonly deadlineMs: number;

  constructor(
    @InjectSettings() settings: AppEnv,
    private readonly db: DataSource,
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly typeorm: TypeOrmHealthIndicator,
  ) {
    this.deadlineMs = settings.timeouts.dbConnect;
  }

  /** `{ "status": "ok" }` (200) or `{ "status": "unavailable" }` (503), within DB_CONNECT_TIMEOUT_MS. */
  @Get()
  @Public()
  @ApiOperation({ summary: 'Health', description: 'Whether the service and its database answer. No key needed.' })
  @ApiOkResponse({ description: 'The database answers', schema: { ...HEALTH_BODY, example: { status: 'ok' } } })
  @ApiResponse({
    status: 503,
    description: 'The database does not answer',
    content: { 'application/json': { schema: HEALTH_BODY, example: { status: 'unavailable' } } },
  })
  async getHealth(@Res() reply: FastifyReply): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((done) => (timer = setTimeout(() => done(false), this.deadlineMs)));
    const answered = this.db.query('SELECT 1').then(
      () => true,
      () => false,
    );
    const ok = await Promise.race([answered, late]).finally(() => clearTimeout(timer));
    if (ok) await reply.status(200).send({ status: 'ok' });
    else await reply.status(503).send({ status: 'unavailable' });
  }

  /** Liveness: 200 `{ "status": "ok", ... }` while the process answers; it touches nothing else. */
  @Get('live')
  @Public()
  @ApiOperation({ summary: 'Liveness probe', description: 'Answers while the process serves HTTP; checks nothing else. No key needed.' })
  @ApiOkResponse({ description: 'The process serves HTTP', schema: { ...PROBE_BODY, example: { status: 'ok', info: {}, error: {}, details: {} } } })
  async getLiveness(@Res() reply: FastifyReply): Promise<void> {
    await this.answer(reply, () => this.health.check([]));
  }

  /** Readiness: 200 when the checks pass; 503 `{ "status": "error", "error": { "<check>": { "status": "down" } }, ... }` naming the failed ones. */
  @Get('ready')
  @Public()
  @ApiOperation({
    summary: 'Readiness probe',
    description: 'Ready when the database answers in time, every migration is applied and shutdown has not begun. No key needed.',
  })
  @ApiOkResponse({
    description: 'Ready',
    schema: { ...PROBE_BODY, example: { status: 'ok', info: { database: { status: 'up' } }, error: {}, details: { database: { status: 'up' } } } },
  })
  @ApiResponse({
    status: 503,
    description: 'Not ready: `error` names the failed checks',
    content: {
      'application/json': {
        schema: PROBE_BODY,
        example: { status: 'error', info: {}, error: { database: { status: 'down' } }, details: { database: { status: 'down' } } },
      },
    },
  })
  async getReadiness(@Res() reply: FastifyReply): Promise<void> {
    const timeout = this.deadlineMs;
    await this.answer(reply, () =>
      this.health.check([
        () => {
          const session = this.indicators.check('shutdown');
          return isShuttingDown() ? session.down({ message: 'shutting down' }) : session.up();
        },
        () => this.typeorm.pingCheck('database', { connection: this.db, timeout }),
        () =>
          this.indicators
            .check('migrations')
            .attempt(async () => {
              if (await this.db.showMigrations()) throw new Error('pending migrations');
            })
            .withTimeout(timeout),
      ]),
    );
  }

  /**
   * Terminus answers 503 by throwing: its body is sent in terminus's shape (not the `{ error }` of D31, which is for
   * API errors), with status words only: a failed check's message may name the database host and port.
   */
  private async answer(reply: FastifyReply, check: () => Promise<object>): Promise<void> {
    try {
      await reply.status(200).send(await check());
    } catch (error) {
      if (!(error instanceof HttpException)) throw error;
      await reply.status(error.getStatus()).send(statusWordsOnly(error.getResponse()));
    }
  }
}

type CheckResults = Record<string, { status: string }>;

/**
 * A failed terminus answer `{ status, info, error, details }` with each check reduced to `{ status }`
 * (`up`/`down`): no error text, host or port.
 */
export function statusWordsOnly(body: string | object): object {
  const { status, info, error, details } = body as { status: string; info?: CheckResults; error?: CheckResults; details?: CheckResults };
  const words = (checks: CheckResults = {}) => Object.fromEntries(Object.entries(checks).map(([name, c]) => [name, { status: c.status }]));
  return { status, info: words(info), error: words(error), details: words(details) };
}

@Module({ imports: [TerminusModule.forRoot({ logger: false })], controllers: [HealthController] })
export class HealthModule {}
