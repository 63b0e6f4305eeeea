import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ConfigService } from '@nestjs/config';
import { InjectThrottlerOptions, InjectThrottlerStorage, ThrottlerGuard, type ThrottlerModuleOptions, type ThrottlerStorage } from '@nestjs/throttler';
import { ApiKeyCache } from '../auth/api-key.cache';
import { PUBLIC_KEY } from '../auth/authenticated.decorator';
import type { FastifyReply } from 'fastify';
import type { AppEnv } from '../../config/env';
import { keepOutOfCaches } from '../cache/cache-control';

/**
 * Rate limiting (issue 12), a global guard that runs before authentication:
 * one budget of RATE_LIMIT_PER_MINUTE requests per minute per API key, for
 * every route together; a request without a valid key counts against its
 * client IP. Headers `RateLimit-Limit`, `RateLimit-Remaining`,
 * `RateLimit-Reset`; over the limit, 429 `{"error": "Too many requests"}`
 * with `Retry-After` (D31). Public routes (health probes) are not limited;
 * every other route's answers get `Cache-Control: no-store` here (D31);
 * RATE_LIMIT_PER_MINUTE=0 turns it off.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  protected override headerPrefix = 'RateLimit';

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly keys: ApiKeyCache,
    config: ConfigService<AppEnv, true>,
  ) {
    super(options, storage, reflector);
    this.enabled = config.get('rateLimitPerMinute', { infer: true }) > 0;
  }

  private readonly enabled: boolean;

  /**
   * The first guard of every route: besides counting, marks each answer of a
   * route that needs a key `Cache-Control: no-store` (D31), whatever answers it.
   */
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.isPublic(context)) keepOutOfCaches(context.switchToHttp().getResponse<FastifyReply>());
    return super.canActivate(context);
  }

  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    return !this.enabled || this.isPublic(context);
  }

  private isPublic(context: ExecutionContext): boolean {
    return this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, [context.getHandler(), context.getClass()]) === true;
  }

  /**
   * `key:<hash prefix>` for a request with a valid key, else `ip:<client ip>`.
   * The hash, not the row id, so that databases sharing one Redis (tests) never share a budget.
   */
  protected override async getTracker(request: Record<string, unknown>): Promise<string> {
    // The API-key guard right after gets this same lookup (one per request).
    const key = await this.keys.forRequest(request as { headers: Record<string, string | string[] | undefined> });
    if (key?.stored && !key.stored.revoked && !key.stored.expired) return `key:${key.hash.slice(0, 32)}`;
    return `ip:${await super.getTracker(request)}`;
  }

  /** One budget per tracker across all routes (the library's default is per route). */
  protected override generateKey(_context: ExecutionContext, tracker: string, throttler: string): string {
    return `ratelimit:${throttler}:${tracker}`;
  }
}
