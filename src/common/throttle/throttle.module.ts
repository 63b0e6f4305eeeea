import { Logger, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ThrottlerModule, type ThrottlerStorage } from '@nestjs/throttler';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import type { AppEnv } from '../../config/env';
import { RATE_LIMIT_MESSAGE } from './rate-limit.constants';

/** The window of RATE_LIMIT_PER_MINUTE, in milliseconds. */
const WINDOW_MS = 60_000;

/**
 * Counts in Redis so that every process shares one budget; when Redis fails
 * the request is let through (a limiter must not take the API down) and the
 * failure is logged.
 */
class FailOpenRedisStorage extends ThrottlerStorageRedisService {
  private readonly logger = new Logger('RateLimit');
  private lastError = '';

  constructor(url: string) {
    super(url, { maxRetriesPerRequest: 1 });
    // ioredis reconnects by itself; one line per new kind of failure, not one per retry.
    this.redis.on('error', (error: Error) => {
      if (error.message !== this.lastError) this.logger.warn(`Redis: ${error.message}`);
      this.lastError = error.message;
    });
    this.redis.on('ready', () => (this.lastError = ''));
  }

  override async increment(...args: Parameters<ThrottlerStorage['increment']>): ReturnType<ThrottlerStorage['increment']> {
    try {
      return await super.increment(...args);
    } catch (error) {
      this.logger.warn(`Redis unavailable, request not counted: ${(error as Error).message}`);
      return { totalHits: 0, timeToExpire: 0, isBlocked: false, timeToBlockExpire: 0 };
    }
  }
}

/**
 * @nestjs/throttler configured from RATE_LIMIT_PER_MINUTE and REDIS_URL
 * (in memory per process without it). The guard is RateLimitGuard.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService<AppEnv, true>) => {
        const redisUrl = config.get('redisUrl', { infer: true });
        return {
          throttlers: [{ ttl: WINDOW_MS, limit: Math.max(1, config.get('rateLimitPerMinute', { infer: true })) }],
          errorMessage: RATE_LIMIT_MESSAGE,
          storage: redisUrl ? new FailOpenRedisStorage(redisUrl) : undefined,
        };
      },
    }),
  ],
})
export class RateLimitModule {}
