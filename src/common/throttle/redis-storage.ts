import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { Logger } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';

/**
 * Longest wait for Redis, in milliseconds: to connect, and for each command. Past it the request is let
 * through uncounted, so a refused or silent Redis costs a request at most this long.
 */
export const REDIS_TIMEOUT_MS = 100;

/** Longest wait for the first connection at start-up, in milliseconds (requests are let through uncounted until then). */
const STARTUP_WAIT_MS = 1000;

/**
 * Counts in Redis so that every process shares one budget; when Redis fails
 * (refused, silent, or not connected yet) the request is let through at once
 * (a limiter must not take the API down). One warning when an outage begins and
 * one line when Redis answers again, not one per request; `isUp` feeds the
 * `work_tracking_rate_limit_store_up` metric. Readiness does not depend on it.
 */
export class FailOpenRedisStorage extends ThrottlerStorageRedisService {
  private readonly logger = new Logger('RateLimit');
  /** Whether the last command (or connection attempt) succeeded; undefined before the first. */
  private up: boolean | undefined;

  constructor(url: string) {
    super(url, {
      connectTimeout: REDIS_TIMEOUT_MS,
      commandTimeout: REDIS_TIMEOUT_MS,
      // No retry of a failed command and no queue while disconnected: such a command fails at once.
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      // Reconnects in the background: every 100 ms at first, then at most once a second.
      retryStrategy: (attempt: number) => Math.min(attempt * REDIS_TIMEOUT_MS, 1000),
    });
    this.redis.on('error', (error: Error) => this.markDown(error.message));
    this.redis.on('ready', () => this.markUp());
  }

  /** At start, waits up to STARTUP_WAIT_MS for the connection, so the first requests are counted; never fails. */
  async onModuleInit(): Promise<void> {
    if (this.redis.status === 'ready') return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((done) => {
      timer = setTimeout(done, STARTUP_WAIT_MS);
      this.redis.once('ready', done);
    });
    clearTimeout(timer);
  }

  /** True while Redis answers (1 on `work_tracking_rate_limit_store_up`). */
  isUp(): boolean {
    return this.up === true;
  }

  override async increment(...args: Parameters<ThrottlerStorage['increment']>): ReturnType<ThrottlerStorage['increment']> {
    try {
      const result = await super.increment(...args);
      this.markUp();
      return result;
    } catch (error) {
      this.markDown((error as Error).message);
      return { totalHits: 0, timeToExpire: 0, isBlocked: false, timeToBlockExpire: 0 };
    }
  }

  private markDown(reason: string): void {
    if (this.up !== false) this.logger.warn(`Rate-limit store (Redis) unavailable, requests are let through uncounted: ${reason}`);
    this.up = false;
  }

  private markUp(): void {
    if (this.up === false) this.logger.log('Rate-limit store (Redis) available again, requests are counted');
    this.up = true;
  }
}
