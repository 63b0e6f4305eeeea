import { Controller, Get, Module, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { DataSource } from 'typeorm';
import { Public } from '../common/auth/authenticated.decorator';

/** D1: `GET /health`, outside /api/v1 and without a key: 200 when the database answers, else 503. */
@ApiExcludeController()
@Controller('health')
export class HealthController {
  constructor(private readonly db: DataSource) {}

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
}

@Module({ controllers: [HealthController] })
export class HealthModule {}
