import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { InjectThrottlerOptions, InjectThrottlerStorage, ThrottlerGuard, type ThrottlerModuleOptions, type ThrottlerStorage } from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';

import type { AppEnv } from '../../config/env';
import { InjectSettings } from '../../config/settings';
import { ApiKeyCache } from '../auth/api-key.cache';

/**
 * Rate limiting, @nestjs/throttler's guard run by the HTTP layer's
 * request hook (limitRequest) as soon as a request's headers are in, before
 * its body is read or parsed, and before authentication: one budget of RATE_LIMIT_PER_MINUTE requests per minute per API key, for
 * every route together; a request without a valid key counts against its
 * client IP. Headers `RateLimit-Limit`, `RateLimit-Remaining`,
 * `RateLimit-Reset`; over the limit, 429 `{"error": "Too many requests"}`
 * with `Retry-After` (D31). Public routes (health probes) are not limited;
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
    @InjectSettings() settings: AppEnv,
  ) {
    super(options, storage, reflector);
    this.enabled = settings.rateLimitPerMinute > 0;
  }

  /** Whether RATE_LIMIT_PER_MINUTE turns the limit on. */
  readonly enabled: boolean;

  /**
   * Counts `request` (a request to a route that needs a key); throws the 429 when it is over
   * the limit, after setting `Retry-After`. The `RateLimit-*` headers go on `reply`.
   */
  async limitRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const context = new ExecutionContextHost([request, reply], RateLimitGuard, RateLimitGuard.prototype.limitRequest);
    context.setType('http');
    await this.canActivate(context);
  }

  protected override async shouldSkip(): Promise<boolean> {
    return !this.enabled;
  }

  /**
   * `key:<hash prefix>` for a request with a valid key, else `ip:<client ip>`.
   * The hash, not the row id, so that databases sharing one Redis (tests) never share a budget.
   */
  protected override async getTracker(request: Record<string, unknown>): Promise<string> {
    // The API-key guard later gets this same lookup (one per request).
    const key = await this.keys.forRequest(request as { headers: Record<string, string | string[] | undefined> });
    if (key?.stored && !key.stored.revoked && !key.stored.expired) return `key:${key.hash.slice(0, 32)}`;
    return `ip:${await super.getTracker(request)}`;
  }

  /** One budget per tracker across all routes (the library's default is per route). */
  protected override generateKey(_context: ExecutionContext, tracker: string, throttler: string): string {
    return `ratelimit:${throttler}:${tracker}`;
  }
}
