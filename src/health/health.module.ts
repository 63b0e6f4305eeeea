import { Controller, Get, HttpException, Module, Res } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheckService, HealthIndicatorService, TerminusModule, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { DataSource } from 'typeorm';
import { Public } from '../common/auth/authenticated.decorator';
import type { AppEnv } from '../config/env';
import { isShuttingDown } from './shutdown-state';

/**
 * Health routes, outside /api/v1 and without a key. D1: `GET /health`, 200
 * when the database answers, else 503. Issue 12 adds the probes of an
 * orchestrator: `/health/live` (the process serves HTTP) and `/health/ready`
 * (the database answers within HEALTH_TIMEOUT_MS, every migration is applied,
 * and shutdown has not begun), in @nestjs/terminus's shape.
 */
@ApiExcludeController()
@Controller('health')
export class HealthController {
  constructor(
    private readonly db: DataSource,
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly typeorm: TypeOrmHealthIndicator,
    private readonly config: ConfigService<AppEnv, true>,
  ) {}

  /** `{ "status": "ok" }` (200) or `{ "status": "unavailable" }` (503). */
  @Get()
  @Public()
  async getHealth(@Res() reply: FastifyReply): Promise<void> {
    try {
      await this.db.query('SELECT 1');
      await reply.status(200).send({ status: 'ok' });
    } catch {
      await reply.status(503).send({ status: 'unavailable' });
    }
  }

  /** Liveness: 200 `{ "status": "ok", ... }` while the process answers; it touches nothing else. */
  @Get('live')
  @Public()
  async getLiveness(@Res() reply: FastifyReply): Promise<void> {
    await this.answer(reply, () => this.health.check([]));
  }

  /** Readiness: 200 when the checks pass; 503 `{ "status": "error", "error": {...}, ... }` naming the failed ones. */
  @Get('ready')
  @Public()
  async getReadiness(@Res() reply: FastifyReply): Promise<void> {
    const timeout = this.config.get('healthTimeoutMs', { infer: true });
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

  /** Terminus answers 503 by throwing: its body is sent as is (not the `{ error }` of D31, which is for API errors). */
  private async answer(reply: FastifyReply, check: () => Promise<object>): Promise<void> {
    try {
      await reply.status(200).send(await check());
    } catch (error) {
      if (!(error instanceof HttpException)) throw error;
      await reply.status(error.getStatus()).send(error.getResponse());
    }
  }
}

@Module({ imports: [TerminusModule.forRoot({ logger: false })], controllers: [HealthController] })
export class HealthModule {}
