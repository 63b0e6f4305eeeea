import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';

import type { AppEnv } from '../../config/env';
import { SETTINGS } from '../../config/settings';
import { RATE_LIMIT_MESSAGE } from './rate-limit.constants';
import type { FailOpenRedisStorage } from './redis-storage';

/** The window of RATE_LIMIT_PER_MINUTE, in milliseconds. */
const WINDOW_MS = 60_000;

/** Whether the rate-limit store answers: Redis as FailOpenRedisStorage sees it (`isUp`); the in-memory store always does. */
export function rateLimitStoreUp(storage: unknown): boolean {
  const redis = storage as Partial<Pick<FailOpenRedisStorage, 'isUp'>> | undefined;
  return typeof redis?.isUp === 'function' ? redis.isUp() : true;
}

/**
 * @nestjs/throttler configured from RATE_LIMIT_PER_MINUTE and REDIS_URL
 * (in memory per process without it). The guard is RateLimitGuard.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [SETTINGS],
      useFactory: ({ redisUrl, rateLimitPerMinute }: AppEnv) => {
        // Loaded only when asked for: a process without REDIS_URL never holds the Redis client.
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const redis = redisUrl ? (require('./redis-storage') as typeof import('./redis-storage')) : undefined;
        return {
          throttlers: [{ ttl: WINDOW_MS, limit: Math.max(1, rateLimitPerMinute) }],
          errorMessage: RATE_LIMIT_MESSAGE,
          storage: redis ? new redis.FailOpenRedisStorage(redisUrl!) : undefined,
        };
      },
    }),
  ],
})
export class RateLimitModule {}
