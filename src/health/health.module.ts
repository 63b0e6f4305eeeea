import { Controller, Get, Module, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { DataSource } from 'typeorm';
import { Public } from '../common/auth/authenticated.decorator';
import { readTimeouts } from '../common/timeouts';

/** D1: `GET /health`, outside /api/v1 and without a key: 200 when the database answers, else 503. */
@ApiExcludeController()
@Controller('health')
export class HealthController {
  /** Issue 8: an unreachable database is reported within DB_CONNECT_TIMEOUT_MS, whatever the pool waits for. */
  private readonly deadlineMs = readTimeouts().dbConnect;

  constructor(private readonly db: DataSource) {}

  /** `{ "status": "ok" }` (200) or `{ "status": "unavailable" }` (503), within DB_CONNECT_TIMEOUT_MS. */
  @Get()
  @Public()
  async getHealth(@Res() reply: FastifyReply): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((done) => (timer = setTimeout(() => done(false), this.deadlineMs)));
    const answered = this.db.query('SELECT 1').then(() => true, () => false);
    const ok = await Promise.race([answered, late]).finally(() => clearTimeout(timer));
    if (ok) await reply.status(200).send({ status: 'ok' });
    else await reply.status(503).send({ status: 'unavailable' });
  }
}

@Module({ controllers: [HealthController] })
export class HealthModule {}
