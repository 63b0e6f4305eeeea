import { createParamDecorator, ExecutionContext } from '@nestjs/common';

import type { Db } from '../database/request-db';
import type { Scope } from './scope';

/** Who is calling: the API key's owner and the key's scopes (spec: Authentication 4). */
export interface Caller {
  userId: number;
  keyId: number;
  scopes: readonly Scope[];
  /** The workspace the request acts in, once the access check has found it (the request's log line shows it). */
  workspaceId?: number;
  /**
   * Where this request's statements run: on write routes, the request's own connection
   * (RequestDb, set by WriteRequests: one transaction with an Idempotency-Key,
   * and stopped by the deadline); unset on reads (the pool).
   */
  db?: Db;
}

/** Request property the guard stores the caller under. */
export const CALLER_KEY = 'caller';

/** The Caller the guard resolved for `request`, if it let it through. */
export function callerOfRequest(request: object): Caller | undefined {
  return (request as Record<string, Caller | undefined>)[CALLER_KEY];
}

/** CurrentCaller's factory (WriteRoute finds a handler's Caller argument by it). */
export function callerParam(_: unknown, ctx: ExecutionContext): Caller {
  return callerOfRequest(ctx.switchToHttp().getRequest<object>())!;
}

/** Route parameter decorator: the authenticated Caller the guard resolved. */
export const CurrentCaller = createParamDecorator(callerParam);
